// Startup recovery (spec 3.1 "running (orphan)"): a run the store still calls running was
// left by a previous outpost process. If its child is alive (same PID and same process
// start identity) the whole group is killed and the run is `killed`; if it is gone the run
// is `lost`. Neither is retried or counted as a failure; schedules simply continue, and
// queued runs stay queued for the next admission pass.

import type { Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import type { Store } from "../store/store.ts";
import type { Fleet } from "./fleet.ts";
import type { ProcessTable } from "./proc.ts";
import { isoZ } from "../time.ts";

export interface RecoveryReport {
  killed: number[];
  lost: number[];
}

export function recoverOrphans(deps: {
  store: Store;
  clock: Clock;
  processes: ProcessTable;
  logger: Logger;
  /** On a shared store, only this node's runs are its to recover (others' PIDs mean nothing). */
  fleet?: Fleet;
}): RecoveryReport {
  const report: RecoveryReport = { killed: [], lost: [] };
  const now = isoZ(deps.clock.now());
  for (const run of deps.store.runsWithStatus("running")) {
    if (deps.fleet && !deps.fleet.startedHere(run.id)) continue;
    const alive = run.pid !== null && run.pid_start !== null &&
      deps.processes.identity(run.pid) === run.pid_start;
    if (alive) {
      deps.processes.killGroup(run.pid!);
      deps.store.updateRun(run.id, {
        status: "killed",
        finished_at: now,
        reason: "outpost restarted while this run was going; its process group was killed",
      });
      report.killed.push(run.id);
    } else {
      deps.store.updateRun(run.id, {
        status: "lost",
        finished_at: now,
        reason: "outpost restarted while this run was going; its process was already gone",
      });
      report.lost.push(run.id);
    }
  }
  if (report.killed.length + report.lost.length > 0) {
    deps.logger.log("warn", "recovered orphaned runs", { ...report });
  }
  return report;
}
