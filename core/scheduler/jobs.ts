// Job operations for every door (dashboard routes, machine door, chat verbs), so each
// applies the same validation and the same side effects on next_run_at and dead-letter state.

import { alertEvent } from "../delivery/events.ts";
import { errorText } from "../logger.ts";
import { NotFoundError } from "../store/errors.ts";
import type { InboxItem, Job, Run } from "../store/store.ts";
import { emit, nowIso, type SchedulerContext } from "./context.ts";
import {
  type JobStamp,
  JobValidationError,
  repinnedMeta,
  validateAnswer,
  validateJobInput,
  validateJobPatch,
} from "./job_input.ts";
import { checkNamedPreset } from "./job_key.ts";
import { firstRunAt, resumedRunAt } from "./next_run.ts";

/** A manual trigger while the job already has a run in flight (routes answer 409). */
export class InFlightError extends Error {
  override readonly name = "InFlightError";
  readonly job_id: number;
  readonly run_id: number;
  constructor(jobId: number, run: Run) {
    super(`job ${jobId} already has run ${run.id} ${run.status}; wait for it or cancel it first`);
    this.job_id = jobId;
    this.run_id = run.id;
  }
}

type JobsContext = Pick<
  SchedulerContext,
  "store" | "clock" | "defaults" | "pinResolver" | "delivery" | "logger" | "env" | "home"
>;

/**
 * Refused changes to an existing job (409): a recipe-made job's prompt, re-enabling a
 * finished one-shot. `code` is the error code the doors answer with.
 */
export class JobConflictError extends Error {
  override readonly name = "JobConflictError";
  readonly code: string;
  readonly field: string;
  constructor(code: string, field: string, message: string) {
    super(message);
    this.code = code;
    this.field = field;
  }
}

/**
 * Validates and stores a scheduled job with its first next_run_at. `stamp` carries the
 * server-side fields (recipe stamp, meta, enabled) that a request body may not set.
 */
export function createJob(ctx: JobsContext, raw: unknown, stamp: JobStamp = {}): Job {
  const now = ctx.clock.now();
  const input = validateJobInput(raw, { now, defaults: ctx.defaults, class: "scheduled" }, stamp);
  checkNamedPreset(ctx, input);
  return ctx.store.createJob({
    ...input,
    next_run_at: input.enabled ? firstRunAt(input.schedule, now) : null,
    ...(input.enabled ? {} : { disabled_reason: "created disabled" }),
  });
}

export interface UpdateResult {
  job: Job;
  repin?: RepinResult;
}

/**
 * Applies a PUT: field changes (a new schedule recomputes next_run_at), then `enabled`,
 * then `repin`. Throws JobValidationError or NotFoundError.
 */
export async function updateJob(ctx: JobsContext, id: number, raw: unknown): Promise<UpdateResult> {
  const now = ctx.clock.now();
  const { patch, enabled, repin: doRepin, pin_label } = validateJobPatch(raw, { now });
  let job = mustGet(ctx, id);
  if (job.class === "api" && patch.schedule) {
    throw new JobValidationError("schedule", "a one-shot submission has no schedule to change");
  }
  // Spec 2.3: a recipe-made job keeps its rendered prompt for life. Sending the same text
  // back (the edit form always sends the prompt) is not a change.
  if (job.recipe_id !== null && patch.prompt !== undefined && patch.prompt !== job.prompt) {
    throw new JobConflictError(
      "recipe_prompt_frozen",
      "prompt",
      `job ${id} was made from recipe ${job.recipe_id} (version ${job.recipe_version}); its ` +
        `prompt is frozen. Enable the recipe again to get a job with a new prompt`,
    );
  }
  if (
    patch.provider_preset !== undefined || patch.base_url !== undefined ||
    patch.workdir !== undefined
  ) {
    checkNamedPreset(ctx, { ...job, ...patch });
  }
  // A new pin applies to claims from now on; a run a node already claimed stays there.
  const meta = pin_label === undefined ? {} : { meta: repinnedMeta(job.meta, pin_label) };
  if (Object.keys(patch).length > 0 || pin_label !== undefined) {
    job = ctx.store.updateJob(id, {
      ...patch,
      ...meta,
      ...(patch.schedule ? { next_run_at: firstRunAt(patch.schedule, now) } : {}),
    });
  }
  if (enabled !== undefined) job = setEnabled(ctx, id, enabled);
  if (doRepin) {
    const repinned = await repin(ctx, id);
    return { job: repinned.job, repin: repinned };
  }
  return { job };
}

/**
 * Enabling clears the failure count and dead-letter state and recomputes next_run_at: an
 * `every` keeps its phase (resumedRunAt), a cron starts from now, and an unfired `at` keeps
 * its time, so a missed one fires at the next tick. Disabling keeps the schedule and
 * next_run_at and touches no run.
 */
export function setEnabled(ctx: JobsContext, id: number, enabled: boolean, reason?: string): Job {
  const job = mustGet(ctx, id);
  if (!enabled) {
    return ctx.store.updateJob(id, {
      enabled: false,
      disabled_reason: reason ?? "paused by operator",
    });
  }
  // A one-shot runs through its one queued run, never through next_run_at: enabling it only
  // makes sense while that run still waits (a pause). Once nothing is queued or running
  // (cancelled while queued, or finished) enabling would answer 200 and never run it.
  if (job.class === "api" && !ctx.store.inFlightRun(id)) {
    throw new JobConflictError(
      "one_shot_finished",
      "enabled",
      `job ${id} is a one-shot with nothing queued or running (its run was cancelled or has ` +
        `ended), so enabling it would never run it; use Run now (POST /api/jobs/${id}/trigger) ` +
        `or submit it again`,
    );
  }
  let next: string | null;
  try {
    next = job.class === "api"
      ? null
      : job.schedule.kind === "at"
      ? job.next_run_at ?? firstRunAt(job.schedule, ctx.clock.now())
      : resumedRunAt(job.schedule, job.next_run_at, ctx.clock.now());
  } catch (err) {
    return scheduleFailed(ctx, job, err);
  }
  return ctx.store.updateJob(id, {
    enabled: true,
    failure_count: 0,
    dead_letter_reason: null,
    disabled_reason: null,
    next_run_at: next,
  });
}

