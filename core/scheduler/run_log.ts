// A run's process log (the child's stderr, <report>.md's sibling .log): bounded reads for the
// runner (the session a child named before it died) and the run page (the end of a failed
// run's log, a running run's progress). The child can replace its log like its report, so
// every read goes through openRegularFile: a symlink or a FIFO there is not read. The lines
// themselves are run_log_lines.ts.

import { stripVTControlCharacters } from "node:util";
import { openRegularFile, readRange } from "./report_reader.ts";

export {
  isProtocolLine,
  progressFromLog,
  progressLine,
  type RunProgress,
  sessionIdFromLog,
  sessionLine,
} from "./run_log_lines.ts";

export interface LogRead {
  /** The bytes read, decoded, with terminal colour codes removed. */
  text: string;
  /** The whole file's size. */
  size: number;
  /** True when `text` is only part of the file. */
  cut: boolean;
}

/**
 * Up to `maxBytes` of the log at `path`, from its start (`from: "head"`) or its end; null
 * when there is no log or it is not a regular file. Other errors are thrown.
 */
export async function readRunLog(
  path: string,
  maxBytes: number,
  from: "head" | "tail",
): Promise<LogRead | null> {
  let opened;
  try {
    opened = await openRegularFile(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  if (!("handle" in opened)) return null;
  const { handle, size } = opened;
  const start = from === "head" ? 0 : Math.max(0, size - maxBytes);
  let bytes: Uint8Array;
  try {
    bytes = await readRange(handle, start, Math.min(size, maxBytes));
  } finally {
    await handle.close();
  }
  const text = stripVTControlCharacters(new TextDecoder().decode(bytes));
  return { text, size, cut: bytes.length < size };
}
