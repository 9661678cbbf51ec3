// Held originals (gate.ts: <home>/outpost/held/<item id>.json) live only as long as their
// open inbox item. Release and drop delete theirs; this sweep removes the rest: originals of
// items the history retention deleted with their one-shot job (inbox items cascade), of items
// closed some other way, and temporary files a crash left between write and rename. It runs
// with the daily retention sweep (server/retention_sweeper.ts).

import { errorText } from "../logger.ts";
import type { Store } from "../store/store.ts";
import { heldDir } from "./gate.ts";

/** A temporary original younger than this may still be on its way to its item. */
const PENDING_GRACE_MS = 60 * 60 * 1000;

export interface HeldPruneReport {
  removed: number;
  /** Files that could not be removed, with why. */
  failed: string[];
}

export async function pruneHeldOriginals(
  store: Pick<Store, "getInboxItem">,
  home: string,
  now: Date,
): Promise<HeldPruneReport> {
  const report: HeldPruneReport = { removed: 0, failed: [] };
  const dir = heldDir(home);
  let entries: Deno.DirEntry[];
  try {
    entries = [...Deno.readDirSync(dir)];
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return report; // nothing was ever held
    throw err;
  }
  for (const e of entries) {
    const path = `${dir}/${e.name}`;
    const id = /^(\d+)\.json$/.exec(e.name)?.[1];
    let stale: boolean;
    if (id !== undefined) {
      stale = store.getInboxItem(Number(id))?.state !== "open";
    } else if (e.name.startsWith(".pending-")) {
      const mtime = Deno.lstatSync(path).mtime?.getTime() ?? 0;
      stale = now.getTime() - mtime > PENDING_GRACE_MS;
    } else {
      continue; // not ours
    }
    if (!stale) continue;
    try {
      await Deno.remove(path);
      report.removed++;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) {
        report.failed.push(`${e.name}: ${errorText(err)}`);
      }
    }
  }
  return report;
}
