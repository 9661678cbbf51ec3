import type { Tool } from "./types.ts";
import { displayPath, resolveInWorkspace } from "./workspace_path.ts";
import { insertAfterLine, ToolInputError } from "./text_edit.ts";
import { readEditableText, writeText } from "./text_file.ts";
import type { FileChange } from "./file_change.ts";
import { unifiedDiff } from "./diff_preview.ts";
import description from "./insert.md" with { type: "text" };

export const insertTool: Tool = {
  name: "insert",
  description,
  input_schema: {
    type: "object",
    properties: {
      path: { type: "string" },
      insert_line: { type: "integer", minimum: 0, description: "Insert after this line; 0 = top" },
      insert_text: { type: "string" },
    },
    required: ["path", "insert_line", "insert_text"],
    additionalProperties: false,
  },
  kind: "edit",
  summarize: (input) => `insert into ${String(input.path)} after line ${String(input.insert_line)}`,
  async preview(input, ctx) {
    return await unifiedDiff(await planInsert(input, ctx.workdir));
  },
  async execute(input, ctx) {
    const change = await planInsert(input, ctx.workdir);
    await writeText(change.path, change.after, change.mode);
    return { type: "result", content: `Inserted into ${change.shown}` };
  },
};

async function planInsert(input: Record<string, unknown>, workdir: string): Promise<FileChange> {
  const path = resolveInWorkspace(workdir, input.path);
  if (typeof input.insert_text !== "string") {
    throw new ToolInputError("insert_text must be a string");
  }
  const file = await readEditableText(path, workdir);
  return {
    path,
    shown: displayPath(workdir, path),
    before: file.text,
    after: insertAfterLine(file.text, lineNumber(input.insert_line), input.insert_text),
    mode: file.mode,
  };
}

// Number(null) and Number("") are 0: without this check a missing line would insert at the top.
function lineNumber(raw: unknown): number {
  if (typeof raw === "number") return raw;
  if (typeof raw === "string" && /^\s*-?\d+\s*$/.test(raw)) return Number(raw);
  throw new ToolInputError(
    `insert_line must be an integer line number (0 = top of the file); got ${
      JSON.stringify(raw) ?? "nothing"
    }`,
  );
}
