// Disk operations on guarded memory paths. The guard (path_guard.ts) decides containment;
// this file closes the gap between that check and the use: reads verify after opening that
// the open file is the checked one, writes go to a fresh temp file (O_EXCL, no link follow)
// in a re-verified directory and are renamed into place. All calls are synchronous so one
// process never interleaves two memory commands on the same file.

import { MemoryCommandError, MemoryNotFoundError, MemoryPathError } from "./errors.ts";
import { isAddressableName, isGoneError, isInside, type MemoryPath } from "./path_guard.ts";

/** Test seam: runs between the containment check and the use, to simulate a racing swap. */
export interface GuardHooks {
  beforeUse?(real: string): void;
}

export interface FileStat {
  mtimeMs: number;
  size: number;
}

export interface ReadResult extends FileStat {
  bytes: Uint8Array;
  /** True when only the first `limit` bytes were read. */
  truncated: boolean;
}

/** Refuses unless `dir` is still a real (symlink-free) directory inside the root. */
function verifyRealDir(rootReal: string, dir: string, shown: string): void {
  let real: string;
  try {
    real = Deno.realPathSync(dir);
  } catch (err) {
    if (!isGoneError(err)) throw err;
    throw new MemoryPathError(shown, "race", "its directory vanished while in use");
  }
  if (real !== dir || !isInside(rootReal, real)) {
    throw new MemoryPathError(shown, "symlink", "a symlink was swapped in while in use");
  }
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.ino === b.ino && a.dev === b.dev;
}

/**
 * Reads a file confined to the root: opens it, then re-resolves its real path and compares
 * the open handle's identity with what the path now names. Reads at most `limit` bytes.
 */
