// One tick's due jobs (spec 3.1): single-flight, governor admission, and where each
// schedule goes next. A recurring job that cannot run records a `skipped` run with the
// reason and moves on to its next slot; an `at` one-shot that hits a lever is held as a
// queued run (next_run_at untouched) for the next admission pass.
//
// A tick first decides every due job (reads only), then writes all the fire records in one
// multi-row insert: a busy tick blocks dozens of jobs at once, and their skip rows were
// most of the 30-day simulation's time when each was its own insert and savepoint.
//
// On a shared store (docs/fleet.md) a tick fires in bounded batches, each a transaction on
// rows: its due jobs are locked FOR UPDATE SKIP LOCKED, so nodes ticking at once fire disjoint
// jobs side by side, and a job another node is firing is skipped, not waited for.

import type { InFlight } from "../governor/governor.ts";
import { isDuplicateFire } from "../store/errors.ts";
import type { DueCursor, Job, NewRun, Run, Store } from "../store/store.ts";
import type { SchedulerContext } from "./context.ts";
import { FLEET_DEFER_MS, SINGLE_BOX } from "./fleet.ts";
import { scheduleFailed } from "./jobs.ts";
import { nextRunAfterFire } from "./next_run.ts";
import { errorText } from "../logger.ts";
import { isoZ } from "../time.ts";

/** What one fire did; the scheduler acts on it once the tick's writes are committed. */
export type FireOutcome =
  | { kind: "start"; run: Run }
  | { kind: "skipped"; run: Run; reason: string }
  | { kind: "none" };

/** Due jobs a fleet's tick locks per transaction: short locks, and other nodes take the rest. */
export const FIRE_BATCH = 200;

/** Enabled jobs due at `now`, most urgent first: priority (lower first), then slot, then id. */
export function dueInOrder(ctx: SchedulerContext, now: Date): Job[] {
  return byUrgency(ctx, ctx.store.dueJobs(isoZ(now)));
}

function byUrgency(ctx: SchedulerContext, due: Job[]): Job[] {
  const prio = (j: Job) => ctx.governor.priorityFor(j.class, j.priority);
  return due.sort((a, b) =>
    prio(a) - prio(b) || a.next_run_at!.localeCompare(b.next_run_at!) || a.id - b.id
  );
}

/**
 * Fires every job due at `now` and hands each committed transaction's outcomes to `act`
 * (runs start only after their commit, so nothing starts that the store did not keep).
 * A single box fires the whole tick in one transaction. A fleet fires batches of FIRE_BATCH
 * in (slot, id) order, each a transaction on rows that locks its jobs and skips those another
 * node holds (Store.lockDueJobs); most-urgent-first then holds within a batch.
 */
export function fireTick(
  ctx: SchedulerContext,
  now: Date,
  waiting: number | null,
  inFlight: InFlight,
  act: (outcomes: FireOutcome[]) => void,
): void {
  const { store } = ctx;
  // Each run of a transaction counts its admissions on a fresh copy, kept once it committed:
  // a shared store runs a transaction again after a lost session (Store.atomically), and
  // the lost attempt's admissions must not count.
  let counted: InFlight = inFlight;
  const fire = (due: readonly Job[]) => {
    counted = { ...inFlight };
    return fireDueJobs(ctx, due, now, waiting, counted);
  };
  if (ctx.fleet === SINGLE_BOX) {
    const due = dueInOrder(ctx, now);
    if (due.length === 0) return;
    const outcomes = store.atomically(() => fire(due));
    Object.assign(inFlight, counted);
    act(outcomes);
    return;
  }
  let after: DueCursor | null = null;
  for (;;) {
    let batch: Job[] = [];
    const outcomes = store.atomicallyOnRows(() => {
      batch = store.lockDueJobs(isoZ(now), FIRE_BATCH, after);
      return fire(byUrgency(ctx, [...batch]));
    });
    Object.assign(inFlight, counted);
    act(outcomes);
    if (batch.length < FIRE_BATCH) return;
    const last = batch[batch.length - 1]!;
    after = { next_run_at: last.next_run_at!, id: last.id };
  }
}

/** One job's decision: the run row to write and the next slot (undefined: leave it). */
interface FirePlan {
  job: Job;
  kind: "start" | "skipped" | "held";
  row: NewRun;
  next: string | null | undefined;
  reason?: string;
}

/**
 * Fires the due jobs of one tick, in order, inside the caller's transaction. `inFlight`
 * counts runs occupying a slot, including ones admitted earlier in this tick; each admitted
 * run is added to it. A job whose fire fails is logged and rolled back alone (a savepoint
 * of its own); the others fire.
 */
