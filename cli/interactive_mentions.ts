// `@path` in a message attaches that workspace file: its content follows the message in a
// `<file path="…">` block, so the model need not spend a tool call to read it. Paths go through
// the file tools' one confinement rule (resolveInWorkspace); a mention that is not a file in
// the workspace stays plain text. Bounded: each file to MAX_FILE_BYTES, at most MAX_FILES;
// what is cut or skipped is said in a note to the user and in the block itself.

import {
  displayPath,
  resolveInWorkspace,
  WorkspacePathError,
} from "../core/tools/workspace_path.ts";
import { looksBinary } from "../core/tools/text_file.ts";

export const MAX_FILE_BYTES = 100_000;
const MAX_FILES = 10;

export interface Attached {
  /** The message with the attached files' blocks after it. */
  text: string;
  /** One line per mention acted on, for the screen. */
  notes: string[];
}

export async function attachMentions(message: string, workdir: string): Promise<Attached> {
  const notes: string[] = [];
  const blocks: string[] = [];
  const seen = new Set<string>();
  for (const match of message.matchAll(/(?:^|\s)@([^\s]+)/g)) {
    const raw = match[1]!.replace(/[.,;:!?)]+$/, "");
    let abs: string;
    try {
      abs = resolveInWorkspace(workdir, raw);
    } catch (err) {
      if (err instanceof WorkspacePathError) {
        notes.push(`@${raw} not attached: ${err.reason}`);
        continue;
      }
      throw err;
    }
    if (seen.has(abs) || !(await isFile(abs))) continue;
    seen.add(abs);
    if (blocks.length >= MAX_FILES) {
      notes.push(`@${raw} not attached: at most ${MAX_FILES} files per message`);
      continue;
    }
    const block = await fileBlock(abs, displayPath(workdir, abs));
    notes.push(block.note);
    if (block.text) blocks.push(block.text);
  }
  if (blocks.length === 0) return { text: message, notes };
  return { text: `${message}\n\n${blocks.join("\n\n")}`, notes };
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

async function fileBlock(abs: string, shown: string): Promise<{ text?: string; note: string }> {
  const file = await Deno.open(abs, { read: true });
  let bytes: Uint8Array;
  let size: number;
  try {
    size = (await file.stat()).size;
    bytes = new Uint8Array(Math.min(size, MAX_FILE_BYTES));
    let read = 0;
    while (read < bytes.length) {
      const n = await file.read(bytes.subarray(read));
      if (n === null) break;
      read += n;
    }
    bytes = bytes.subarray(0, read);
  } finally {
    file.close();
  }
  if (looksBinary(bytes)) return { note: `@${shown} not attached: a binary file` };
  const cut = size > bytes.length;
  const content = new TextDecoder().decode(bytes);
  const tail = cut ? `\n[cut: the first ${bytes.length} of ${size} bytes]` : "";
  return {
    text: `<file path="${shown.replace(/"/g, "&quot;")}">\n${content}${tail}\n</file>`,
    note: `attached @${shown} (${cut ? `first ${bytes.length} of ${size}` : size} bytes)`,
  };
}
