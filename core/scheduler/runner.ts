// One run from queued to finished: provider-pin check, report paths, the child process
// (its own process group), the wait, and handing the end to outcomes.ts.

import { alertEvent } from "../delivery/events.ts";
import { errorText } from "../logger.ts";
import type { Job, Run, RunStatus } from "../store/store.ts";
import { type ActiveRun, emit, nowIso, type SchedulerContext } from "./context.ts";
import { childEnv, fileStamp, headlessArgs, runsDir } from "./headless_command.ts";
import { parseHeadlessResult, STDOUT_CAPTURE_BYTES } from "./headless_result.ts";
import { recordOutcome } from "./outcomes.ts";
import { StoreUnavailableError } from "../store/errors.ts";
import { isProtocolLine, readRunLog, sessionIdFromLog } from "./run_log.ts";
import { makePrivateDir, PRIVATE_FILE_MODE, tightenPath } from "../private_files.ts";
import { checkPin } from "./pin.ts";
import { join } from "node:path";

export interface RunnerHooks {
  /** The child is running and `active.deadline` is set. */
  started(active: ActiveRun): void;
}

/**
 * Executes an admitted run. Resolves with its final status, or null when it never started
 * (cancelled while starting, or deleted).
 */
export async function executeRun(
  ctx: SchedulerContext,
  active: ActiveRun,
  hooks: RunnerHooks,
): Promise<RunStatus | null> {
  const first = load(ctx, active.runId);
  if (!first) return null;

  const pin = await checkPin(ctx.pinResolver, first.job.base_url, first.job.model);
  const current = load(ctx, active.runId); // a cancel may have landed during the check
  if (!current) return null;
  const { job } = current;
  if (pin.drift) {
    const now = nowIso(ctx);
    consumeAtFire(ctx, job, now);
    ctx.store.updateRun(active.runId, {
      status: "skipped_drift",
      reason: pin.reason,
      finished_at: now,
    });
    emit(ctx, alertEvent("drift", job, pin.reason, now, { run_id: active.runId }));
    return "skipped_drift";
  }

  let resume: { sessionId: string; text: string } | undefined;
  if (current.run.resume_of_run !== null) {
    const halted = ctx.store.getRun(current.run.resume_of_run);
    if (halted?.session_id) {
      resume = { sessionId: halted.session_id, text: current.run.answer ?? "" };
    }
  }
  const dir = runsDir(ctx.home, job.id);
  if (!ctx.runDirs.has(dir)) {
    try {
      await makePrivateDir(dir);
      ctx.runDirs.add(dir);
    } catch (err) {
      return recordOutcome(ctx, active.runId, {
        kind: "spawn_failed",
        error: `cannot create the run directory ${dir}: ${errorText(err)}`,
      });
    }
  }

  const fresh = load(ctx, active.runId);
  if (!fresh) return null;
  const startedIso = nowIso(ctx);
  let reportPath = join(dir, `${fileStamp(new Date(startedIso))}.md`);
  // Same second as the job's previous report (a trigger right after a cancel): name this
  // one after the run so both are kept.
  if (ctx.lastReport.get(job.id) === reportPath) {
    reportPath = join(dir, `${fileStamp(new Date(startedIso))}-${active.runId}.md`);
  }
  ctx.lastReport.set(job.id, reportPath);
  // A node paused past its lease during the checks above has lost the run to the fleet.
  if (!ctx.fleet.owns(active.runId)) return null;
  // Recorded as running before the spawn: a crash in between leaves a run recovery marks
  // lost, never one that is started twice.
  ctx.store.updateRun(active.runId, {
    status: "running",
    started_at: startedIso,
    report_path: reportPath,
    reason: null,
  });
  consumeAtFire(ctx, fresh.job, startedIso);
  if (current.run.resume_of_run !== null && !resume) {
    return recordOutcome(ctx, active.runId, {
      kind: "spawn_failed",
      error: `run ${current.run.resume_of_run} has no session id to resume`,
    });
  }

  const logPath = reportPath.replace(/\.md$/, ".log");
  let proc;
  try {
    proc = ctx.spawner.spawn({
      command: ctx.agentCommand.command,
      args: headlessArgs(ctx.agentCommand, {
        job: fresh.job,
        reportPath,
        ...(resume ? { resume } : {}),
      }),
      cwd: fresh.job.workdir,
      env: childEnv(ctx.env, fresh.job, fresh.run.priority),
      logPath,
      captureStdout: STDOUT_CAPTURE_BYTES,
    });
  } catch (err) {
    return recordOutcome(ctx, active.runId, { kind: "spawn_failed", error: errorText(err) });
  }
  let pidStart: string | null;
  try {
    pidStart = ctx.processes.identity(proc.pid);
  } catch (err) {
    // Without its identity a restart could not tell this child from a reused PID: do not
    // leave it running untracked.
    proc.killGroup();
    await proc.exited;
    return recordOutcome(ctx, active.runId, { kind: "spawn_failed", error: errorText(err) });
  }
  ctx.store.updateRun(active.runId, { pid: proc.pid, pid_start: pidStart });
  active.proc = proc;
  active.deadline = ctx.clock.now().getTime() + fresh.job.timeout_s * 1000;
  hooks.started(active);

  const code = await proc.exited;
  proc.killGroup(); // leftovers of a finished run (a stray grandchild) do not outlive it
  await makeReportPrivate(ctx, active.runId, reportPath);
  const stdout = await (proc.stdout ?? Promise.resolve(""));
  const result = parseHeadlessResult(stdout);
  // A child that died without its JSON result (a crash, a runtime error) said why on
  // stderr; its last line becomes the run's reason instead of a bare exit code.
  await storeAnswers(ctx, active.runId);
  if (!result?.session_id) await recordSessionFromLog(ctx, active.runId, logPath);
  const stderrTail = result === null && code !== 0 ? await lastLogLine(logPath) : null;
  return recordOutcome(ctx, active.runId, {
    kind: "exited",
    code,
    result,
    timedOut: active.timedOut,
    ...(stderrTail ? { stderrTail } : {}),
  });
}

