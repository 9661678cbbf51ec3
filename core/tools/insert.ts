import type { Tool } from "./types.ts";
import { displayPath, resolveInWorkspace } from "./workspace_path.ts";
import { insertAfterLine, ToolInputError } from "./text_edit.ts";
import { readExisting } from "./str_replace.ts";
import { writeFileAtomic } from "../atomic_write.ts";
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
  async execute(input, ctx) {
    const path = resolveInWorkspace(ctx.workdir, input.path);
    if (typeof input.insert_text !== "string") {
      throw new ToolInputError("insert_text must be a string");
    }
    const text = await readExisting(path, ctx.workdir);
    await writeFileAtomic(
      path,
      insertAfterLine(text, Number(input.insert_line), input.insert_text),
    );
    return { type: "result", content: `Inserted into ${displayPath(ctx.workdir, path)}` };
  },
};
