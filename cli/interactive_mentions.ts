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
import { readRegularFileSync } from "../core/regular_file.ts";

export const MAX_FILE_BYTES = 100_000;
const MAX_FILES = 10;

export interface Attached {
  /** The message with the attached files' blocks after it. */
  text: string;
  /** One line per mention acted on, for the screen. */
  notes: string[];
}

export function attachMentions(message: string, workdir: string): Attached {
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
    if (seen.has(abs)) continue;
    // Only a regular file is opened (a FIFO the model left in the workdir would hang the
    // session); anything else is left as typed, like an @handle.
    const read = readRegularFileSync(abs, MAX_FILE_BYTES);
    if (read.kind !== "read") continue;
    seen.add(abs);
    if (blocks.length >= MAX_FILES) {
      notes.push(`@${raw} not attached: at most ${MAX_FILES} files per message`);
      continue;
    }
    const block = fileBlock(read, displayPath(workdir, abs));
    notes.push(block.note);
    if (block.text) blocks.push(block.text);
  }
  if (blocks.length === 0) return { text: message, notes };
  return { text: `${message}\n\n${blocks.join("\n\n")}`, notes };
}

function fileBlock(
  { bytes, size }: { bytes: Uint8Array; size: number },
  shown: string,
): { text?: string; note: string } {
  if (looksBinary(bytes)) return { note: `@${shown} not attached: a binary file` };
  const cut = size > bytes.length;
  const content = new TextDecoder().decode(bytes);
  const tail = cut ? `\n[cut: the first ${bytes.length} of ${size} bytes]` : "";
  return {
    text: `<file path="${shown.replace(/"/g, "&quot;")}">\n${content}${tail}\n</file>`,
    note: `attached @${shown} (${cut ? `first ${bytes.length} of ${size}` : size} bytes)`,
  };
}
