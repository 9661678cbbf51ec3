// One due job at one tick (spec 3.1): single-flight, governor admission, and where the
// schedule goes next. A recurring job that cannot run records a `skipped` run with the
// reason and moves on to its next slot; an `at` one-shot that hits a lever is held as a
// queued run (next_run_at untouched) for the next admission pass.

import type { InFlight } from "../governor/governor.ts";
import type { Job, Run } from "../store/store.ts";
import type { SchedulerContext } from "./context.ts";
import { scheduleFailed } from "./jobs.ts";
import { nextRunAfterFire } from "./next_run.ts";
import { isoZ } from "../time.ts";

/** What one fire did; the scheduler acts on it once the tick's writes are committed. */
export type FireOutcome =
  | { kind: "start"; run: Run }
  | { kind: "skipped"; run: Run; reason: string }
  | { kind: "none" };

/** Enabled jobs due at `now`, most urgent first: priority (lower first), then slot, then id. */
export function dueInOrder(ctx: SchedulerContext, now: Date): Job[] {
  const due = ctx.store.dueJobs(isoZ(now));
  const prio = (j: Job) => ctx.governor.priorityFor(j.class, j.priority);
  return due.sort((a, b) =>
    prio(a) - prio(b) || a.next_run_at!.localeCompare(b.next_run_at!) || a.id - b.id
  );
}

/**
 * Fires one due job as one atomic step (the run row and the schedule's next slot land
 * together). `inFlight` counts runs occupying a slot, including ones admitted earlier in
 * this tick; an admitted run is added to it.
 */
export function fireJob(
  ctx: SchedulerContext,
  job: Job,
  now: Date,
  waiting: number | null,
  inFlight: InFlight,
): FireOutcome {
  return ctx.store.atomically(() => fireJobWrites(ctx, job, now, waiting, inFlight));
}

function fireJobWrites(
  ctx: SchedulerContext,
  job: Job,
  now: Date,
  waiting: number | null,
  inFlight: InFlight,
): FireOutcome {
  const { store, governor } = ctx;
  const slot = job.next_run_at!;
  let next: string | null;
  try {
    next = nextRunAfterFire(job.schedule, new Date(slot), now);
  } catch (err) {
    scheduleFailed(ctx, job, err);
    return { kind: "none" };
  }
  const base = {
    job_id: job.id,
    attempt: 1,
    priority: governor.priorityFor(job.class, job.priority),
    class: job.class,
  };
  const skip = (reason: string): FireOutcome => {
    const run = store.createRun({ ...base, status: "skipped", reason, finished_at: isoZ(now) });
    store.setNextRunAt(job.id, next);
    return { kind: "skipped", run, reason };
  };
  const isAt = job.schedule.kind === "at";
  const previous = store.inFlightRun(job.id);
  if (previous) {
    // A held `at` fire is already queued for this slot; admission retries it.
    if (isAt && previous.status === "queued" && previous.queued_at >= slot) return { kind: "none" };
    return skip(`previous run ${previous.id} still ${previous.status} (single-flight)`);
  }
  const admission = governor.admit(job.class, inFlight, waiting);
  if (!admission.ok) {
    if (!isAt) return skip(`governor: ${admission.reason}`);
    store.createRun({ ...base, status: "queued", reason: `held: ${admission.reason}` });
    return { kind: "none" };
  }
  const run = store.createRun({ ...base, status: "queued" });
  store.setNextRunAt(job.id, next);
  inFlight[job.class]++;
  return { kind: "start", run };
}
