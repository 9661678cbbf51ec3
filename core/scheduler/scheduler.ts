// The outpost scheduler (spec 3.1, design "How data flows" 4): a 60-second tick on an
// injected clock fires due jobs, asks the governor for admission, and runs each admitted
// run as a headless child in its own process group. Between ticks it also wakes for retry
// backoffs, run timeouts and the next job's slot (fire_wake.ts), so a job starts on time.
//
// Order inside one step: timeouts are enforced, then queued runs (retries, held one-shots,
// resumes, triggers) are admitted in priority order (lower number first), then due jobs
// fire with what capacity is left. At most one run per job runs at a time (single-flight):
// a due job whose previous run is still queued or running records a `skipped` run, and
// queued work of one job (a retry, a resume) starts only when the job has nothing running.

import type { Delivery } from "../delivery/delivery.ts";
import { errorText, type Logger, stderrLogger } from "../logger.ts";
import type { Governor, GovernorUsage, InFlight } from "../governor/governor.ts";
import type { Clock, Env, Spawner } from "../ports.ts";
import type { InboxItem, Job, Run, RunStatus, Store } from "../store/store.ts";
import { cancelJob, type CancelResult } from "./cancel.ts";
import type { ActiveRun, SchedulerContext } from "./context.ts";
import type { AgentCommand } from "./headless_command.ts";
import type { JobDefaults, JobStamp } from "./job_input.ts";
import * as jobs from "./jobs.ts";
import { type FireOutcome, fireTick } from "./fire.ts";
import { FireWake } from "./fire_wake.ts";
import { fenceChildren, type Fleet, LagHistogram, reapCancelled, SINGLE_BOX } from "./fleet.ts";
import { recordOutcome } from "./outcomes.ts";
import type { PinResolver } from "./pin.ts";
import { linuxProcessTable, type ProcessTable } from "./proc.ts";
import { recoverOrphans, type RecoveryReport } from "./recovery.ts";
import { executeRun } from "./runner.ts";
import { isoZ } from "../time.ts";

export const TICK_MS = 60_000;
const STORE_RETRY_MS = 2_000; // the loop's next try when the store did not answer

export interface SchedulerOptions {
  store: Store;
  clock: Clock;
  env: Env;
  spawner: Spawner;
  governor: Governor;
  delivery: Delivery;
  agentCommand: AgentCommand;
  home: string;
  logger?: Logger;
  processes?: ProcessTable;
  pinResolver?: PinResolver | null;
  defaults?: JobDefaults;
  tickMs?: number;
  /** The outposts sharing the store (default: a single box). */
  fleet?: Fleet;
}

export type SchedulerEvent =
  | { type: "run_started"; run_id: number; job_id: number; pid: number }
  | { type: "run_finished"; run_id: number; job_id: number; status: RunStatus | null }
  | { type: "run_skipped"; run_id: number; job_id: number; reason: string };

export { InFlightError } from "./jobs.ts"; // thrown by trigger(); the doors import it here

export class Scheduler {
  readonly ctx: SchedulerContext;
  readonly #tickMs: number;
  readonly #active = new Map<number, ActiveRun>();
  readonly #settled = new Map<number, Promise<RunStatus | null>>();
  readonly #listeners = new Set<(event: SchedulerEvent) => void>();
  /** Seconds from a fire's slot to its run being started here (GET /metrics). */
  readonly fireLag = new LagHistogram();
  #nextTickAt = -Infinity;
  /** Fires besides the tick: at a slot, and after a fleet's run ends (fire_wake.ts). */
  readonly #wake = new FireWake();
  #chain: Promise<unknown> = Promise.resolve();
  #loop: Promise<void> | null = null;
  #stopped = false;
  #poked = false;
  #sleep: AbortController | null = null;

  constructor(options: SchedulerOptions) {
    this.ctx = {
      store: options.store,
      clock: options.clock,
      env: options.env,
      spawner: options.spawner,
      governor: options.governor,
      delivery: options.delivery,
      logger: options.logger ?? stderrLogger,
      processes: options.processes ?? linuxProcessTable(),
      pinResolver: options.pinResolver ?? null,
      agentCommand: options.agentCommand,
      home: options.home,
      defaults: options.defaults ?? {},
      fleet: options.fleet ?? SINGLE_BOX,
      runDirs: new Set(),
      lastReport: new Map(),
    };
    this.#tickMs = options.tickMs ?? TICK_MS;
  }

