// The workspace a memory file is stamped with: the real path of the working directory, or,
// inside a linked git worktree, the same place in its MAIN working tree (so every
// worktree of one repository shares its memories).
//
// Detection reads git's own pointers instead of spawning git: a linked worktree has a
// `.git` FILE saying `gitdir: <common>/worktrees/<name>`, and that gitdir holds a
// `commondir` file pointing at the shared `.git` directory (what
// `git rev-parse --git-common-dir` prints). Submodules also use a `.git` file but have no
// `commondir`, so they keep their own path.

import { errorText } from "../logger.ts";
import { readRegularFileSync } from "../regular_file.ts";

function dirname(p: string): string {
  const i = p.lastIndexOf("/");
  return i <= 0 ? "/" : p.slice(0, i);
}

function resolveFrom(base: string, p: string): string {
  return p.startsWith("/") ? p : `${base}/${p}`;
}

/**
 * Only "not there" (or a path through a file) means "no such pointer". Anything else, a
 * refused read above all, throws naming the path: guessing would file memory under another
 * workspace stamp (a worktree taken for its own repository).
 */
function absentOrThrow(path: string, err: unknown): null {
  if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) return null;
  throw new Error(
    `cannot work out the memory workspace: reading ${path} failed: ${errorText(err)}`,
    {
      cause: err,
    },
  );
}

/** Git's pointer files are a few hundred bytes; anything longer is not one. */
const POINTER_MAX_BYTES = 8192;

/**
 * A pointer file's text, or null when there is none. The path comes from a `.git` file in the
 * workdir, which the model can write: a FIFO or device there is not a pointer (and is never
 * opened, so it cannot hang the run's set-up; core/regular_file.ts).
 */
function readTrimmed(path: string): string | null {
  try {
    const read = readRegularFileSync(path, POINTER_MAX_BYTES);
    if (read.kind !== "read" || read.truncated) return null;
    return new TextDecoder().decode(read.bytes).trim();
  } catch (err) {
    return absentOrThrow(path, err);
  }
}

/** The main working tree for a linked worktree whose top is `top`, or null. */
function mainTreeOf(top: string): string | null {
  const pointer = readTrimmed(`${top}/.git`);
  const m = pointer ? /^gitdir:\s*(.+)$/m.exec(pointer) : null;
  if (!m?.[1]) return null;
  const gitdir = resolveFrom(top, m[1].trim());
  const common = readTrimmed(`${gitdir}/commondir`);
  if (!common) return null; // a submodule or a plain gitfile checkout
  const commonPath = resolveFrom(gitdir, common);
  let commonReal: string;
  try {
    commonReal = Deno.realPathSync(commonPath);
  } catch (err) {
    return absentOrThrow(commonPath, err);
  }
  // A bare common repository has no main working tree: keep the linked checkout's path.
  if (!commonReal.endsWith("/.git")) return null;
  const main = dirname(commonReal);
  try {
    return Deno.statSync(`${main}/.git`).isDirectory ? Deno.realPathSync(main) : null;
  } catch (err) {
    return absentOrThrow(`${main}/.git`, err);
  }
}

export function resolveWorkspaceSync(cwd: string): string {
  const real = Deno.realPathSync(cwd);
  for (let dir = real;; dir = dirname(dir)) {
    let info: Deno.FileInfo | null = null;
    try {
      info = Deno.lstatSync(`${dir}/.git`);
    } catch (err) {
      absentOrThrow(`${dir}/.git`, err); // not here: look further up
    }
    if (info?.isDirectory) return real; // a main working tree (or a plain repository)
    if (info?.isFile) {
      const main = mainTreeOf(dir);
      if (!main) return real;
      const below = real.slice(dir.length); // "" or "/sub/dir"
      return `${main}${below}`;
    }
    if (dir === "/") return real;
  }
}

/** Real path of `cwd`, mapped to the main working tree for a linked git worktree. */
export function resolveWorkspace(cwd: string): Promise<string> {
  return Promise.resolve().then(() => resolveWorkspaceSync(cwd));
}
