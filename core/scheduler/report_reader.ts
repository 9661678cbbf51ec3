// The one reader of run reports (<home>/outpost/runs/<job>/<timestamp>.md). Every place that
// shows or sends a report — the report API of both doors, the run page, the chat delivery of
// run_report — reads it through `readReport`, because the file is written by the run itself:
// a run (or a tampered store row) must not turn a report view into a reader of other files,
// nor hang the outpost.
//
// Guards, in order:
//   1. The recorded path must lie lexically under <home>/outpost/runs/ and end in `.md`.
//   2. The folders between the runs root and the file must not be symlinks: the real path of
//      the report's folder must be the real runs root plus the same relative part.
//   3. lstat of the file: a symlink or anything but a regular file (FIFO, socket, device,
//      folder) is refused before it is ever opened. This alone keeps the common case (a run
//      that left a symlink or a FIFO behind) from reaching open().
//   4. open() with O_NOFOLLOW | O_NONBLOCK. The file can be swapped between the lstat and the
//      open: O_NOFOLLOW makes a swapped-in symlink fail with ELOOP, and O_NONBLOCK makes a
//      swapped-in FIFO open at once instead of waiting for a writer (a blocking open would
//      hang the request and pin a thread-pool worker for good). O_NONBLOCK changes nothing
//      for a regular file's reads.
//   5. fstat of the opened descriptor must say "regular file", and its device and inode must
//      be those of the path checked in step 3 — what is read is what was checked.
//   6. At most `maxBytes` are read; a larger file is cut (or refused, for callers that must
//      not serve a partial report), never read whole into memory.
// Everything is asynchronous: nothing here blocks the event loop.
//
// Residual: a folder swapped for a symlink between step 2 and step 4 is not caught (Deno has
// no openat); step 5 still requires a regular file, and the swap needs a race against the
// outpost's own read.

import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { basename, dirname, join, relative, resolve, sep } from "../path.ts";

/** The outcome of reading a report. Errors other than these (EACCES, EIO) are thrown. */
export type ReportRead =
  /** The text (at most maxBytes of it); `cut` when the file is larger, `size` its full size. */
  | { kind: "text"; text: string; size: number; cut: boolean; path: string }
  /** No report: none recorded, or the file is not there. */
  | { kind: "absent"; why: string }
  /** A file is there but is not shown: outside the runs folder, a symlink, not regular. */
  | { kind: "refused"; why: string }
  /** Larger than maxBytes, with `oversize: "refuse"`. */
  | { kind: "too_large"; size: number; path: string };

export interface ReadReportOptions {
  /** The agent home; reports must lie under <home>/outpost/runs/. */
  home: string;
  /** The run's recorded report_path. */
  path: string | null;
  maxBytes: number;
  /** "cut" (default): return the first maxBytes; "refuse": answer too_large. */
  oversize?: "cut" | "refuse";
}

/** The runs root of a home: <home>/outpost/runs. */
export function runsRoot(home: string): string {
  return resolve(join(home, "outpost", "runs"));
}

/**
 * Guards 1 and 2 for a file a run wrote under the runs folder (its report, or the `.log`
 * beside it): the path under which it may be opened (the real folder plus its name), or why
 * not. Retention uses it too before it removes a deleted run's files.
 */
export async function confineRunFile(
  home: string,
  recorded: string,
  ext: ".md" | ".log" = ".md",
): Promise<{ kind: "ok"; path: string } | { kind: "absent" | "refused"; why: string }> {
  const root = runsRoot(home);
  const path = resolve(recorded);
  const what = ext === ".md" ? "report" : "log";
  if (!path.startsWith(root + sep) || !path.endsWith(ext)) {
    return { kind: "refused", why: `the recorded ${what} path is outside the runs folder` };
  }
  const folder = dirname(path);
  let realFolder: string;
  let realRoot: string;
  try {
    [realRoot, realFolder] = await Promise.all([Deno.realPath(root), Deno.realPath(folder)]);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { kind: "absent", why: "the file is gone" };
    throw err;
  }
  const rel = relative(root, folder);
  if (realFolder !== (rel === "" ? realRoot : join(realRoot, rel))) {
    return { kind: "refused", why: `a folder on the ${what}'s path is a symlink` };
  }
  return { kind: "ok", path: join(realFolder, basename(path)) };
}

export async function readReport(options: ReadReportOptions): Promise<ReportRead> {
  if (!options.path) return { kind: "absent", why: "no report was recorded" };
  const path = resolve(options.path);
  const confined = await confineRunFile(options.home, path);
  if (confined.kind !== "ok") return confined;
  const opened = await openRegularFile(confined.path);
  if (!("handle" in opened)) return opened;
  const { handle, size } = opened;
  try {
    if (size > options.maxBytes && options.oversize === "refuse") {
      return { kind: "too_large", size, path };
    }
    const bytes = await readRange(handle, 0, Math.min(size, options.maxBytes));
    const cut = size > options.maxBytes;
    let text = new TextDecoder().decode(bytes);
    // A cut can land inside a multi-byte character; drop its replacement characters.
    if (cut) text = text.replace(/\uFFFD+$/, "");
    return { kind: "text", text, size, cut, path };
  } finally {
    await handle.close();
  }
}

/**
 * Up to `length` bytes of an opened file from offset `start`: fewer when the file shrank
 * meanwhile (a run may still be writing or replacing it).
 */
export async function readRange(
  handle: FileHandle,
  start: number,
  length: number,
): Promise<Uint8Array> {
  const bytes = new Uint8Array(length);
  let off = 0;
  while (off < length) {
    const { bytesRead } = await handle.read(bytes, off, length - off, start + off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return bytes.subarray(0, off);
}

/** A regular file opened for reading, with its size; or why it was not opened. */
export type OpenedFile =
  | { handle: FileHandle; size: number }
  | { kind: "absent"; why: string }
  | { kind: "refused"; why: string };

/**
 * Steps 3 to 5 above for any file a run could have replaced (its report, its log): refuses
 * a symlink or anything but a regular file without blocking, and checks the descriptor it
 * opened. The caller closes the handle.
 */
export async function openRegularFile(path: string): Promise<OpenedFile> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return { kind: "absent", why: "the file is gone" };
    throw err;
  }
  if (info.isSymlink) return { kind: "refused", why: "the report file is a symlink" };
  if (!info.isFile) return { kind: "refused", why: "the report is not a regular file" };
  let handle: FileHandle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === "ELOOP") return { kind: "refused", why: "the report file is a symlink" };
    if (code === "ENOENT") return { kind: "absent", why: "the file is gone" };
    throw err;
  }
  try {
    const opened = await handle.stat();
    let why: string | null = null;
    if (!opened.isFile()) why = "the report is not a regular file";
    else if (opened.dev !== info.dev || opened.ino !== info.ino) {
      why = "the report file was replaced while it was being read";
    }
    if (why === null) return { handle, size: opened.size };
    await handle.close();
    return { kind: "refused", why };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** The line shown under a cut report. */
export function cutNote(read: { size: number; path: string }, maxBytes: number): string {
  return `The report is ${read.size} bytes; only the first ${maxBytes} are shown. ` +
    `The whole file is on the outpost host at ${read.path}.`;
}
