// One due job at one tick (spec 3.1): single-flight, governor admission, and where the
// schedule goes next. A recurring job that cannot run records a `skipped` run with the
// reason and moves on to its next slot; an `at` one-shot that hits a lever is held as a
// queued run (next_run_at untouched) for the next admission pass.

import type { InFlight } from "../governor/governor.ts";
import type { Job, Run } from "../store/store.ts";
import type { SchedulerContext } from "./context.ts";
import { scheduleFailed } from "./jobs.ts";
import { nextRunAfterFire } from "./next_run.ts";
import { isoZ } from "./schedule.ts";

export interface FireHooks {
  /** Runs occupying a slot right now. */
  inFlight(): InFlight;
  /** Starts an admitted run. */
  start(run: Run): void;
  skipped(run: Run, reason: string): void;
}

/** Enabled jobs due at `now`, most urgent first: priority (lower first), then slot, then id. */
export function dueInOrder(ctx: SchedulerContext, now: Date): Job[] {
  const due = ctx.store.dueJobs(isoZ(now));
  const prio = (j: Job) => ctx.governor.priorityFor(j.class, j.priority);
  return due.sort((a, b) =>
    prio(a) - prio(b) || a.next_run_at!.localeCompare(b.next_run_at!) || a.id - b.id
  );
}

export function fireJob(
  ctx: SchedulerContext,
  job: Job,
  now: Date,
  waiting: number | null,
  hooks: FireHooks,
): void {
  const { store, governor } = ctx;
  const slot = job.next_run_at!;
  let next: string | null;
  try {
    next = nextRunAfterFire(job.schedule, new Date(slot), now);
  } catch (err) {
    scheduleFailed(ctx, job, err);
    return;
  }
  const base = {
    job_id: job.id,
    attempt: 1,
    priority: governor.priorityFor(job.class, job.priority),
    class: job.class,
  };
  const skip = (reason: string) => {
    const run = store.createRun({ ...base, status: "skipped", reason, finished_at: isoZ(now) });
    store.setNextRunAt(job.id, next);
    hooks.skipped(run, reason);
  };
  const isAt = job.schedule.kind === "at";
  const inFlight = store.inFlightRun(job.id);
  if (inFlight) {
    // A held `at` fire is already queued for this slot; admission retries it.
    if (isAt && inFlight.status === "queued" && inFlight.queued_at >= slot) return;
    skip(`previous run ${inFlight.id} still ${inFlight.status} (single-flight)`);
    return;
  }
  const admission = governor.admit(job.class, hooks.inFlight(), waiting);
  if (!admission.ok) {
    if (isAt) {
      store.createRun({ ...base, status: "queued", reason: `held: ${admission.reason}` });
    } else {
      skip(`governor: ${admission.reason}`);
    }
    return;
  }
  const run = store.createRun({ ...base, status: "queued" });
  store.setNextRunAt(job.id, next);
  hooks.start(run);
}
