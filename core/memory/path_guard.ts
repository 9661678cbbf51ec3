// The ONE containment guard for memory paths. Every caller (the memory tool, the dashboard
// body route, reflection, sweeps) goes through resolveMemoryPath before touching the disk.
// Refusals are MemoryPathError; nothing is ever silently rewritten into something else.

import { MemoryNotFoundError, MemoryPathError } from "./errors.ts";

/** The virtual prefix every memory path starts with. */
export const VIRTUAL_ROOT = "/memories";

const MAX_PATH_CHARS = 1024;
const MAX_SEGMENT_BYTES = 255;
const MAX_DEPTH = 16;

/** A path that passed the guard. */
export interface MemoryPath {
  /** Canonical virtual path: "/memories" or "/memories/a/b.md". */
  virtual: string;
  /** Canonical path relative to the root ("" for the root itself). */
  rel: string;
  /** Absolute real path the operation uses (in-root symlinks resolved). */
  real: string;
  /** Deepest existing real ancestor (equals `real` when the target exists). */
  base: string;
  /** Segments below `base` that do not exist yet (empty when the target exists). */
  missing: string[];
  exists: boolean;
  isRoot: boolean;
}

/**
 * Lexical checks: returns the path's segments below /memories. Refuses anything that is not
 * a plain path under /memories: traversal, percent-encoding (single or double), backslashes,
 * NUL and other control characters, names that change under Unicode NFKC (full-width dots),
 * dot-leading segments, and other absolute paths.
 */
export function parseVirtualPath(input: unknown): string[] {
  if (typeof input !== "string") {
    throw new MemoryPathError(input, "type", "the path must be a string");
  }
  if (input.length === 0) throw new MemoryPathError(input, "empty", "the path is empty");
  if (input.length > MAX_PATH_CHARS) {
    throw new MemoryPathError(input, "length", `paths are limited to ${MAX_PATH_CHARS} characters`);
  }
  // deno-lint-ignore no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(input)) {
    throw new MemoryPathError(input, "control", "NUL and control characters are not allowed");
  }
  if (input.includes("\\")) {
    throw new MemoryPathError(input, "backslash", "backslashes are not allowed; use /");
  }
  // Memory paths are literal: any %XX escape (which also covers double encoding such as
  // %252e) is refused rather than decoded, so no layer can decode it into a traversal.
  if (/%[0-9a-fA-F]{2}/.test(input)) {
    throw new MemoryPathError(input, "encoded", "percent-encoded characters are not allowed");
  }
  if (input !== VIRTUAL_ROOT && !input.startsWith(`${VIRTUAL_ROOT}/`)) {
    throw new MemoryPathError(input, "outside", `memory paths start with ${VIRTUAL_ROOT}/`);
  }
  const segments = input.slice(VIRTUAL_ROOT.length).split("/").filter((s) => s !== "");
  for (const seg of segments) {
    // Before the other checks: "．．" (full-width) or "‥" is not ".." to the file system, but
    // reads as a traversal to every human and to any layer that folds Unicode. Refused, never
    // folded: a path is taken literally or not at all.
    const folded = seg.normalize("NFKC");
    if (folded !== seg) {
      throw new MemoryPathError(
        input,
        "unicode",
        `the name ${JSON.stringify(seg)} reads as ${
          JSON.stringify(folded)
        } once Unicode compatibility forms are folded (NFKC); write names in NFKC form`,
      );
    }
    if (seg === "..") {
      throw new MemoryPathError(input, "traversal", "'..' segments are not allowed");
    }
    if (seg.startsWith(".")) {
      throw new MemoryPathError(input, "hidden", "segments starting with '.' are reserved");
    }
    if (new TextEncoder().encode(seg).length > MAX_SEGMENT_BYTES) {
      throw new MemoryPathError(input, "length", `a name is limited to ${MAX_SEGMENT_BYTES} bytes`);
    }
  }
  if (segments.length > MAX_DEPTH) {
    throw new MemoryPathError(input, "depth", `paths are limited to ${MAX_DEPTH} levels`);
  }
  return segments;
}

/**
 * Whether a directory entry's name could be addressed through the guard. Listings and the
 * index skip other names (dot-leading, control characters, backslashes, %XX, not NFKC, too
 * long), so nothing is shown that no command could then open.
 */
export function isAddressableName(name: string): boolean {
  return name !== "" && !name.startsWith(".") && !name.includes("\\") &&
    name.normalize("NFKC") === name &&
    // deno-lint-ignore no-control-regex
    !/[\u0000-\u001f\u007f]/.test(name) && !/%[0-9a-fA-F]{2}/.test(name) &&
    new TextEncoder().encode(name).length <= MAX_SEGMENT_BYTES;
}

/** True when `path` is `root` or lies below it (both absolute real paths). */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(`${root}/`);
}

/**
 * True for the errors that mean a path is gone or loops (a race or a bad link); anything else
 * (a refused permission, an I/O error) is the caller's to re-throw, never a "gone" answer.
 */
export function isGoneError(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory ||
    err instanceof Deno.errors.FilesystemLoop;
}

/** The memory root must still be the real directory recorded at open. */
export function assertRootIntact(rootReal: string, input: unknown): void {
  let now: string;
  try {
    now = Deno.realPathSync(rootReal);
  } catch (err) {
    if (!isGoneError(err)) throw err;
    throw new MemoryPathError(input, "root", "the memory root no longer exists");
  }
  if (now !== rootReal) {
    throw new MemoryPathError(input, "root", "the memory root was replaced by a symlink");
  }
}

/**
 * Full guard: lexical checks, then a walk of the existing components. A symlink is followed
 * only when its real target stays inside the root and outside hidden areas (.index).
 */
export function resolveMemoryPath(rootReal: string, input: unknown): MemoryPath {
  const segments = parseVirtualPath(input);
  assertRootIntact(rootReal, input);
  let cur = rootReal;
  let i = 0;
  for (; i < segments.length; i++) {
    const next = `${cur}/${segments[i]}`;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(next);
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) break;
      if (err instanceof Deno.errors.NotADirectory) {
        throw new MemoryNotFoundError(String(input), "is not reachable: a parent is a file");
      }
      throw err;
    }
    if (info.isSymlink) {
      let target: string;
      try {
        target = Deno.realPathSync(next);
      } catch (err) {
        if (!isGoneError(err)) throw err;
        throw new MemoryPathError(
          input,
          "symlink",
          "it goes through a dangling or looping symlink",
        );
      }
      if (!isInside(rootReal, target)) {
        throw new MemoryPathError(
          input,
          "symlink",
          "a symlink in it resolves outside the memory root",
        );
      }
      cur = target;
    } else {
      if (i < segments.length - 1 && !info.isDirectory) {
        throw new MemoryNotFoundError(String(input), "is not reachable: a parent is a file");
      }
      cur = next;
    }
  }
  const missing = segments.slice(i);
  const real = missing.length ? `${cur}/${missing.join("/")}` : cur;
  const rel = real === rootReal ? "" : real.slice(rootReal.length + 1);
  if (rel.split("/").some((s) => s.startsWith("."))) {
    throw new MemoryPathError(input, "hidden", "it resolves into a reserved hidden area");
  }
  return {
    virtual: rel ? `${VIRTUAL_ROOT}/${rel}` : VIRTUAL_ROOT,
    rel,
    real,
    base: cur,
    missing,
    exists: missing.length === 0,
    isRoot: rel === "",
  };
}

/** Virtual path for a root-relative path ("" is the root). */
export function virtualOf(rel: string): string {
  return rel ? `${VIRTUAL_ROOT}/${rel}` : VIRTUAL_ROOT;
}