/** How long a finished run's outcome waits for a shared database that is restarting. */
const STORE_WAIT_MS = 120_000;

/**
 * Waits (up to STORE_WAIT_MS) until the store answers a read, so a child that ended while a
 * shared database restarts still gets its outcome recorded instead of staying `running`.
 */
async function storeAnswers(ctx: SchedulerContext, runId: number): Promise<void> {
  const until = ctx.clock.now().getTime() + STORE_WAIT_MS;
  for (;;) {
    try {
      ctx.store.getRun(runId);
      return;
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || ctx.clock.now().getTime() >= until) {
        throw err;
      }
      await ctx.clock.sleep(1000);
    }
  }
}

/** Bytes of a log's start searched for the session line (it comes before the first turn). */
const SESSION_SEARCH_BYTES = 64 * 1024;

/**
 * A child that ended without its JSON result (killed, timed out, crashed after its first turn)
 * still printed its session line on stderr: the run keeps the session, so its transcript
 * shows. A log that cannot be read is logged, and the run ends as it would without it.
 */
async function recordSessionFromLog(
  ctx: SchedulerContext,
  runId: number,
  logPath: string,
): Promise<void> {
  try {
    const head = await readRunLog(logPath, SESSION_SEARCH_BYTES, "head");
    const id = head ? sessionIdFromLog(head.text) : null;
    if (id) ctx.store.updateRun(runId, { session_id: id });
  } catch (err) {
    ctx.logger.log("warn", "could not read the run log for its session", {
      run_id: runId,
      error: errorText(err),
    });
  }
}

/** The run and its job when the run is still queued; null when it should not start. */
function load(ctx: SchedulerContext, runId: number): { run: Run; job: Job } | null {
  const run = ctx.store.getRun(runId);
  if (!run || run.status !== "queued") return null;
  const job = ctx.store.getJob(run.job_id);
  return job ? { run, job } : null;
}

/** A scheduled `at` job has fired once it starts (or is drift-skipped): no next run. */
function consumeAtFire(ctx: SchedulerContext, job: Job, now: string): void {
  if (job.schedule.kind === "at" && job.next_run_at !== null && job.next_run_at <= now) {
    ctx.store.setNextRunAt(job.id, null);
  }
}

/**
 * Owner-only, whatever agent wrote the report (an older one, a custom AGENT_OUTPOST_AGENT_BIN):
 * the same mode the outpost gives its other files. Never follows a symlink the run left.
 */
async function makeReportPrivate(ctx: SchedulerContext, runId: number, path: string) {
  try {
    await tightenPath(path, PRIVATE_FILE_MODE);
  } catch (err) {
    ctx.logger.log("warn", "could not make the run report owner-only", {
      run_id: runId,
      error: errorText(err),
    });
  }
}

const LOG_TAIL_BYTES = 4096;
const LOG_LINE_MAX = 300;

/**
 * The last error line (or else the last line) of a run's log (its stderr), or null. The run
 * can replace its log like its report, so it is opened the same guarded way: a symlink or a
 * FIFO there is not read, and never holds the run's outcome in a blocked open.
 */
async function lastLogLine(path: string): Promise<string | null> {
  let read;
  try {
    read = await readRunLog(path, LOG_TAIL_BYTES, "tail");
  } catch (err) {
    // A refused read is said, not hidden; the exit code still tells the outcome.
    return `the run log could not be read: ${errorText(err)}`;
  }
  if (!read) return null; // no log (a fake spawner): the exit code alone will do
  // The session and progress lines say what the run did, not why it failed.
  const lines = read.text.split("\n").map((l) => l.trim()).filter((l) => !isProtocolLine(l));
  // An uncaught error ends with its stack; the line that names the error says more.
  const last = lines.findLast((l) => /^error\b/i.test(l)) ?? lines.findLast((l) => l !== "");
  if (!last) return null;
  return last.length > LOG_LINE_MAX ? `${last.slice(0, LOG_LINE_MAX)}…` : last;
}
