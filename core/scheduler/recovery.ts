// Startup recovery (spec 3.1 "running (orphan)"): a run the store still calls running was
// left by a previous outpost process. Three cases, decided per run:
//
//   - The child is alive (same PID and same process start identity): its whole group is
//     killed and the run is `killed`.
//   - The child is gone but left its outcome (report and session journal, left_outcome.ts):
//     that outcome is recorded as if the outpost had seen the exit (ok, error with its
//     retry, needs_human with its inbox item), with a reason saying the outpost was down.
//     The spec's table says `lost` here; docs/dashboard-api.md ("Startup recovery") records
//     the deviation: `lost` is kept for runs whose outcome is unknown.
//   - The child is gone and left no outcome: the run is `lost`.
//
// A killed or lost run was cut short by the outpost's own death, not by the job (or, in a
// fleet, by its node's lapsed lease: core/fleet/pg_fleet.ts settles those): it is
// retried as the next attempt when the job is enabled and has retries left (attempt <=
// max_retries), at once and without counting a failure; with none left it stays as it is.
// Schedules simply continue, and queued runs stay queued for the next admission pass.

import type { Job, Run } from "../store/store.ts";
import { nowIso, type SchedulerContext } from "./context.ts";
import { type LeftOutcome, readLeftOutcome } from "./left_outcome.ts";
import { recordOutcome } from "./outcomes.ts";

export interface RecoveryReport {
  killed: number[];
  lost: number[];
  /** Runs whose child finished while the outpost was down, recorded with its outcome. */
  finished: number[];
  /** The queued retries made for killed and lost runs (new run ids). */
  retried: number[];
}

export async function recoverOrphans(ctx: SchedulerContext): Promise<RecoveryReport> {
  const report: RecoveryReport = { killed: [], lost: [], finished: [], retried: [] };
  for (const run of ctx.store.runsWithStatus("running")) {
    // On a shared store only this node's own runs are its to recover (another node's PID
    // means nothing here); adopting one keeps the fleet's sweep off it meanwhile.
    if (!ctx.fleet.adopt(run.id)) continue;
    const alive = run.pid !== null && run.pid_start !== null &&
      ctx.processes.identity(run.pid) === run.pid_start;
    if (alive) ctx.processes.killGroup(run.pid!);
    const left = await readLeftOutcome(ctx.home, run);
    if (left.kind === "known") {
      await recordLeftOutcome(ctx, run, left, alive);
      report.finished.push(run.id);
      continue;
    }
    const status = alive ? "killed" : "lost";
    const cause = alive
      ? "outpost restarted while this run was going; its process group was killed"
      : "outpost restarted while this run was going; its process was already gone and it " +
        `left no outcome (${left.why})`;
    ctx.store.updateRun(run.id, { status, finished_at: nowIso(ctx), reason: cause });
    report[status].push(run.id);
    const retry = retryCutShort(ctx, run, cause);
    if (retry !== null) report.retried.push(retry);
  }
  if (report.killed.length + report.lost.length + report.finished.length > 0) {
    ctx.logger.log("warn", "recovered orphaned runs", { ...report });
  }
  return report;
}

/**
 * Records what a child left as if the outpost had seen it exit (outcomes.ts: ok, error with
 * its retry, needs_human with its inbox item), and says on the run how it was learned.
 */
async function recordLeftOutcome(
  ctx: SchedulerContext,
  run: Run,
  left: Extract<LeftOutcome, { kind: "known" }>,
  wasAlive: boolean,
): Promise<void> {
  await recordOutcome(ctx, run.id, {
    kind: "exited",
    code: left.exitCode,
    result: left.result,
    timedOut: false,
  });
  const done = ctx.store.getRun(run.id);
  if (!done) return; // its job was deleted meanwhile
  const how = wasAlive
    ? "the run had finished when the outpost restarted (its leftover process group was killed)"
    : "the outpost was down when this run's child finished";
  ctx.store.updateRun(run.id, {
    reason: `${done.reason ? `${done.reason}; ` : ""}${how}; ` +
      "outcome read from its report and session journal",
  });
}

/**
 * Queues the next attempt of a run the outpost's death cut short, when its job is enabled
 * and has retries left; returns the new run's id, or null (and says why on the run).
 */
export function retryCutShort(ctx: SchedulerContext, run: Run, cause: string): number | null {
  const job: Job | null = ctx.store.getJob(run.job_id);
  if (!job) return null;
  const note = (why: string) => ctx.store.updateRun(run.id, { reason: `${cause}; ${why}` });
  if (!job.enabled) {
    note("not retried: the job is disabled");
    return null;
  }
  if (run.attempt > job.max_retries) {
    note(`not retried: no retries left (attempt ${run.attempt}, max_retries ${job.max_retries})`);
    return null;
  }
  const retry = ctx.store.createRun({
    job_id: job.id,
    status: "queued",
    attempt: run.attempt + 1,
    not_before: nowIso(ctx),
    reason: `retry ${run.attempt} of ${job.max_retries}: the outpost stopped while attempt ` +
      `${run.attempt} was running (run ${run.id}); not counted as a failure`,
    priority: run.priority,
    class: run.class,
    resume_of_run: run.resume_of_run,
    answer: run.answer,
    slot: run.slot, // the fire it retries, if any (outside the unique index: attempt > 1)
  });
  note(`retried as run ${retry.id} (attempt ${retry.attempt})`);
  return retry.id;
}
