import type { Tool } from "./types.ts";
import { displayPath, resolveInWorkspace } from "./workspace_path.ts";
import { PROJECT_DIR_NAME } from "../settings/project.ts";
import { ToolInputError } from "./text_edit.ts";
import { looksBinary } from "./text_file.ts";
import description from "./search.md" with { type: "text" };

const MAX_MATCHES = 200;
const MAX_FILE_BYTES = 2_000_000;
// `.agent` is refused to every file tool (workspace_path.ts); the walk never enters one.
const SKIP_DIRS = new Set([".git", "node_modules", PROJECT_DIR_NAME]);

export const searchTool: Tool = {
  name: "search",
  description,
  input_schema: {
    type: "object",
    properties: {
      pattern: { type: "string", description: "Regular expression to find in file contents" },
      glob: { type: "string", description: "Glob of files to consider, relative to the workspace" },
      path: { type: "string", description: "Directory to search in (default: the workspace root)" },
      case_insensitive: { type: "boolean" },
    },
    additionalProperties: false,
  },
  kind: "read",
  summarize: (input) => `search ${String(input.pattern ?? "")} ${String(input.glob ?? "")}`.trim(),
  async execute(input, ctx) {
    const pattern = typeof input.pattern === "string" && input.pattern !== ""
      ? input.pattern
      : undefined;
    const glob = typeof input.glob === "string" && input.glob !== "" ? input.glob : undefined;
    if (!pattern && !glob) throw new ToolInputError("give a pattern, a glob, or both");
    let regex: RegExp | undefined;
    if (pattern) {
      try {
        regex = new RegExp(pattern, input.case_insensitive ? "i" : "");
      } catch (err) {
        throw new ToolInputError(
          `pattern is not a valid regular expression: ${(err as Error).message}`,
        );
      }
    }
    const root = resolveInWorkspace(ctx.workdir, input.path ?? ".");
    const rootInfo = await Deno.stat(root).catch((err) => {
      if (err instanceof Deno.errors.NotFound) return undefined;
      throw err; // a refusal is not "no such directory"
    });
    if (!rootInfo || !(rootInfo.isDirectory || rootInfo.isFile)) {
      throw new ToolInputError(`no such directory or file: ${displayPath(ctx.workdir, root)}`);
    }
    const globRe = glob ? globToRegExp(glob) : undefined;
    const out: string[] = [];
    // A file as `path` searches just that file.
    const files = rootInfo.isDirectory ? walkFiles(root, ctx.signal) : single(root);
    for await (const file of files) {
      const rel = displayPath(ctx.workdir, file);
      if (globRe && !globRe.test(rel)) continue;
      if (!regex) {
        out.push(rel);
      } else {
        const info = await Deno.stat(file);
        if (info.size > MAX_FILE_BYTES) continue;
        const bytes = await Deno.readFile(file);
        if (looksBinary(bytes)) continue;
        const lines = new TextDecoder().decode(bytes).split("\n");
        for (let i = 0; i < lines.length && out.length < MAX_MATCHES; i++) {
          if (regex.test(lines[i]!)) out.push(`${rel}:${i + 1}: ${lines[i]!.slice(0, 300)}`);
        }
      }
      if (out.length >= MAX_MATCHES) {
        out.push(`… results cut at ${MAX_MATCHES}; narrow the pattern or glob`);
        break;
      }
    }
    return { type: "result", content: out.length ? out.join("\n") : "no matches" };
  },
};

async function* single(path: string): AsyncGenerator<string> {
  yield path;
}

async function* walkFiles(dir: string, signal: AbortSignal): AsyncGenerator<string> {
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(dir)) entries.push(e);
  entries.sort((a, b) => a.name.localeCompare(b.name));
  for (const e of entries) {
    if (signal.aborted) return;
    const path = `${dir}/${e.name}`;
    if (e.isDirectory && !SKIP_DIRS.has(e.name)) yield* walkFiles(path, signal);
    else if (e.isFile) yield path;
  }
}

/** `**` spans directories, `*` and `?` stay within one segment, `{a,b}` alternates. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*" && glob[i + 1] === "*") {
      const slash = glob[i + 2] === "/";
      re += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else if (c === "{") {
      const end = glob.indexOf("}", i);
      if (end === -1) re += "\\{";
      else {
        re += `(?:${glob.slice(i + 1, end).split(",").map(escapeRe).join("|")})`;
        i = end;
      }
    } else re += escapeRe(c);
  }
  // A glob without a slash matches the file name at any depth, like most tools.
  return new RegExp(glob.includes("/") ? `^${re}$` : `(?:^|/)${re}$`);
}

function escapeRe(s: string): string {
  return s.replace(/[.+^${}()|[\]\\]/g, "\\$&");
}