/** Disables a job whose schedule cannot be computed, with the reason and an alert. */
export function scheduleFailed(ctx: JobsContext, job: Job, err: unknown): Job {
  const why = `schedule error: ${errorText(err)}; fix the schedule, then re-enable the job`;
  const updated = ctx.store.updateJob(job.id, { enabled: false, disabled_reason: why });
  ctx.store.appendAudit({
    action: "schedule_error",
    target: `job:${job.id}`,
    actor: "scheduler",
    channel: "outpost",
    detail: why,
  });
  ctx.logger.log("error", "job disabled: schedule error", {
    job_id: job.id,
    error: errorText(err),
  });
  emit(ctx, alertEvent("schedule_error", updated, why, nowIso(ctx)));
  return updated;
}

export interface RepinResult {
  job: Job;
  /** Served model ids, or null when the server gave no answer (nothing changed). */
  served: string[] | null;
  changed: boolean;
  previous_model: string;
}

/**
 * Re-resolves the job's model pin against its base_url. A pinned model that is no longer
 * served is replaced by the first served one; `default` and a still-served model stay.
 */
export async function repin(ctx: JobsContext, id: number): Promise<RepinResult> {
  const job = mustGet(ctx, id);
  const unchanged = (served: string[] | null) => ({
    job: mustGet(ctx, id),
    served,
    changed: false,
    previous_model: job.model,
  });
  if (!ctx.pinResolver || job.base_url === "") return unchanged(null);
  let served: string[] | null;
  try {
    served = await ctx.pinResolver(job.base_url);
  } catch {
    served = null;
  }
  if (!served || served.length === 0) return unchanged(null);
  if (job.model === "default" || served.includes(job.model)) return unchanged(served);
  const updated = ctx.store.updateJob(id, { model: served[0]! });
  ctx.store.appendAudit({
    action: "repin",
    target: `job:${id}`,
    actor: "dashboard",
    channel: "dashboard",
    detail: `${job.model} -> ${served[0]} at ${job.base_url}`,
  });
  return { job: updated, served, changed: true, previous_model: job.model };
}

function mustGet(ctx: JobsContext, id: number): Job {
  const job = ctx.store.getJob(id);
  if (!job) throw new NotFoundError("job", id);
  return job;
}

/**
 * Manual fire with the single-flight guard: the queued run. Throws InFlightError,
 * NotFoundError, or CapacityError for a one-shot run again (a submission: queue_depth_max).
 * One step: on a shared store two nodes' triggers of one job take turns.
 */
export function triggerRun(ctx: SchedulerContext, jobId: number): Run {
  return ctx.store.atomically(() => {
    const job = ctx.store.getJob(jobId);
    if (!job) throw new NotFoundError("job", jobId);
    const inFlight = ctx.store.inFlightRun(jobId);
    if (inFlight) throw new InFlightError(jobId, inFlight);
    if (job.class === "api") ctx.governor.checkQueueDepth(ctx.store.queuedRuns());
    return ctx.store.createRun({
      job_id: jobId,
      status: "queued",
      attempt: 1,
      priority: ctx.governor.priorityFor(job.class, job.priority),
      class: job.class,
    });
  });
}

/**
 * A background one-shot (machine door, chat `run`, a recipe trigger): an api-class job plus
 * one queued run. `stamp`: server-side fields from trusted code only (the trigger route).
 * Throws CapacityError past queue_depth_max, JobValidationError on bad fields.
 */
export function submitOneShot(
  ctx: SchedulerContext,
  raw: unknown,
  stamp?: JobStamp,
): { job: Job; run: Run } {
  const { store, governor, clock } = ctx;
  const input = validateJobInput(raw, {
    now: clock.now(),
    defaults: ctx.defaults,
    class: "api",
    oneShot: true,
  }, stamp);
  checkNamedPreset(ctx, input);
  governor.checkQueueDepth(store.queuedRuns());
  const job = store.createJob({ ...input, next_run_at: null });
  const run = store.createRun({
    job_id: job.id,
    status: "queued",
    attempt: 1,
    priority: governor.priorityFor("api", job.priority),
    class: "api",
  });
  return { job, run };
}

/**
 * Answers an open inbox item; a new queued run continues the halted run's session with the
 * answer as its prompt (null when it left no session, or its job is gone). Throws
 * NotFoundError, InboxStateError or JobValidationError.
 */
export function resumeFromInbox(
  ctx: Pick<SchedulerContext, "store">,
  itemId: number,
  answer: string,
  via: string,
): { item: InboxItem; run: Run | null } {
  validateAnswer(answer);
  const { store } = ctx;
  const item = store.getInboxItem(itemId);
  if (!item) throw new NotFoundError("inbox item", itemId);
  const answered = store.answerInbox(itemId, answer, via);
  const halted = store.getRun(item.run_id);
  if (!halted?.session_id || !store.getJob(item.job_id)) return { item: answered, run: null };
  const run = store.createRun({
    job_id: item.job_id,
    status: "queued",
    attempt: 1,
    priority: halted.priority,
    class: halted.class,
    resume_of_run: halted.id,
    answer,
  });
  return { item: answered, run };
}
