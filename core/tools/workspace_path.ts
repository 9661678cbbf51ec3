// Confines file-tool paths to the workspace. Every file tool resolves its `path` input
// through here: relative paths are taken from the workdir, the result is canonicalized
// (symlinks resolved, also for the nearest existing ancestor of a path that does not exist
// yet) and must stay inside the workdir's real path. The workdir is meant to arrive
// canonical, but a symlinked one is canonicalized here too rather than refusing everything.
//
// A `.agent` folder is never the model's, wherever it sits in the workspace: it holds the
// project settings, which decide where the next run sends its prompt (issue 37). The `create`
// tool runs outside the sandbox, so this rule (checked on the path as written and as resolved)
// is what keeps the file tools out; the sandbox masks the workdir's `.agent` for commands.

import { isAbsolute, relative, resolve } from "../path.ts";
import { nearestRealPath } from "../nearest_real_path.ts";
import { PROJECT_DIR_NAME } from "../settings/project.ts";

export class WorkspacePathError extends Error {
  override name = "WorkspacePathError";
  constructor(
    readonly path: string,
    readonly reason: string,
    hint = "file tools only reach files inside the workspace",
  ) {
    super(`${reason}: ${JSON.stringify(path)} (${hint})`);
  }
}

/** Returns the canonical absolute path for `input`, or throws WorkspacePathError. */
export function resolveInWorkspace(workdir: string, input: unknown): string {
  if (typeof input !== "string" || input.trim() === "") {
    throw new WorkspacePathError(String(input), "path must be a non-empty string");
  }
  if (input.includes("\0")) throw new WorkspacePathError(input, "path contains a NUL byte");
  const root = canonicalRoot(workdir);
  const lexical = resolve(workdir, input);
  if (!isInside(workdir, lexical) && !isInside(root, lexical)) {
    throw new WorkspacePathError(input, "path leaves the workspace");
  }
  const real = realpathOfNearest(lexical, input);
  if (!isInside(root, real)) {
    throw new WorkspacePathError(input, "path resolves (through a symlink) outside the workspace");
  }
  if (inAgentFolder(relative(root, real)) || inAgentFolder(relative(workdir, lexical))) {
    throw new WorkspacePathError(
      input,
      `path is in a ${PROJECT_DIR_NAME} folder`,
      "the project's agent settings are not the model's to read or change",
    );
  }
  return real;
}

/** True when a workspace-relative path is a `.agent` folder or lies inside one. */
export function inAgentFolder(rel: string): boolean {
  return rel.split("/").includes(PROJECT_DIR_NAME);
}

/** Workspace-relative display form of a canonical path. */
export function displayPath(workdir: string, abs: string): string {
  let rel = relative(workdir, abs);
  if (leaves(rel)) rel = relative(canonicalRoot(workdir), abs);
  return rel === "" ? "." : rel;
}

/** True when `path` is `root` or below it (compared lexically). */
function isInside(root: string, path: string): boolean {
  return !leaves(relative(root, path));
}

// Only a whole `..` segment leaves: `..foo` and `...` are ordinary names.
function leaves(rel: string): boolean {
  return rel === ".." || rel.startsWith("../") || isAbsolute(rel);
}

function canonicalRoot(workdir: string): string {
  try {
    return Deno.realPathSync(workdir);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    throw new WorkspacePathError(
      workdir,
      "the workspace directory does not exist",
      "start the run in an existing directory",
    );
  }
}

/**
 * realpath of the path, or of its nearest existing ancestor joined with the missing tail;
 * a parent that is a file, or a dangling symlink on the way, refuses the path.
 */
function realpathOfNearest(path: string, input: string): string {
  return nearestRealPath(path, (step, err) => {
    if (err instanceof Deno.errors.NotADirectory) {
      throw new WorkspacePathError(
        input,
        "a parent of the path is a file, not a directory",
        "check the path with view or search",
      );
    }
    if (isSymlink(step)) {
      throw new WorkspacePathError(input, "path goes through a dangling symlink");
    }
  });
}

/**
 * True when `path` itself is a symlink; false only when nothing is there. Any other failure
 * (a refused lstat) is thrown with the path named: taking it for "not a symlink" would let
 * the walk go on as if the path were simply missing. Exported for its test: realpath fails
 * first with the same refusal on every path Deno or the kernel refuses, so the walk cannot
 * be made to reach this failure on purpose.
 */
export function isSymlink(path: string): boolean {
  try {
    return Deno.lstatSync(path).isSymlink;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(`cannot check whether ${JSON.stringify(path)} is a symlink: ${why}`, {
      cause: err,
    });
  }
}
