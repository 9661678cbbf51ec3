// Typed memory errors. The tool turns them into error results the model can read; the
// dashboard maps them to HTTP statuses (MemoryPathError 400, MemoryNotFoundError 404,
// MemoryTooLargeError 413, MemoryCommandError 400); MemoryRootError is a set-up failure.

/** A path was refused by the containment guard. Nothing was read or written. */
export class MemoryPathError extends Error {
  override name = "MemoryPathError";
  /** The path exactly as given (control characters escaped for display). */
  readonly path: string;
  /** Short machine-readable reason: "traversal", "encoded", "outside", "symlink", … */
  readonly reason: string;

  constructor(path: unknown, reason: string, detail: string) {
    const shown = displayPath(path);
    super(
      `memory path ${shown} refused (${reason}): ${detail}. ` +
        `Use a plain path under /memories, e.g. /memories/facts/build.md.`,
    );
    this.path = shown;
    this.reason = reason;
  }
}

/** The path is valid but nothing is there (or the wrong kind of thing is there). */
export class MemoryNotFoundError extends Error {
  override name = "MemoryNotFoundError";
  readonly path: string;
  constructor(path: string, detail = "does not exist") {
    super(`${path} ${detail}. Use view /memories to list what exists.`);
    this.path = path;
  }
}

/** A body over the cap was asked for whole, or a write would exceed it. */
export class MemoryTooLargeError extends Error {
  override name = "MemoryTooLargeError";
  readonly path: string;
  readonly size: number;
  readonly cap: number;
  constructor(path: string, size: number, cap: number, hint: string) {
    super(`${path} is ${size} bytes, over the ${cap}-byte memory cap; ${hint}.`);
    this.path = path;
    this.size = size;
    this.cap = cap;
  }
}

/** A memory command had bad input (missing field, old_str not found, bad line number, …). */
export class MemoryCommandError extends Error {
  override name = "MemoryCommandError";
  readonly command: string;
  constructor(command: string, message: string) {
    super(message);
    this.command = command;
  }
}

/**
 * The memory root itself cannot be used: it is a file, a parent is a file, it cannot be
 * created or written. `problem` is plain words without the OS error code. The message names
 * the `memory_dir` setting, the only thing that chooses a root (the agent and the outpost),
 * so the operator knows what to change; callers that know where its value came from say so
 * with memoryDirProblem().
 */
export class MemoryRootError extends Error {
  override name = "MemoryRootError";
  readonly root: string;
  readonly problem: string;
  constructor(root: string, problem: string, options?: ErrorOptions) {
    super(`memory_dir ${root} ${problem}`, options);
    this.root = root;
    this.problem = problem;
  }
}

/**
 * One line for a memory_dir that cannot be used: the setting's value, where it came from
 * (describeSource's words, when known), what is wrong and `fix`, what to do about it.
 */
export function memoryDirProblem(
  dir: string,
  from: string | undefined,
  err: MemoryRootError,
  fix: string,
): string {
  return `memory_dir ${dir}${from ? ` (from ${from})` : ""}: ${err.problem}; ${fix}`;
}

/** Plain words for a file-system error met while preparing `path` (no "(os error N)"). */
export function fsProblem(err: unknown, path: string): string {
  if (err instanceof Deno.errors.AlreadyExists || err instanceof Deno.errors.NotADirectory) {
    return `is not usable as a directory: ${path} or one of its parents is a file`;
  }
  if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable) {
    return `cannot be created or written (permission denied at ${path})`;
  }
  if (err instanceof Deno.errors.NotFound) {
    return `cannot be created (${path}: its parent cannot hold new directories)`;
  }
  const text = err instanceof Error ? err.message : String(err);
  return `cannot be used (${text.replace(/\s*\(os error \d+\)/g, "").split("\n")[0]})`;
}

export function displayPath(path: unknown): string {
  if (typeof path !== "string") return `<${typeof path}>`;
  // JSON quoting shows NUL, newlines and backslashes unambiguously.
  return JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
}
