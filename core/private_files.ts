// Owner-only modes for what the programs keep under the agent home. Job history, reports,
// delivery records, the CSRF secret and the governor's levers say what the operator's
// machines do; like sessions/ and memory/, they are 0600 files in 0700 folders. New files and
// folders are created so; `tightenTree` fixes an existing install (an older version created
// them 0644/0755) when the outpost opens.
//
// A chmod here never follows a symlink: a run can leave symlinks in its runs folder, and
// chmod(2) on one would change the mode of whatever it points at. Files are opened with
// O_NOFOLLOW | O_NONBLOCK (a FIFO does not block the open), checked with fstat, and changed
// with fchmod on that descriptor.

import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "./path.ts";

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `path` (and missing parents) as owner-only folders; an existing folder is left. */
export async function makePrivateDir(path: string): Promise<void> {
  await Deno.mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/** makePrivateDir for synchronous callers (the SQLite store opens in a constructor). */
export function makePrivateDirSync(path: string): void {
  Deno.mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
}

/**
 * Creates an empty owner-only file at `path` unless something is there, so a library that
 * creates files with its own mode (SQLite: 0644, and its -wal/-shm copy the database's mode)
 * finds a private one. An existing regular file is tightened instead.
 */
export function ensurePrivateFileSync(path: string): void {
  try {
    Deno.openSync(path, { write: true, createNew: true, mode: PRIVATE_FILE_MODE }).close();
    Deno.chmodSync(path, PRIVATE_FILE_MODE); // the umask may have narrowed it; never wider
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    tightenFileSync(path);
  }
}

/** Sets an existing regular file (not a symlink) to 0600; absent files are fine. */
export function tightenFileSync(path: string): void {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  if (info.isFile && ((info.mode ?? 0) & 0o777) !== PRIVATE_FILE_MODE) {
    Deno.chmodSync(path, PRIVATE_FILE_MODE);
  }
}

/**
 * Sets the regular file or folder at `path` to `mode` without following a symlink. Returns
 * whether the mode changed; a symlink, a FIFO, a socket or a missing path is left alone.
 */
export async function tightenPath(path: string, mode: number): Promise<boolean> {
  let info: Deno.FileInfo;
  try {
    // Sync: one local metadata call (it cannot block on a FIFO) instead of a thread-pool
    // round trip per finished run: the 30-day simulation's month went 0.90x (6 interleaved
    // rounds against the previous checkout, scripts/bench_outpost_sim.ts).
    info = Deno.lstatSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
  if (!(info.isFile || info.isDirectory) || ((info.mode ?? 0) & 0o777) === mode) return false;
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ELOOP" || code === "ENOENT") return false; // swapped meanwhile
    throw err;
  }
  try {
    const opened = await handle.stat();
    if (opened.isDirectory() !== info.isDirectory || !(opened.isFile() || opened.isDirectory())) {
      return false;
    }
    await handle.chmod(mode);
    return true;
  } finally {
    await handle.close();
  }
}

export interface TightenResult {
  /** Files and folders whose mode was changed. */
  changed: number;
  /** What could not be changed, and why. */
  failed: { path: string; error: unknown }[];
}

/** Folders 0700 and regular files 0600 under `root` (itself included); symlinks untouched. */
export async function tightenTree(root: string): Promise<TightenResult> {
  const result: TightenResult = { changed: 0, failed: [] };
  const visit = async (path: string, isDir: boolean): Promise<void> => {
    try {
      if (await tightenPath(path, isDir ? PRIVATE_DIR_MODE : PRIVATE_FILE_MODE)) {
        result.changed++;
      }
    } catch (err) {
      result.failed.push({ path, error: err });
    }
    if (!isDir) return;
    try {
      for await (const entry of Deno.readDir(path)) {
        // readDir reports the entry itself (lstat), so a symlinked folder is never entered.
        if (entry.isSymlink) continue;
        if (entry.isDirectory || entry.isFile) {
          await visit(join(path, entry.name), entry.isDirectory);
        }
      }
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) result.failed.push({ path, error: err });
    }
  };
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(root);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return result;
    throw err;
  }
  if (info.isDirectory) await visit(root, true);
  return result;
}
