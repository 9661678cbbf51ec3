// What a running run has done so far, for the live rows of /runs and /jobs/<id>: the current
// tool and the tokens so far, read from the progress lines at the end of its process log
// (core/scheduler/run_log.ts). Only the page's running runs are read, each log's last 8 KiB,
// confined to the runs folder like the report.

import { errorText } from "../../core/logger.ts";
import { confineRunFile } from "../../core/scheduler/report_reader.ts";
import { progressFromLog, readRunLog, type RunProgress } from "../../core/scheduler/run_log.ts";
import type { Run } from "../../core/store/store.ts";
import type { AppDeps } from "../deps.ts";

const PROGRESS_TAIL_BYTES = 8 * 1024;

/** Progress of each running run of `runs` whose log says anything, by run id. */
export async function runProgress(
  deps: Pick<AppDeps, "home" | "logger">,
  runs: readonly Run[],
): Promise<Map<number, RunProgress>> {
  const out = new Map<number, RunProgress>();
  await Promise.all(
    runs.filter((r) => r.status === "running" && r.report_path).map(async (r) => {
      try {
        const log = r.report_path!.replace(/\.md$/, ".log");
        const confined = await confineRunFile(deps.home, log, ".log");
        if (confined.kind !== "ok") return;
        const read = await readRunLog(confined.path, PROGRESS_TAIL_BYTES, "tail");
        if (read) out.set(r.id, progressFromLog(read.text));
      } catch (err) {
        // A row without progress still shows the run; the operator sees why in the outpost log.
        deps.logger.log("warn", "run progress could not be read", {
          run_id: r.id,
          error: errorText(err),
        });
      }
    }),
  );
  return out;
}
