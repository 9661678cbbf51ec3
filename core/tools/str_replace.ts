import type { Tool } from "./types.ts";
import { displayPath, resolveInWorkspace } from "./workspace_path.ts";
import { replaceOnce, ToolInputError } from "./text_edit.ts";
import { readEditableText, writeText } from "./text_file.ts";
import type { FileChange } from "./file_change.ts";
import { unifiedDiff } from "./diff_preview.ts";
import description from "./str_replace.md" with { type: "text" };

export const strReplaceTool: Tool = {
  name: "str_replace",
  description,
  input_schema: {
    type: "object",
    properties: {
      path: { type: "string" },
      old_str: { type: "string", description: "Exact text to replace (must occur once)" },
      new_str: { type: "string", description: "Replacement text" },
    },
    required: ["path", "old_str", "new_str"],
    additionalProperties: false,
  },
  kind: "edit",
  summarize: (input) => `str_replace in ${String(input.path)}`,
  async preview(input, ctx) {
    return await unifiedDiff(await planReplace(input, ctx.workdir));
  },
  async execute(input, ctx) {
    const change = await planReplace(input, ctx.workdir);
    await writeText(change.path, change.after, change.mode);
    return { type: "result", content: `Edited ${change.shown}` };
  },
};

async function planReplace(input: Record<string, unknown>, workdir: string): Promise<FileChange> {
  const path = resolveInWorkspace(workdir, input.path);
  if (typeof input.old_str !== "string" || typeof input.new_str !== "string") {
    throw new ToolInputError("old_str and new_str must be strings");
  }
  const file = await readEditableText(path, workdir);
  return {
    path,
    shown: displayPath(workdir, path),
    before: file.text,
    after: replaceOnce(file.text, input.old_str, input.new_str),
    mode: file.mode,
  };
}
