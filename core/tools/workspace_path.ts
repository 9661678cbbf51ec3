// Confines file-tool paths to the workspace. Every file tool resolves its `path` input
// through here: relative paths are taken from the workdir, the result is canonicalized
// (symlinks resolved, also for the nearest existing ancestor of a path that does not exist
// yet) and must stay inside the workdir's real path.

import { dirname, isAbsolute, join, relative, resolve } from "../path.ts";

export class WorkspacePathError extends Error {
  override name = "WorkspacePathError";
  constructor(readonly path: string, reason: string) {
    super(`${reason}: ${JSON.stringify(path)} (file tools only reach files inside the workspace)`);
  }
}

/** Returns the canonical absolute path for `input`, or throws WorkspacePathError. */
export function resolveInWorkspace(workdir: string, input: unknown): string {
  if (typeof input !== "string" || input.trim() === "") {
    throw new WorkspacePathError(String(input), "path must be a non-empty string");
  }
  if (input.includes("\0")) throw new WorkspacePathError(input, "path contains a NUL byte");
  const lexical = resolve(workdir, input);
  if (!isInside(workdir, lexical)) throw new WorkspacePathError(input, "path leaves the workspace");
  const real = realpathOfNearest(lexical);
  if (!isInside(workdir, real)) {
    throw new WorkspacePathError(input, "path resolves (through a symlink) outside the workspace");
  }
  return real;
}

/** Workspace-relative display form of a canonical path. */
export function displayPath(workdir: string, abs: string): string {
  const rel = relative(workdir, abs);
  return rel === "" ? "." : rel;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** realpath of the path, or of its nearest existing ancestor joined with the missing tail. */
function realpathOfNearest(path: string): string {
  const tail: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(Deno.realPathSync(current), ...tail.reverse());
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      if (isSymlink(current)) {
        throw new WorkspacePathError(path, "path goes through a dangling symlink");
      }
      const parent = dirname(current);
      if (parent === current) return path;
      tail.push(current.slice(parent.length + (parent.endsWith("/") ? 0 : 1)));
      current = parent;
    }
  }
}

function isSymlink(path: string): boolean {
  try {
    return Deno.lstatSync(path).isSymlink;
  } catch {
    return false;
  }
}