  // ---- lifecycle ----

  /** Recovers orphans of a previous process, then starts the loop (first tick at once). */
  async start(): Promise<RecoveryReport> {
    if (this.#loop) throw new Error("scheduler already started");
    const report = await this.recover();
    this.#stopped = false;
    this.#loop = this.#run();
    return report;
  }

  /** Fencing: kills every child this process started (core/scheduler/fleet.ts). */
  fence(): number[] {
    return fenceChildren(this.activeRuns());
  }

  /** Kills the children of runs cancelled on another node (core/scheduler/fleet.ts). */
  reapCancelled(): number[] {
    return reapCancelled(this.ctx.store, this.activeRuns());
  }

  /** Ends the loop. Running children are left alone unless `killRunning`. */
  async stop(options: { killRunning?: boolean } = {}): Promise<void> {
    this.#stopped = true;
    this.poke();
    await this.#loop;
    this.#loop = null;
    if (options.killRunning) { for (const a of this.#active.values()) a.proc?.killGroup(); }
  }

  recover(): Promise<RecoveryReport> {
    return recoverOrphans(this.ctx);
  }

  /** Wakes the loop to re-plan now (something was queued, finished or got a deadline). */
  poke(): void {
    this.#poked = true;
    this.#sleep?.abort();
  }

  /** One loop iteration: the tick when due, timeouts, admission. */
  step(): Promise<void> {
    return this.#serial(async () => {
      const now = this.ctx.clock.now().getTime();
      const tick = now >= this.#nextTickAt;
      if (tick) {
        // Keep the 60-second cadence; after a long stall, restart it from now.
        const next = this.#nextTickAt + this.#tickMs;
        this.#nextTickAt = next > now ? next : now + this.#tickMs;
      }
      await this.#plan(new Date(now), this.#wake.take(now) || tick);
    });
  }

  /** A tick now, whatever the cadence (tests and manual use). */
  tick(): Promise<void> {
    return this.#serial(() => {
      const now = this.ctx.clock.now();
      this.#nextTickAt = now.getTime() + this.#tickMs;
      return this.#plan(now, true);
    });
  }

  /** Epoch ms of the next thing the loop must do: tick, slot, retry backoff end, or timeout. */
  nextWakeAt(): number {
    let at = this.#nextTickAt;
    const now = this.ctx.clock.now().getTime();
    at = Math.min(at, this.#wake.plan(this.ctx.store, now));
    for (const run of this.ctx.store.queuedRuns()) {
      const notBefore = run.not_before === null ? NaN : Date.parse(run.not_before);
      if (notBefore > now) at = Math.min(at, notBefore);
    }
    for (const a of this.#active.values()) {
      if (a.deadline !== null && !a.timedOut) at = Math.min(at, a.deadline);
    }
    return at;
  }

  async #run(): Promise<void> {
    while (!this.#stopped) {
      this.#poked = false;
      try {
        await this.step();
      } catch (err) {
        this.ctx.logger.log("error", "scheduler step failed", { error: errorText(err) });
      }
      if (this.#stopped) break;
      if (this.#poked) continue;
      let wakeAt = this.ctx.clock.now().getTime() + STORE_RETRY_MS;
      try {
        wakeAt = this.nextWakeAt();
      } catch (err) { // a shared database restarting: try again shortly, never end the loop
        this.ctx.logger.log("error", "scheduler could not plan its wake", {
          error: errorText(err),
        });
      }
      const delay = Math.max(0, wakeAt - this.ctx.clock.now().getTime());
      const sleep = new AbortController();
      this.#sleep = sleep;
      try {
        await this.ctx.clock.sleep(delay, sleep.signal);
      } catch { /* poked */ }
      this.#sleep = null;
    }
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#chain.then(fn);
    this.#chain = next.catch(() => {});
    return next;
  }

  async #plan(now: Date, tick: boolean): Promise<void> {
    this.#enforceDeadlines(now);
    await this.#pump(now);
    if (tick) await this.#fireDue(now);
  }

  // ---- firing ----

  async #fireDue(now: Date): Promise<void> {
    const waiting = await this.ctx.governor.readWaiting(); // null at once when defer is off
    // Read the due list after that await: a run started moments ago may have consumed a
    // fire (an `at` job's next_run_at) or a cancel may have disabled a job meanwhile. A job
    // whose fire fails is logged and rolled back alone (fire.ts).
    fireTick(
      this.ctx,
      now,
      waiting,
      this.#inFlightCounts(),
      (outcomes) => this.#act(now, outcomes),
    );
  }

  #act(now: Date, outcomes: readonly FireOutcome[]): void {
    for (const outcome of outcomes) {
      if (outcome.kind === "start") {
        // A fired run carries its slot (the fire's identity in the store).
        this.fireLag.observe((now.getTime() - Date.parse(outcome.run.slot!)) / 1000);
        this.#start(outcome.run);
      }
      if (outcome.kind === "skipped") {
        const { run, reason } = outcome;
        this.#emitEvent({ type: "run_skipped", run_id: run.id, job_id: run.job_id, reason });
      }
    }
  }

  // ---- admission and execution ----

  async #pump(now: Date): Promise<void> {
    const queued = this.ctx.store.queuedRuns();
    if (queued.length === 0) return;
    const nowText = isoZ(now);
    let waiting: number | null | undefined;
    for (const run of queued) {
      if (this.#active.has(run.id)) continue;
      if (run.not_before !== null && run.not_before > nowText) continue; // backoff
      if (this.#jobActive(run.job_id)) continue; // single-flight; its finish re-pumps
      waiting ??= await this.ctx.governor.readWaiting();
      const admission = this.ctx.governor.admit(run.class, this.#inFlightCounts(), waiting);
      const fleetHold = admission.ok ? this.ctx.fleet.fleetHold() : null;
      if (!admission.ok || fleetHold !== null) {
        const held = `held: ${admission.ok ? fleetHold : admission.reason}`;
        if (run.reason !== held) this.ctx.store.updateRun(run.id, { reason: held });
        continue;
      }
      const fresh = this.ctx.store.getRun(run.id);
      if (fresh?.status === "queued") this.#start(fresh);
    }
  }

  #start(run: Run): void {
    // On a shared store exactly one node gets each run; a single box always does.
    if (!this.ctx.fleet.claimRun(run)) return;
    const active: ActiveRun = {
      runId: run.id,
      jobId: run.job_id,
      cls: run.class,
      proc: null,
      deadline: null,
      timedOut: false,
    };
    this.#active.set(run.id, active);
    const done = executeRun(this.ctx, active, {
      started: (a) => {
        this.#emitEvent({
          type: "run_started",
          run_id: a.runId,
          job_id: a.jobId,
          pid: a.proc!.pid,
        });
        this.poke(); // the loop must now also wake for this run's deadline
      },
    })
      .catch(async (err) => {
        this.ctx.logger.log("error", "run failed inside the scheduler", {
          run_id: run.id,
          error: errorText(err),
        });
        try {
          return await recordOutcome(this.ctx, run.id, {
            kind: "spawn_failed",
            error: `internal error: ${errorText(err)}`,
          });
        } catch (recordErr) {
          // The run stays as it was; recovery at the next start settles it.
          this.ctx.logger.log("error", "the failed run's outcome could not be recorded", {
            run_id: run.id,
            error: errorText(recordErr),
          });
          return null;
        }
      })
      .then((status) => {
        this.#active.delete(run.id);
        this.#settled.delete(run.id);
        this.#emitEvent({ type: "run_finished", run_id: run.id, job_id: run.job_id, status });
        if (this.ctx.fleet !== SINGLE_BOX) this.#wake.runnerFreed(this.ctx.clock.now().getTime());
        this.poke(); // a slot is free, or a retry was queued
        return status;
      });
    this.#settled.set(run.id, done);
  }

  #enforceDeadlines(now: Date): void {
    for (const a of this.#active.values()) {
      if (a.proc && a.deadline !== null && !a.timedOut && now.getTime() >= a.deadline) {
        a.timedOut = true;
        this.ctx.logger.log("warn", "run timed out; killing its process group", {
          run_id: a.runId,
          job_id: a.jobId,
        });
        a.proc.killGroup();
      }
    }
  }

  #inFlightCounts(): InFlight {
    const counts: InFlight = { api: 0, scheduled: 0 };
    for (const a of this.#active.values()) counts[a.cls]++;
    return counts;
  }

  #jobActive(jobId: number): boolean {
    for (const a of this.#active.values()) if (a.jobId === jobId) return true;
    return false;
  }

  #kill(run: Run): void {
    const live = this.#active.get(run.id)?.proc;
    if (live) return live.killGroup();
    const { processes } = this.ctx;
    if (
      run.pid !== null && run.pid_start !== null && processes.identity(run.pid) === run.pid_start
    ) {
      processes.killGroup(run.pid);
    }
  }

  // ---- operations for the doors (dashboard, machine door, chat) ----

  /** `stamp`: server-side fields (recipe stamp, meta, enabled) from trusted code only. */
  createJob(raw: unknown, stamp?: JobStamp): Job {
    const job = jobs.createJob(this.ctx, raw, stamp);
    this.poke();
    return job;
  }

  async updateJob(id: number, raw: unknown): Promise<jobs.UpdateResult> {
    const result = await jobs.updateJob(this.ctx, id, raw);
    this.poke();
    return result;
  }

  setEnabled(id: number, enabled: boolean, reason?: string): Job {
    const job = jobs.setEnabled(this.ctx, id, enabled, reason);
    this.poke();
    return job;
  }

  repin(id: number): Promise<jobs.RepinResult> {
    return jobs.repin(this.ctx, id);
  }

  /** Kills the job's live run, then deletes the job and its history (reports stay on disk). */
  deleteJob(id: number): boolean {
    if (!this.ctx.store.getJob(id)) return false;
    const run = this.ctx.store.inFlightRun(id);
    if (run?.status === "running") this.#kill(run);
    return this.ctx.store.deleteJob(id);
  }

  /**
   * Manual fire with the single-flight guard. Throws InFlightError, NotFoundError, or
   * CapacityError for a one-shot run again (a submission: queue_depth_max). */
  trigger(jobId: number): Run {
    const run = jobs.triggerRun(this.ctx, jobId);
    this.poke();
    return run;
  }

  /**
   * A background one-shot (machine door, chat `run`, a recipe trigger): an api-class job plus
   * one queued run. `stamp`: server-side fields from trusted code only (the trigger route).
   * Throws CapacityError past queue_depth_max, JobValidationError on bad fields.
   */
  submitOneShot(raw: unknown, stamp?: JobStamp): { job: Job; run: Run } {
    const made = jobs.submitOneShot(this.ctx, raw, stamp);
    this.poke();
    return made;
  }

  /** The shared cancel core (see cancel.ts). */
  cancel(jobId: number): CancelResult {
    const result = cancelJob({
      store: this.ctx.store,
      clock: this.ctx.clock,
      killRun: (run) => this.#kill(run),
    }, jobId);
    this.poke();
    return result;
  }

  /**
   * Answers an open inbox item and resumes its halted run: a new queued run continues the
   * session with the answer as its prompt. `run` is null when the halted run left no
   * session to resume. Throws NotFoundError, InboxStateError or JobValidationError.
   */
  resumeFromInbox(
    itemId: number,
    answer: string,
    via = "dashboard",
  ): { item: InboxItem; run: Run | null } {
    const resumed = jobs.resumeFromInbox(this.ctx, itemId, answer, via);
    if (resumed.run) this.poke();
    return resumed;
  }

  /** The governor card: live slots per class, queue depth, tokens in the last hour. */
  usage(): GovernorUsage {
    const queued = this.ctx.store.queuedRuns().filter((run) => !this.#active.has(run.id));
    return this.ctx.governor.usage(this.#inFlightCounts(), queued);
  }

  // ---- observation ----

  /** Runs this process is starting or running. */
  activeRuns(): readonly Readonly<ActiveRun>[] {
    return [...this.#active.values()];
  }

  on(listener: (event: SchedulerEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The first future event matching `predicate`. */
  nextEvent(predicate: (event: SchedulerEvent) => boolean): Promise<SchedulerEvent> {
    return new Promise((resolve) => {
      const off = this.on((event) => {
        if (predicate(event)) {
          off();
          resolve(event);
        }
      });
    });
  }

  /** Resolves with the run's final status once this process has finished handling it. */
  whenSettled(runId: number): Promise<RunStatus | null> {
    return this.#settled.get(runId) ??
      Promise.resolve(this.ctx.store.getRun(runId)?.status ?? null);
  }

  /** Waits until every run active now has settled. */
  async idle(): Promise<void> {
    while (this.#settled.size > 0) await Promise.all([...this.#settled.values()]);
  }

  #emitEvent(event: SchedulerEvent): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch (err) {
        this.ctx.logger.log("warn", "scheduler listener threw", { error: errorText(err) });
      }
    }
  }
}
