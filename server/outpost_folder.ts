// The outpost's own folder (<home>/outpost: the database, reports, delivery.jsonl,
// governor.json) made owner-only at start, whatever an older version left there.

import { join } from "node:path";
import { errorText, type Logger } from "../core/logger.ts";
import { tightenTree } from "../core/private_files.ts";

/**
 * An install made by an older version has 0644 files in 0755 folders under <home>/outpost
 * (the database, reports, delivery.jsonl, governor.json): everything there becomes 0600 in
 * 0700 folders before anything is opened. Symlinks a run left are not followed. A file that
 * cannot be changed (another owner) is logged, and does not stop the outpost.
 */
export async function tightenOutpostFolder(home: string, logger: Logger): Promise<void> {
  const { changed, failed } = await tightenTree(join(home, "outpost"));
  if (changed > 0) {
    logger.log("info", "made the outpost's files owner-only (0600, folders 0700)", { changed });
  }
  for (const { path, error } of failed.slice(0, 10)) {
    logger.log("warn", "could not make an outpost file owner-only", {
      path,
      error: errorText(error),
    });
  }
  if (failed.length > 10) {
    logger.log("warn", "more outpost files could not be made owner-only", {
      count: failed.length - 10,
    });
  }
}