export function readVerified(
  rootReal: string,
  real: string,
  shown: string,
  limit: number,
  hooks?: GuardHooks,
): ReadResult {
  hooks?.beforeUse?.(real);
  // The type before the open: opening a FIFO for reading blocks until a writer comes.
  let before: Deno.FileInfo;
  try {
    before = Deno.statSync(real);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new MemoryNotFoundError(shown);
    throw err;
  }
  if (!before.isFile) {
    const what = before.isDirectory ? "is a directory, not a file" : "is not a regular file";
    throw new MemoryNotFoundError(shown, what);
  }
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(real, { read: true });
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new MemoryNotFoundError(shown);
    throw err;
  }
  try {
    const opened = file.statSync();
    let now: string;
    try {
      now = Deno.realPathSync(real);
    } catch (err) {
      if (!isGoneError(err)) throw err;
      throw new MemoryPathError(shown, "race", "it changed while being opened");
    }
    if (now !== real || !isInside(rootReal, now) || !sameFile(opened, Deno.statSync(now))) {
      throw new MemoryPathError(shown, "symlink", "a symlink was swapped in while opening it");
    }
    if (!opened.isFile) throw new MemoryNotFoundError(shown, "is a directory, not a file");
    const want = Math.min(opened.size, limit);
    const bytes = new Uint8Array(want);
    let got = 0;
    while (got < want) {
      const n = file.readSync(bytes.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    return {
      bytes: got === want ? bytes : bytes.subarray(0, got),
      truncated: opened.size > limit,
      size: opened.size,
      mtimeMs: opened.mtime?.getTime() ?? 0,
    };
  } finally {
    file.close();
  }
}

export function readGuarded(
  rootReal: string,
  p: MemoryPath,
  limit: number,
  hooks?: GuardHooks,
): ReadResult {
  if (!p.exists) throw new MemoryNotFoundError(p.virtual);
  return readVerified(rootReal, p.real, p.virtual, limit, hooks);
}

/** Creates the missing parent directories of `p` one by one, verifying each. */
function ensureParent(rootReal: string, p: MemoryPath): string {
  let dir = p.base;
  for (const seg of p.missing.slice(0, -1)) {
    dir = `${dir}/${seg}`;
    try {
      Deno.mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    }
    verifyRealDir(rootReal, dir, p.virtual);
  }
  const parent = p.exists ? p.real.slice(0, p.real.lastIndexOf("/")) : dir;
  verifyRealDir(rootReal, parent, p.virtual);
  return parent;
}

/** Atomically writes `data` at `p` (create or overwrite). Returns the new file's stat. */
export function writeGuarded(
  rootReal: string,
  p: MemoryPath,
  data: Uint8Array,
  hooks?: GuardHooks,
): FileStat {
  if (p.isRoot) throw new MemoryPathError(p.virtual, "root", "the memory root is not a file");
  if (p.exists && !Deno.lstatSync(p.real).isFile) {
    throw new MemoryCommandError("create", `${p.virtual} is a directory, not a file.`);
  }
  const parent = ensureParent(rootReal, p);
  const tmp = `${parent}/.tmp-${crypto.randomUUID()}`;
  hooks?.beforeUse?.(p.real);
  // createNew = O_CREAT|O_EXCL: never follows a link at the final component.
  const file = Deno.openSync(tmp, { write: true, createNew: true, mode: 0o600 });
  let opened: Deno.FileInfo | undefined;
  try {
    opened = file.statSync();
    verifyRealDir(rootReal, parent, p.virtual);
    let off = 0;
    while (off < data.length) off += file.writeSync(data.subarray(off));
  } catch (err) {
    file.close();
    removeOwnTemp(tmp, opened);
    throw err;
  }
  file.close();
  try {
    verifyRealDir(rootReal, parent, p.virtual);
    Deno.renameSync(tmp, p.real);
  } catch (err) {
    removeOwnTemp(tmp, opened);
    throw err;
  }
  const after = Deno.lstatSync(p.real);
  if (!sameFile(after, opened)) {
    throw new MemoryPathError(p.virtual, "race", "the file was replaced while being written");
  }
  return { mtimeMs: after.mtime?.getTime() ?? 0, size: after.size };
}

/** Removes a temp file we created, and only that file (same inode). */
function removeOwnTemp(tmp: string, opened: Deno.FileInfo | undefined): void {
  if (!opened) return;
  try {
    if (sameFile(Deno.lstatSync(tmp), opened)) Deno.removeSync(tmp);
  } catch { /* already gone */ }
}

/** Deletes a file or a directory tree. The root itself is refused. */
export function removeGuarded(rootReal: string, p: MemoryPath, hooks?: GuardHooks): "file" | "dir" {
  if (p.isRoot) throw new MemoryPathError(p.virtual, "root", "the memory root cannot be deleted");
  if (!p.exists) throw new MemoryNotFoundError(p.virtual);
  hooks?.beforeUse?.(p.real);
  const parent = p.real.slice(0, p.real.lastIndexOf("/"));
  verifyRealDir(rootReal, parent, p.virtual);
  const info = Deno.lstatSync(p.real);
  if (info.isSymlink) {
    throw new MemoryPathError(p.virtual, "symlink", "a symlink was swapped in while in use");
  }
  // A recursive remove unlinks symlinks inside the tree; it never follows them.
  Deno.removeSync(p.real, { recursive: info.isDirectory });
  return info.isDirectory ? "dir" : "file";
}

/** Moves a file or directory inside the root; refuses the root and an existing target. */
export function renameGuarded(
  rootReal: string,
  from: MemoryPath,
  to: MemoryPath,
  hooks?: GuardHooks,
): "file" | "dir" {
  if (from.isRoot || to.isRoot) {
    throw new MemoryPathError(
      from.isRoot ? from.virtual : to.virtual,
      "root",
      "the memory root cannot be renamed or replaced",
    );
  }
  if (!from.exists) throw new MemoryNotFoundError(from.virtual);
  if (to.exists) {
    throw new MemoryCommandError("rename", `${to.virtual} already exists; delete it first.`);
  }
  if (isInside(from.real, to.real)) {
    throw new MemoryCommandError("rename", `cannot move ${from.virtual} into itself.`);
  }
  const toParent = ensureParent(rootReal, to);
  hooks?.beforeUse?.(from.real);
  const fromParent = from.real.slice(0, from.real.lastIndexOf("/"));
  verifyRealDir(rootReal, fromParent, from.virtual);
  verifyRealDir(rootReal, toParent, to.virtual);
  const info = Deno.lstatSync(from.real);
  if (info.isSymlink) {
    throw new MemoryPathError(from.virtual, "symlink", "a symlink was swapped in while in use");
  }
  Deno.renameSync(from.real, to.real);
  return info.isDirectory ? "dir" : "file";
}

export interface WalkEntry extends FileStat {
  /** Root-relative path. */
  rel: string;
}

/**
 * True when `err` says the entry vanished (or stopped being a directory) while a walk was
 * under way. Any other failure, a refusal above all, is thrown by the walkers naming the
 * path: skipping it would make the files below look deleted (the recall index would drop
 * them, listings would hide them).
 */
export function vanished(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory;
}

/** The error for a memory directory or file a walk could not read. */
export function unreadable(path: string, err: unknown): Error {
  const why = err instanceof Error ? err.message : String(err);
  return new Error(`cannot read ${path} in the memory root: ${why}`, { cause: err });
}

/**
 * Every regular file below `dirReal` (root-relative names), skipping names the guard would
 * refuse (.index, temp files, …) and never following symlinks.
 */
export function walkFiles(rootReal: string, dirReal = rootReal, maxDepth = 16): WalkEntry[] {
  const out: WalkEntry[] = [];
  const visit = (dir: string, depth: number) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch (err) {
      if (vanished(err)) return;
      throw unreadable(dir, err);
    }
    for (const e of entries) {
      if (!isAddressableName(e.name) || e.isSymlink) continue;
      const full = `${dir}/${e.name}`;
      if (e.isDirectory) {
        if (depth < maxDepth) visit(full, depth + 1);
      } else if (e.isFile) {
        try {
          const st = Deno.lstatSync(full);
          out.push({
            rel: full.slice(rootReal.length + 1),
            mtimeMs: st.mtime?.getTime() ?? 0,
            size: st.size,
          });
        } catch (err) {
          if (!vanished(err)) throw unreadable(full, err);
        }
      }
    }
  };
  visit(dirReal, 0);
  return out;
}
