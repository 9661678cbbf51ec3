// What happens when a child ends (spec 3.1): ok keeps the report; exit 1 or a timeout is a
// failed attempt, retried after 60 s, 120 s, 300 s until the job's consecutive failures pass
// max_retries, which dead-letters (disables) it; exit 2 is needs_human: terminal, never
// retried, opens an inbox item and alerts; a cancelled run stays cancelled. An exit 1 whose
// result says `setup_error` (the child could not start on its configuration) is never retried:
// the job is disabled at once with one alert (issue 37 §3d; docs/dashboard-api.md).

import { alertEvent, inboxItemEvent, runReportEvent } from "../delivery/events.ts";
import { classifyRisk } from "../inbox/risk.ts";
import type { Job, Run, RunStatus } from "../store/store.ts";
import { emit, nowIso, type SchedulerContext } from "./context.ts";
import type { ParsedResult } from "./headless_result.ts";
import { isoZ } from "../time.ts";
import { errorText } from "../logger.ts";
import { readReport } from "./report_reader.ts";

const BACKOFF_S = [60, 120, 300] as const;

/** Delay before the retry that follows failed attempt `attempt` (1-based), capped at 300 s. */
export function backoffSeconds(attempt: number): number {
  return BACKOFF_S[Math.min(Math.max(attempt, 1), BACKOFF_S.length) - 1]!;
}

export type ExecEnd =
  /** The child ran and exited (or was killed). */
  | {
    kind: "exited";
    code: number;
    result: ParsedResult | null;
    timedOut: boolean;
    /** The last line the child wrote to stderr, when it printed no result. */
    stderrTail?: string;
  }
  /** The child could not be started at all. */
  | { kind: "spawn_failed"; error: string };

/**
 * Records a finished run and its consequences. Returns the final status. Every store write
 * happens before the first await; only the chat delivery of the report waits on its file.
 */
export async function recordOutcome(
  ctx: SchedulerContext,
  runId: number,
  end: ExecEnd,
): Promise<RunStatus | null> {
  // A node that lost its lease no longer owns its runs: the fleet settled them (fencing).
  if (!ctx.fleet.owns(runId)) return null;
  const run = ctx.store.getRun(runId);
  if (!run) return null; // job deleted meanwhile (runs cascade)
  const job = ctx.store.getJob(run.job_id);
  if (!job) return null;
  const now = nowIso(ctx);
  const result = end.kind === "exited" ? end.result : null;
  const details = {
    exit_code: end.kind === "exited" ? end.code : null,
    session_id: result?.session_id ?? run.session_id,
    tokens_in: result?.tokens_in ?? null,
    tokens_out: result?.tokens_out ?? null,
    cache_read_tokens: result?.cache_read_tokens ?? null,
    cache_write_tokens: result?.cache_write_tokens ?? null,
    cost_usd: result?.cost_usd ?? null,
    model: result?.model ?? null,
    duration_ms: result?.duration_ms ?? null,
    done_reason: result?.done_reason ?? null,
    stop_reason: result?.stop_reason ?? null,
  };
  if (run.status === "cancelled") {
    ctx.store.updateRun(runId, details); // cancel already set status, times and reason
    return "cancelled";
  }
  let status: RunStatus;
  let reason: string | null = null;
  if (end.kind === "spawn_failed") {
    status = "error";
    reason = end.error;
  } else if (end.timedOut) {
    status = "error";
    reason = `timed out after ${job.timeout_s}s; process group killed`;
  } else if (end.code === 0) {
    status = "ok";
  } else if (end.code === 2) {
    status = "needs_human";
  } else {
    status = "error";
    reason = result?.error ??
      `agent exited with code ${end.code}${
        result ? "" : ` and printed no result${end.stderrTail ? `: ${end.stderrTail}` : ""}`
      }`;
  }
  // Checked again with the write, in one transaction: on a shared store it holds the fleet's
  // write lock, which a survivor's takeover (pg_fleet.ts sweep) takes too, so a run is either
  // settled here or taken over there, never both (docs/fleet.md "Takeover").
  const done = ctx.store.atomically(() =>
    ctx.fleet.owns(runId)
      ? ctx.store.updateRun(runId, { ...details, status, reason, finished_at: now })
      : null
  );
  if (!done) return null;
  ctx.logger.log(status === "error" ? "warn" : "info", "run finished", {
    job_id: job.id,
    run_id: runId,
    status,
    exit_code: details.exit_code,
    ...(reason ? { reason } : {}),
  });
  if (status === "error" && result?.setup_error && end.kind === "exited" && !end.timedOut) {
    setupFailed(ctx, job, done, reason ?? "error");
    return status;
  }
  if (status === "error") {
    failed(ctx, job, done, reason ?? "error");
    return status;
  }
  if (job.failure_count !== 0) ctx.store.updateJob(job.id, { failure_count: 0 });
  if (status === "needs_human") openInboxItem(ctx, job, done, result, now);
  if (job.output_surface === "messenger") {
    const head = await reportHead(ctx, done, result?.final_text ?? "");
    emit(ctx, runReportEvent(job, done, status === "ok" ? "ok" : "needs_human", head, now));
  }
  return status;
}

