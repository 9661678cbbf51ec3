// Reading a file the agent finds in a workdir at set-up (AGENTS.md, the project settings, git's
// pointers for the memory workspace) or in the memory root. A workdir is the model's, so such a
// file may be a FIFO (opening one blocks until a writer comes: every later run would hang in
// set-up), a device or a directory. The rule: stat BEFORE opening; only a regular file is opened,
// and only its first `maxBytes` are read. After opening, the handle must still be the file that
// was checked (same device and inode), or the read is skipped as a swap. Anything skipped comes
// back with a reason for a one-line warning; only a missing file reads as absent, and any other
// failure (a refused permission) is thrown for the caller to name.

export type RegularFileRead =
  | { kind: "absent" }
  | { kind: "skipped"; why: string }
  | { kind: "read"; bytes: Uint8Array; size: number; truncated: boolean };

/** What a non-regular file is, for the warning ("is a FIFO, not a regular file"). */
function whatItIs(info: Deno.FileInfo): string {
  if (info.isDirectory) return "a directory";
  if (info.isFifo) return "a FIFO";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  return "not a regular file";
}

function isGone(err: unknown): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory;
}

/** The skip reason for `info`, or null when it is a regular file to read. */
function refusal(info: Deno.FileInfo): string | null {
  return info.isFile ? null : `is ${whatItIs(info)}, not a regular file`;
}

function sameFile(a: Deno.FileInfo, b: Deno.FileInfo): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

/** Reads at most `maxBytes` of regular file `path` (symlinks followed); never opens anything else. */
export function readRegularFileSync(path: string, maxBytes: number): RegularFileRead {
  let checked: Deno.FileInfo;
  try {
    checked = Deno.statSync(path);
  } catch (err) {
    if (isGone(err)) return { kind: "absent" };
    throw err;
  }
  const why = refusal(checked);
  if (why !== null) return { kind: "skipped", why };
  let file: Deno.FsFile;
  try {
    file = Deno.openSync(path, { read: true });
  } catch (err) {
    if (isGone(err)) return { kind: "absent" };
    throw err;
  }
  try {
    const opened = file.statSync();
    if (!opened.isFile || !sameFile(opened, checked)) {
      return { kind: "skipped", why: "changed while it was being opened" };
    }
    const bytes = new Uint8Array(Math.min(opened.size, maxBytes));
    let got = 0;
    while (got < bytes.length) {
      const n = file.readSync(bytes.subarray(got));
      if (n === null || n === 0) break;
      got += n;
    }
    return {
      kind: "read",
      bytes: bytes.subarray(0, got),
      size: opened.size,
      truncated: opened.size > maxBytes,
    };
  } finally {
    file.close();
  }
}
