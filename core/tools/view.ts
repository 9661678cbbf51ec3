import type { Tool } from "./types.ts";
import { displayPath, resolveInWorkspace } from "./workspace_path.ts";
import { capText, numberLines, ToolInputError } from "./text_edit.ts";
import { looksBinary } from "./text_file.ts";
import description from "./view.md" with { type: "text" };

const MAX_VIEW_CHARS = 40_000;
/** Larger files are not read whole into memory; the shell's head/tail/sed can page them. */
const MAX_VIEW_BYTES = 16 * 1024 * 1024;
const MAX_LISTING = 400;

export const viewTool: Tool = {
  name: "view",
  description,
  input_schema: {
    type: "object",
    properties: {
      path: { type: "string", description: "File or directory, relative to the workspace" },
      view_range: {
        type: "array",
        items: { type: "integer" },
        minItems: 2,
        maxItems: 2,
        description: "[start, end] lines, 1-based; end -1 for the end of the file",
      },
    },
    required: ["path"],
    additionalProperties: false,
  },
  kind: "read",
  summarize: (input) => `view ${String(input.path)}`,
  async execute(input, ctx) {
    const path = resolveInWorkspace(ctx.workdir, input.path);
    let stat: Deno.FileInfo;
    try {
      stat = await Deno.stat(path);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err; // a refusal is not "no such file"
      throw new ToolInputError(`no such file or directory: ${displayPath(ctx.workdir, path)}`);
    }
    if (stat.isDirectory) {
      return { type: "result", content: await listDirectory(path, ctx.workdir) };
    }
    const shown = displayPath(ctx.workdir, path);
    // A FIFO or device would block the read forever.
    if (!stat.isFile) throw new ToolInputError(`${shown} is not a regular file or directory`);
    if (stat.size > MAX_VIEW_BYTES) {
      throw new ToolInputError(
        `${shown} is ${stat.size} bytes, over the ${MAX_VIEW_BYTES}-byte view limit; ` +
          `use search, or the shell tool (head, tail, sed -n) to read part of it`,
      );
    }
    const bytes = await Deno.readFile(path);
    if (looksBinary(bytes)) {
      return {
        type: "result",
        content: `${shown} is a binary file (${bytes.length} bytes); not shown. ` +
          `Use the shell tool (for example file or xxd) to inspect it.`,
      };
    }
    const text = new TextDecoder().decode(bytes);
    const range = Array.isArray(input.view_range) ? input.view_range as number[] : undefined;
    return { type: "result", content: capText(numberLines(text, range), MAX_VIEW_CHARS) };
  },
};

async function listDirectory(root: string, workdir: string): Promise<string> {
  const lines: string[] = [`${displayPath(workdir, root)}/`];
  const walk = async (dir: string, depth: number, indent: string) => {
    const entries: Deno.DirEntry[] = [];
    for await (const e of Deno.readDir(dir)) {
      if (!e.name.startsWith(".") && e.name !== "node_modules") entries.push(e);
    }
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      if (lines.length >= MAX_LISTING) return;
      lines.push(`${indent}${e.name}${e.isDirectory ? "/" : ""}`);
      if (e.isDirectory && depth < 2) await walk(`${dir}/${e.name}`, depth + 1, indent + "  ");
    }
  };
  await walk(root, 1, "  ");
  if (lines.length >= MAX_LISTING) lines.push(`… (listing cut at ${MAX_LISTING} entries)`);
  return lines.join("\n");
}