/** `text` ending as a sentence: a full stop added unless it already ends with . ? or !. */
export function sentence(text: string): string {
  const t = text.trimEnd();
  return /[.?!]$/.test(t) ? t : `${t}.`;
}

function failed(ctx: SchedulerContext, job: Job, run: Run, reason: string): void {
  const failures = job.failure_count + 1;
  const now = ctx.clock.now();
  if (failures > job.max_retries) {
    const why = `${failures} consecutive failed attempts (max_retries ${job.max_retries}); ` +
      `last: ${sentence(reason)} Fix the cause, then re-enable the job.`;
    const updated = ctx.store.updateJob(job.id, {
      failure_count: failures,
      enabled: false,
      dead_letter_reason: why,
      disabled_reason: "dead-letter: " + why,
    });
    ctx.store.appendAudit({
      action: "dead_letter",
      target: `job:${job.id}`,
      actor: "scheduler",
      channel: "outpost",
      detail: why,
    });
    emit(ctx, alertEvent("dead_letter", updated, why, isoZ(now), { run_id: run.id }));
    return;
  }
  ctx.store.updateJob(job.id, { failure_count: failures });
  if (!job.enabled) {
    ctx.store.updateRun(run.id, { reason: `${reason}; not retried: the job is disabled` });
    return;
  }
  const delay = backoffSeconds(run.attempt);
  ctx.store.createRun({
    job_id: job.id,
    status: "queued",
    attempt: run.attempt + 1,
    not_before: isoZ(new Date(now.getTime() + delay * 1000)),
    reason: `retry ${run.attempt} of ${job.max_retries} after ${delay}s backoff`,
    priority: run.priority,
    class: run.class,
    resume_of_run: run.resume_of_run,
    answer: run.answer,
    slot: run.slot, // the fire it retries, if any (outside the unique index: attempt > 1)
  });
}

/**
 * The child stopped before its first turn on its configuration (an unreadable or untrusted
 * project settings file, a refused workdir, a missing key): every retry and every later fire
 * would stop the same way, holding a runner slot each time. So no retry: the job is disabled
 * at once with the reason (the run page shows it), one audit row and one alert.
 */
function setupFailed(ctx: SchedulerContext, job: Job, run: Run, reason: string): void {
  const why = `the run cannot start: ${reason}. Every run would stop the same way, so it is ` +
    "not retried: fix the cause, then re-enable the job.";
  const updated = ctx.store.updateJob(job.id, {
    failure_count: job.failure_count + 1,
    enabled: false,
    disabled_reason: why,
  });
  ctx.store.updateRun(run.id, { reason: `${reason} (not retried: a set-up error)` });
  ctx.store.appendAudit({
    action: "setup_error",
    target: `job:${job.id}`,
    actor: "scheduler",
    channel: "outpost",
    detail: why,
  });
  emit(ctx, alertEvent("setup_error", updated, why, isoZ(ctx.clock.now()), { run_id: run.id }));
}

function openInboxItem(
  ctx: SchedulerContext,
  job: Job,
  run: Run,
  result: ParsedResult | null,
  now: string,
): void {
  const questions = result?.questions ?? [];
  const risk = classifyRisk(questions);
  const meta: Record<string, unknown> = { risk };
  if (typeof job.meta.room === "string") meta.room = job.meta.room;
  const item = ctx.store.createInboxItem({ job_id: job.id, run_id: run.id, questions, meta });
  emit(ctx, inboxItemEvent(job, item, risk, now));
  const first = questions[0]?.text ?? "The run stopped without saying what it needs.";
  emit(
    ctx,
    alertEvent("needs_human", job, `Run ${run.id} needs an answer: ${first}`, now, {
      run_id: run.id,
      item_id: item.id,
    }),
  );
}

const HEAD_BYTES = 8192;

/**
 * The start of the report file for chat, read through the guarded reader (a run cannot make
 * chat carry another file, nor hang the outpost on a FIFO), or `fallback` (the final text)
 * when there is no report to show; a refusal or read error is logged, not hidden.
 */
async function reportHead(ctx: SchedulerContext, run: Run, fallback: string): Promise<string> {
  try {
    const read = await readReport({ home: ctx.home, path: run.report_path, maxBytes: HEAD_BYTES });
    if (read.kind === "text" && read.text !== "") return read.text;
    if (read.kind === "refused") {
      ctx.logger.log("warn", "run report refused for delivery", { run_id: run.id, why: read.why });
    }
  } catch (err) {
    ctx.logger.log("warn", "run report could not be read for delivery", {
      run_id: run.id,
      error: errorText(err),
    });
  }
  return fallback;
}
