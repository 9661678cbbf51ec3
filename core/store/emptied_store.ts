// Refuses to open an emptied store. A zero-byte outpost.db (a disk that filled during a
// write, a botched restore, a truncating copy) opened as a brand-new empty store: the
// outpost started silently with no jobs and no history while runs/ still held the run
// folders of everything it had done (issue 37). An empty database file with run history
// beside it is a lost database, not a first start, so the outpost stops with one line that
// says how to restore, or how to start fresh on purpose (remove the empty file). A missing
// database file is a first start (or that deliberate fresh start) and is not refused.

import { basename } from "../path.ts";

export class EmptiedStoreError extends Error {
  override readonly name = "EmptiedStoreError";
}

/**
 * Throws EmptiedStoreError when `dbPath` is an empty file and `runsRoot` holds at least one
 * entry. Any other state (no file, a non-empty file, no run folders) passes; an error other
 * than "not found" while looking is thrown as it is, never taken for "empty".
 */
export async function refuseEmptiedStore(dbPath: string, runsRoot: string): Promise<void> {
  let size: number;
  try {
    size = (await Deno.stat(dbPath)).size;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return;
    throw err;
  }
  if (size !== 0) return;
  const folders = await countEntries(runsRoot);
  if (folders === 0) return;
  throw new EmptiedStoreError(
    `${dbPath} is empty (0 bytes) but ${runsRoot} holds ${folders} run folder(s): the job ` +
      `store is lost, so the outpost will not start on an empty one. Restore ` +
      `${basename(dbPath)} (with its -wal file, if kept) from a backup, or delete the empty ` +
      `file to start fresh on purpose (the run folders stay on disk)`,
  );
}

async function countEntries(dir: string): Promise<number> {
  let n = 0;
  try {
    for await (const _ of Deno.readDir(dir)) n++;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return 0;
    throw err;
  }
  return n;
}
