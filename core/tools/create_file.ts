import type { Tool } from "./types.ts";
import { displayPath, resolveInWorkspace } from "./workspace_path.ts";
import { ToolInputError } from "./text_edit.ts";
import { existingMode, writeText } from "./text_file.ts";
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
  async execute(input, ctx) {
    const path = resolveInWorkspace(ctx.workdir, input.path);
    if (typeof input.file_text !== "string") throw new ToolInputError("file_text must be a string");
    const existed = await Deno.stat(path).then((s) => {
      if (s.isDirectory) {
        throw new ToolInputError(`${displayPath(ctx.workdir, path)} is a directory`);
      }
      return true;
    }, () => false);
    // Overwriting keeps the old file's permission bits, like an editor saving it.
    const mode = existed ? await existingMode(path) : undefined;
    await writeText(path, input.file_text, mode, true);
    const verb = existed ? "Overwrote" : "Created";
    return { type: "result", content: `${verb} ${displayPath(ctx.workdir, path)}` };
  },
};