export function fireDueJobs(
  ctx: SchedulerContext,
  due: readonly Job[],
  now: Date,
  waiting: number | null,
  inFlight: InFlight,
): FireOutcome[] {
  const { store } = ctx;
  // Decisions read the job's own runs and the governor, never another job's fire record,
  // so deciding all before writing any gives the same answers as firing one by one.
  const plans: FirePlan[] = [];
  for (const job of due) {
    try {
      const plan = planFire(ctx, job, now, waiting, inFlight);
      if (plan) plans.push(plan);
    } catch (err) {
      fireFailed(ctx, job, err);
    }
  }
  if (plans.length === 0) return [];
  // In a fleet, queued rows (starts, held one-shots) are written before skip rows: every run
  // write locks its hour's rollup rows, and a run leaving `queued` elsewhere locks the queued
  // row first, so both taking it first keeps the two from deadlocking (core/store/README.md).
  if (ctx.fleet !== SINGLE_BOX) plans.sort((a, b) => skipLast(a) - skipLast(b));
  try {
    return store.atomically(() => writePlans(store, plans));
  } catch {
    // Something in the batch failed: write job by job, so only the failing job is rolled
    // back (its slot stays due for the next tick) and the error is logged against it.
    // Runs admitted for it in the decisions above are not handed back to this tick.
    return plans.flatMap((plan) => {
      try {
        return store.atomically(() => writePlans(store, [plan]));
      } catch (err) {
        if (isDuplicateFire(err)) slotAlreadyFired(ctx, plan);
        else fireFailed(ctx, plan.job, err);
        return [];
      }
    });
  }
}

const skipLast = (plan: FirePlan) => plan.kind === "skipped" ? 1 : 0;

function fireFailed(ctx: SchedulerContext, job: Job, err: unknown): void {
  ctx.logger.log("error", "firing a due job failed", { job_id: job.id, error: errorText(err) });
}

/**
 * The store refused the fire: this slot already has its run (migration 011). Nothing more is
 * recorded for it; the schedule moves on, so the job does not stay due on a fired slot.
 */
function slotAlreadyFired(ctx: SchedulerContext, plan: FirePlan): void {
  ctx.logger.log("warn", "slot already fired; not fired again", {
    job_id: plan.job.id,
    slot: plan.job.next_run_at,
  });
  // Only a held `at` fire leaves next_run_at alone (undefined): fired already, it is consumed.
  ctx.store.atomically(() => ctx.store.setNextRunAt(plan.job.id, plan.next ?? null));
}

/**
 * Decides one due job; null when it writes nothing (schedule error, held `at` already queued,
 * a fleet's slot left for another node).
 */
function planFire(
  ctx: SchedulerContext,
  job: Job,
  now: Date,
  waiting: number | null,
  inFlight: InFlight,
): FirePlan | null {
  const { store, governor } = ctx;
  const slot = job.next_run_at!;
  let next: string | null;
  try {
    next = nextRunAfterFire(job.schedule, new Date(slot), now);
  } catch (err) {
    store.atomically(() => scheduleFailed(ctx, job, err));
    return null;
  }
  const base = {
    job_id: job.id,
    slot, // the fire's identity: the store refuses a second first attempt for it
    attempt: 1,
    priority: governor.priorityFor(job.class, job.priority),
    class: job.class,
  };
  const skip = (reason: string): FirePlan => ({
    job,
    kind: "skipped",
    row: { ...base, status: "skipped", reason, finished_at: isoZ(now) },
    next,
    reason,
  });
  const isAt = job.schedule.kind === "at";
  const previous = store.inFlightRun(job.id);
  if (previous) {
    // A held `at` fire is already queued for this slot; admission retries it.
    if (isAt && previous.status === "queued" && previous.queued_at >= slot) return null;
    return skip(`previous run ${previous.id} still ${previous.status} (single-flight)`);
  }
  const admission = governor.admit(job.class, inFlight, waiting);
  if (!admission.ok) {
    // In a fleet this node's lever is not the fleet's: the slot stays due for one tick
    // period, so a node with room fires it; only then is it skipped (docs/fleet.md).
    if (!isAt && ctx.fleet !== SINGLE_BOX && now.getTime() - Date.parse(slot) < FLEET_DEFER_MS) {
      return null;
    }
    if (!isAt) return skip(`governor: ${admission.reason}`);
    const row: NewRun = { ...base, status: "queued", reason: `held: ${admission.reason}` };
    return { job, kind: "held", row, next: undefined };
  }
  inFlight[job.class]++;
  return { job, kind: "start", row: { ...base, status: "queued" }, next };
}

/** The run rows (one insert) and next slots of `plans`, and what the scheduler does next. */
function writePlans(store: Store, plans: readonly FirePlan[]): FireOutcome[] {
  const runs = store.createRuns(plans.map((p) => p.row));
  return plans.map((plan, i): FireOutcome => {
    if (plan.next !== undefined) store.setNextRunAt(plan.job.id, plan.next);
    const run = runs[i]!;
    if (plan.kind === "start") return { kind: "start", run };
    if (plan.kind === "skipped") return { kind: "skipped", run, reason: plan.reason! };
    return { kind: "none" };
  });
}
