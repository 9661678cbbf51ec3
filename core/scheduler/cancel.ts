// The one cancel core behind the dashboard's cancel route, the machine door's
// POST /api/v1/jobs/<id>/cancel and the chat `stop` verb (spec 3.1, 4.5):
// - a running run: its process group is SIGKILLed and the run is recorded `cancelled`
//   (no soft cancel, no retry, no failure counted);
// - a queued run (waiting, held, or in retry backoff): recorded `cancelled` and the job is
//   disabled (re-enable to resume its schedule);
// - idempotent: when the job's last attempt (its newest run that is not a skip row) was
//   cancelled, the original cancelled_at is echoed, however many skip rows came after it;
// - nothing in flight: a distinct result (routes answer 409, chat replies "already finished").
// The job's schedule (expr, next_run_at) is never changed.

import type { Clock } from "../ports.ts";
import { NotFoundError } from "../store/errors.ts";
import type { Run, Store } from "../store/store.ts";
import { isoZ } from "../time.ts";

export type CancelResult =
  | {
    status: "cancelled";
    job_id: number;
    run_id: number;
    cancelled_at: string;
    /** What the run was doing when cancelled. */
    was: "queued" | "running";
    /** True when this call found the run already cancelled and echoed it. */
    repeated: boolean;
  }
  | { status: "nothing_in_flight"; job_id: number };

export interface CancelDeps {
  store: Store;
  clock: Clock;
  /** SIGKILLs the run's process group (live handle, or pid + start identity). */
  killRun(run: Run): void;
}

/** Throws NotFoundError for an unknown job. */
export function cancelJob(deps: CancelDeps, jobId: number): CancelResult {
  const { store } = deps;
  if (!store.getJob(jobId)) throw new NotFoundError("job", jobId);
  const run = store.inFlightRun(jobId);
  if (!run) {
    // Skip rows record fires that never ran, so they do not end the "already cancelled"
    // answer; a run that was actually queued after the cancel does.
    const latest = store.latestAttempt(jobId);
    if (latest?.status === "cancelled" && latest.cancelled_at) {
      return {
        status: "cancelled",
        job_id: jobId,
        run_id: latest.id,
        cancelled_at: latest.cancelled_at,
        was: latest.started_at ? "running" : "queued",
        repeated: true,
      };
    }
    return { status: "nothing_in_flight", job_id: jobId };
  }
  const now = isoZ(deps.clock.now());
  const was = run.status === "running" ? "running" : "queued";
  store.updateRun(run.id, {
    status: "cancelled",
    cancelled_at: now,
    finished_at: now,
    reason: was === "running" ? "cancelled: process group killed" : "cancelled while queued",
    // A fire that never started gives its slot back (migration 011): re-enabling an `at` job
    // fires that slot again.
    ...(was === "queued" ? { slot: null } : {}),
  });
  if (was === "running") {
    deps.killRun(run);
  } else {
    store.updateJob(jobId, {
      enabled: false,
      disabled_reason: "cancelled while queued; re-enable to resume the schedule",
    });
  }
  return {
    status: "cancelled",
    job_id: jobId,
    run_id: run.id,
    cancelled_at: now,
    was,
    repeated: false,
  };
}
