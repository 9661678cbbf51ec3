// What this interactive session changed in the workdir, for /diff: the text of each file the
// edit tools touched, as it was before the session's first edit of it. Changes made through
// the shell tool are not tracked (say so in /diff), since any program can write anywhere.

import { resolveInWorkspace } from "../core/tools/workspace_path.ts";
import { displayPath } from "../core/tools/workspace_path.ts";
import { type FileChange, unifiedDiff } from "../core/tools/file_change.ts";
import type { ToolCallPart } from "../core/agent/loop.ts";

const EDIT_TOOLS = new Set(["create", "str_replace", "insert"]);

/** Files larger than this are listed as changed without a diff. */
const DIFF_MAX_BYTES = 1_000_000;

export class SessionChanges {
  readonly #workdir: string;
  /** Absolute path → text before the first edit (null: the file did not exist). */
  readonly #before = new Map<string, string | null>();

  constructor(workdir: string) {
    this.#workdir = workdir;
  }

  /** Called as an edit call starts, before it runs: records the file's text the first time. */
  noteCall(call: ToolCallPart): void {
    if (!EDIT_TOOLS.has(call.name)) return;
    let path: string;
    try {
      path = resolveInWorkspace(this.#workdir, call.input.path);
    } catch {
      return; // the tool refuses the path itself, and nothing is written
    }
    if (this.#before.has(path)) return;
    this.#before.set(path, readTextOrNull(path));
  }

  get count(): number {
    return this.#before.size;
  }

  /** A unified diff per changed file, in the order first touched; unchanged files left out. */
  diffs(): string[] {
    const out: string[] = [];
    for (const [path, before] of this.#before) {
      const after = readTextOrNull(path);
      if (after === before) continue;
      const shown = displayPath(this.#workdir, path);
      if (after === null) {
        out.push(`--- a/${shown}\n+++ /dev/null\n(deleted)`);
        continue;
      }
      const change: Pick<FileChange, "shown" | "before" | "after"> = { shown, before, after };
      out.push(unifiedDiff(change));
    }
    return out;
  }
}

/** A regular file's UTF-8 text, or null when there is none; a big or binary file reads as a marker. */
function readTextOrNull(path: string): string | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  // A FIFO or device would block the read forever.
  if (!info.isFile) return `(not a regular file)`;
  if (info.size > DIFF_MAX_BYTES) {
    return `(${info.size} bytes, modified ${info.mtime?.toISOString()})`;
  }
  const bytes = Deno.readFileSync(path);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return `(binary, ${bytes.length} bytes, fingerprint ${fingerprint(bytes)})`;
  }
}

/** FNV-1a over the bytes: enough to tell that a binary file changed. */
function fingerprint(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (const b of bytes) h = Math.imul(h ^ b, 0x01000193) >>> 0;
  return h.toString(16).padStart(8, "0");
}
