import type { Tool } from "./types.ts";
import { displayPath, resolveInWorkspace } from "./workspace_path.ts";
import { ToolInputError } from "./text_edit.ts";
import { existingMode, readEditableText, writeText } from "./text_file.ts";
import { unifiedDiff } from "./diff_preview.ts";
import description from "./create_file.md" with { type: "text" };

export const createFileTool: Tool = {
  name: "create",
  description,
  input_schema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File path, relative to the workspace" },
      file_text: { type: "string", description: "The whole content of the file" },
    },
    required: ["path", "file_text"],
    additionalProperties: false,
  },
  kind: "edit",
  summarize: (input) => `create ${String(input.path)}`,
  async preview(input, ctx) {
    const path = resolveInWorkspace(ctx.workdir, input.path);
    if (typeof input.file_text !== "string") throw new ToolInputError("file_text must be a string");
    const shown = displayPath(ctx.workdir, path);
    let before: string | null = null;
    try {
      before = (await readEditableText(path, ctx.workdir)).text;
    } catch (err) {
      if (!(err instanceof ToolInputError)) throw err;
      // Not there yet (shown whole as new), or a file that is not text: say it is replaced.
      if (await Deno.stat(path).then(() => true, absentOnly)) {
        return `${shown}: ${err.message}; it will be replaced by:\n` +
          (await unifiedDiff({ shown, before: null, after: input.file_text }));
      }
    }
    return await unifiedDiff({ shown, before, after: input.file_text });
  },
  async execute(input, ctx) {
    const path = resolveInWorkspace(ctx.workdir, input.path);
    if (typeof input.file_text !== "string") throw new ToolInputError("file_text must be a string");
    const existed = await Deno.stat(path).then((s) => {
      if (s.isDirectory) {
        throw new ToolInputError(`${displayPath(ctx.workdir, path)} is a directory`);
      }
      return true;
    }, absentOnly);
    // Overwriting keeps the old file's permission bits, like an editor saving it.
    const mode = existed ? await existingMode(path) : undefined;
    await writeText(path, input.file_text, mode, true);
    const verb = existed ? "Overwrote" : "Created";
    return { type: "result", content: `${verb} ${displayPath(ctx.workdir, path)}` };
  },
};

/** `false` for a path that does not exist; any other failure (a refusal) is thrown. */
function absentOnly(err: unknown): false {
  if (err instanceof Deno.errors.NotFound) return false;
  throw err;
}
