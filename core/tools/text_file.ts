// Reading and writing workspace text files for the file tools without damaging what they do
// not understand: the edit tools refuse bytes that are not UTF-8 instead of writing them back
// as U+FFFD, and every rewrite keeps the file's permission bits (the atomic rename would
// otherwise leave an edited script without its executable bit).

import { writeFileAtomic } from "../atomic_write.ts";
import { displayPath } from "./workspace_path.ts";
import { ToolInputError } from "./text_edit.ts";

/** A file read for editing: its text and the permission bits to write it back with. */
export interface EditableText {
  text: string;
  mode: number | undefined;
}

/** How many leading bytes are checked for a NUL when deciding a file is binary. */
const BINARY_SNIFF_BYTES = 8000;

/** Reads an existing UTF-8 file for an edit; refuses missing, directory and non-UTF-8 files. */
export async function readEditableText(path: string, workdir: string): Promise<EditableText> {
  const shown = displayPath(workdir, path);
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    throw new ToolInputError(`no such file: ${shown} (use create for new files)`);
  }
  if (info.isDirectory) throw new ToolInputError(`${shown} is a directory, not a file`);
  // A FIFO or device would block the read forever.
  if (!info.isFile) throw new ToolInputError(`${shown} is not a regular file`);
  const bytes = await Deno.readFile(path);
  let text: string;
  try {
    // ignoreBOM keeps a byte-order mark in the text, so it is written back too.
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new ToolInputError(
      `${shown} is not UTF-8 text (binary or another encoding); edit it with the shell tool`,
    );
  }
  return { text, mode: permissionBits(info) };
}

/** The permission bits of an existing file, or undefined when there is none. */
export async function existingMode(path: string): Promise<number | undefined> {
  try {
    return permissionBits(await Deno.stat(path));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return undefined;
    throw err;
  }
}

/** Atomically writes `text`, giving the file `mode` when one is known. */
export async function writeText(
  path: string,
  text: string,
  mode: number | undefined,
  createDirs = false,
): Promise<void> {
  await writeFileAtomic(path, text, {
    ...(mode === undefined ? {} : { mode }),
    ...(createDirs ? { createDirs } : {}),
  });
}

/** True when the bytes look binary: a NUL among the first few thousand. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

function permissionBits(info: Deno.FileInfo): number | undefined {
  return info.mode === null ? undefined : info.mode & 0o7777;
}
