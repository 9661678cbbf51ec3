// Typed memory errors. The tool turns them into error results the model can read; the
// dashboard maps them to HTTP statuses (MemoryPathError 400, MemoryNotFoundError 404,
// MemoryTooLargeError 413, MemoryCommandError 400).

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

export function displayPath(path: unknown): string {
  if (typeof path !== "string") return `<${typeof path}>`;
  // JSON quoting shows NUL, newlines and backslashes unambiguously.
  return JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
}
