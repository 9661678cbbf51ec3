// The outpost's one store: jobs, runs, inbox items, audit rows, push subscriptions and
// machine-door tokens. Types and the interface live here; sql_store.ts implements it, on
// SQLite (sqlite_store.ts) or a shared PostgreSQL (pg/pg_store.ts).
// Every timestamp is a UTC ISO-8601 string with Z (isoZ in core/time.ts).

import type { Question } from "../tools/types.ts";
import type { TriggerStore } from "./triggers.ts";

export type ScheduleKind = "every" | "cron" | "at";

/**
 * A job's schedule as stored. `tz` is an IANA zone id; the store default is "UTC".
 * core/scheduler/schedule.ts validates it and computes its fires.
 */
export interface Schedule {
  kind: ScheduleKind;
  expr: string;
  tz: string;
}

export type JobMode = "auto" | "strict";
/** Code path a job came from; decides its governor class (spec 2.5). */
export type JobClass = "scheduled" | "api";
export type OutputSurface = "messenger" | "";

export interface Job {
  id: number;
  name: string;
  prompt: string;
  schedule: Schedule;
  workdir: string;
  mode: JobMode;
  timeout_s: number;
  max_retries: number;
  token_budget: number | null;
  /** Governor pin 1..100; null means the class default. */
  priority: number | null;
  output_surface: OutputSurface;
  base_url: string;
  model: string;
  /**
   * The provider preset whose stored key the job's runs may use ('' = the operator's
   * settings as they are). Handed to the child as AGENT_PRESET; the key still goes only to
   * the origin it was stored for (core/settings/key_binding.ts).
   */
  provider_preset: string;
  enabled: boolean;
  recipe_id: string | null;
  recipe_version: number | null;
  /** Next fire; null when nothing is left (a fired `at`, an api one-shot, a dead cron). */
  next_run_at: string | null;
  class: JobClass;
  /** Consecutive failed attempts; reset by a success, a needs_human end or re-enabling. */
  failure_count: number;
  dead_letter_reason: string | null;
  /** Why the job is disabled (dead-letter, schedule error, cancel while queued, pause). */
  disabled_reason: string | null;
  created_at: string;
  updated_at: string;
  /** Free-form JSON: origin room of a chat-submitted job (`room`), submitter, … */
  meta: Record<string, unknown>;
}

/** What a caller supplies to create a job (validated by core/scheduler/job_input.ts). */
export type NewJob =
  & Omit<
    Job,
    "id" | "created_at" | "updated_at" | "failure_count" | "dead_letter_reason" | "disabled_reason"
  >
  & { failure_count?: number; disabled_reason?: string | null };

/** Where a page of due jobs ends: its last job's slot and id. */
export interface DueCursor {
  next_run_at: string;
  id: number;
}

export type JobPatch = Partial<Omit<Job, "id" | "created_at" | "updated_at">>;

export type RunStatus =
  | "queued"
  | "running"
  | "ok"
  | "error"
  | "needs_human"
  | "skipped"
  | "skipped_drift"
  | "killed"
  | "lost"
  | "cancelled";

export const IN_FLIGHT: readonly RunStatus[] = ["queued", "running"];

export interface Run {
  id: number;
  job_id: number;
  status: RunStatus;
  /** 1 for a fire, a trigger or a resume; n+1 for the retry after attempt n. */
  attempt: number;
  exit_code: number | null;
  /** Why: skip reason, hold reason, error cause, drift detail. */
  reason: string | null;
  queued_at: string;
  /** Earliest start (retry backoff). */
  not_before: string | null;
  started_at: string | null;
  finished_at: string | null;
  pid: number | null;
  /** Process start identity (boot id + start time) so a reused PID is never mistaken for it. */
  pid_start: string | null;
  report_path: string | null;
  session_id: string | null;
  /** Prompt tokens sent outside the provider's prompt cache (headless usage.input_tokens). */
  tokens_in: number | null;
  tokens_out: number | null;
  /** Prompt tokens the provider's cache served (headless usage.cache_read_tokens). */
  cache_read_tokens: number | null;
  /** Prompt tokens the provider's cache stored (headless usage.cache_write_tokens). */
  cache_write_tokens: number | null;
  cost_usd: number | null;
  cancelled_at: string | null;
  /** Set on a resume run: the needs_human run it continues. */
  resume_of_run: number | null;
  /** The inbox answer a resume run passes to the child. */
  answer: string | null;
  /** Effective governor priority (lower runs first). */
  priority: number;
  class: JobClass;
  /** The model the run reported (headless JSON `model`); null before it ends or when unknown. */
  model: string | null;
  /** The run's own measure of its length (headless JSON `duration_ms`); null when absent. */
  duration_ms: number | null;
  /** Why the agent stopped (headless JSON `done_reason`: stop, truncated, …); null when absent. */
  done_reason: string | null;
  /** The model's last stop reason (headless JSON `stop_reason`: max_tokens, …); null when absent. */
  stop_reason: string | null;
  /**
   * The schedule slot a tick fired this run for (a retry keeps its fire's); null for manual
   * triggers, resumes and one-shots. The store refuses a second first attempt (attempt 1)
   * with the same job and slot (migration 011): a slot fires once. A cancel while queued clears
   * it: a fire that never started gives its slot back.
   */
  slot: string | null;
}

export type NewRun =
  & Pick<Run, "job_id" | "status" | "attempt" | "priority" | "class">
  & Partial<Omit<Run, "id" | "job_id" | "status" | "attempt" | "priority" | "class">>;

export type RunPatch = Partial<Omit<Run, "id" | "job_id">>;

export interface LatestRun {
  id: number;
  status: RunStatus;
  exit_code: number | null;
  attempt: number;
  queued_at: string;
  finished_at: string | null;
}

export interface JobWithLatestRun extends Job {
  latest_run: LatestRun | null;
}

export type InboxState = "open" | "answered" | "dismissed";

export interface InboxItem {
  id: number;
  job_id: number;
  run_id: number;
  questions: Question[];
  state: InboxState;
  answer: string | null;
  /** Surface that answered: dashboard, chat, push-action, dashboard-high-risk-confirm, … */
  answered_via: string | null;
  answered_at: string | null;
  /** A high-risk chat hold (spec 3.2); stale JSON may stay until the next answer/dismiss. */
  held_json: string | null;
  /** JSON; `risk` is stamped by the inbox funnel. */
  meta: Record<string, unknown>;
  created_at: string;
}

export interface NewInboxItem {
  job_id: number;
  run_id: number;
  questions: Question[];
  meta: Record<string, unknown>;
}

export interface AuditRow {
  id: number;
  at: string;
  action: string;
  target: string;
  actor: string;
  /** The door the action came through (AUDIT_CHANNELS in core/audit/audit.ts). */
  channel: string;
  detail: string;
}

export type NewAuditRow = Omit<AuditRow, "id" | "at"> & { at?: string };

export interface PushSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  created_at: string;
  last_success_at: string | null;
  failure_count: number;
}

export interface MachineToken {
  id: number;
  name: string;
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** What one retention chunk removed (see the prune* methods of Store). */
export interface Pruned {
  /** Jobs deleted (pruneOneShots only). */
  jobs: number;
  runs: number;
  /** report_path of every deleted run that had one; the caller removes the files. */
  reports: string[];
}

/** Filters of the run history (/runs); every field narrows, none means every run. */
export interface RunFilter {
  job_id?: number;
  status?: RunStatus;
  class?: JobClass;
  /** queued_at at or after (UTC ISO-Z). */
  from?: string;
  /** queued_at before (UTC ISO-Z). */
  to?: string;
}

/** Filters of the audit log (/audit): exact matches. */
export interface AuditFilter {
  action?: string;
  actor?: string;
  target?: string;
  channel?: string;
  /** Rows at or after this ISO-Z instant. */
  from?: string;
  /** Rows before this ISO-Z instant. */
  to?: string;
}

/** One bar segment of an hourly chart: the UTC hour ("2026-03-02T09"), a key, a number. */
export interface HourCount {
  hour: string;
  key: string;
  n: number;
}

/**
 * What a set of runs cost, from the usage rollups (migration 10). `cost_usd` sums the
 * priced runs only; `unpriced_runs` used tokens with no price known, so the true cost is
 * higher than `cost_usd` whenever it is above 0 (the dashboard says so, never "$0").
 */
export interface UsageTotals {
  runs: number;
  /** Runs that ended error, killed or lost. */
  failed: number;
  priced_runs: number;
  unpriced_runs: number;
  cost_usd: number;
  tokens_in: number;
  tokens_out: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  duration_ms: number;
}

/** UsageTotals of one UTC day ("2026-03-02") or hour ("2026-03-02T09"). */
export interface UsageBucket extends UsageTotals {
  bucket: string;
}

export interface ListOptions {
  limit?: number;
  /** Only rows with a smaller id (newest-first paging). */
  before_id?: number;
}

/**
 * The store's contract. Methods are synchronous: the embedded SQLite store makes each one a
 * single atomic step, which the scheduler relies on for check-then-act (single-flight).
 * ARCHITECTURE.md ("Scaling out") says how a server database would take its place.
 */
export interface Store {
  /**
   * Runs `fn` as one atomic step: everything it writes lands together or not at all. Calls
   * nest; an inner call that throws rolls back only its own writes, so a caller that catches
   * the error keeps the rest. `fn` must be synchronous.
   *
   * On a shared PostgreSQL an outermost `fn` may run more than once: when the database's
   * session is lost before COMMIT is sent (a restart), the server has rolled it back and the
   * store runs `fn` again once the server answers. So `fn` reads and writes the store and
   * computes; what it does outside the store (alerts, counters, in-memory state) it must
   * redo from scratch on each call or leave until it has returned (core/store/README.md).
   */
  atomically<T>(fn: () => T): T;
  /**
   * `atomically` for the fleet's hot paths (a tick's fires, a run's claim): the same on SQLite.
   * On PostgreSQL such transactions run side by side, each on the rows it locks
   * (lockDueJobs) or inserts by a unique identity, while `atomically`'s still run one at a time
   * and never alongside them (core/store/README.md, "Transactions on rows"). Inside it, a
   * nested `atomically` is a savepoint and takes no lock of its own: write only what you locked.
   */
  atomicallyOnRows<T>(fn: () => T): T;

  // Jobs
  /**
   * Throws JobLimitError when the store already holds MAX_JOBS jobs. Every job counts,
   * scheduled and one-shot alike, so no door can grow the store without bound.
   */
  createJob(job: NewJob): Job;
  getJob(id: number): Job | null;
  /** Newest first, each with its latest run; all of them unless `options.limit`. */
  listJobs(options?: ListOptions): JobWithLatestRun[];
  /** Every job's name by id, newest first: the list without its latest-run join. */
  jobNames(): Map<number, string>;
  countJobs(cls?: JobClass): number;
  /** Throws NotFoundError for an unknown id. */
  updateJob(id: number, patch: JobPatch): Job;
  /** Deletes the job, its runs and inbox items; report files stay on disk. False if absent. */
  deleteJob(id: number): boolean;
  /** Enabled jobs whose next_run_at is at or before `at`, earliest first. */
  dueJobs(at: string): Job[];
  /**
   * A page of dueJobs: at most `limit`, after `after` in (next_run_at, id) order. Inside
   * atomicallyOnRows on PostgreSQL the jobs returned are locked to the commit, and a due job
   * another transaction holds is skipped, not waited for (FOR UPDATE SKIP LOCKED).
   */
  lockDueJobs(at: string, limit: number, after: DueCursor | null): Job[];
  /** The earliest next_run_at of an enabled job that is after `at`; null when none. */
  nextSlotAfter(at: string): string | null;
  /** Moves a job's next fire (the scheduler's hot path: no row is read back). */
  setNextRunAt(id: number, next: string | null): void;

  // Runs
  createRun(run: NewRun): Run;
  /**
   * Inserts several runs at once, in order (ids ascend with the array). The same rows as
   * createRun one by one, for the scheduler's tick, which writes a fire record per due job.
   */
  createRuns(runs: readonly NewRun[]): Run[];
  getRun(id: number): Run | null;
  updateRun(id: number, patch: RunPatch): Run;
  /** Newest first. */
  listRuns(jobId: number, options?: ListOptions): Run[];
  latestRun(jobId: number): Run | null;
  /** The job's newest run that is not a skip row (skipped, skipped_drift): its last attempt. */
  latestAttempt(jobId: number): Run | null;
  /** The job's newest queued or running run (a resume and a retry may both be queued). */
  inFlightRun(jobId: number): Run | null;
  runsWithStatus(status: RunStatus): Run[];
  /** Queued runs in admission order: priority (lower first), then queued_at, then id. */
  queuedRuns(): Run[];
  countQueued(): number;
  /**
   * The run history, newest first, narrowed by `filter`, one page below `before_id`. Each
   * filter combination reads an index that yields its rows in id order (migration 004), so
   * a page costs about `limit` rows.
   */
  listRunHistory(filter: RunFilter, options?: ListOptions): Run[];
  /** Runs queued in or after the UTC hour of `since`, counted per hour and status. */
  runsPerHour(since: string): HourCount[];
  /**
   * tokens_in + tokens_out of runs queued in or after the UTC hour of `since`, per hour and
   * class (a run's tokens count in the hour it was queued).
   */
  tokensPerHour(since: string): HourCount[];
  /** Usage of runs queued on or after UTC day `day` ("2026-03-02"): one job's, or all. */
  usageSince(day: string, jobId?: number): UsageTotals;
  /**
   * Usage per job of `jobIds` for each window starting on a UTC day of `days`, in that order;
   * jobs without runs since the earliest day are absent.
   */
  usageByJob(days: readonly string[], jobIds: readonly number[]): Map<number, UsageTotals[]>;
  /** The outpost's usage per UTC day or hour from `since` (ISO-Z), oldest first, no empties. */
  usageBuckets(unit: "day" | "hour", since: string): UsageBucket[];
  /** Sum of tokens_in + tokens_out of a class's runs finished at or after `since`. */
  tokensSince(cls: JobClass, since: string): number;

  // Retention (core/scheduler/retention.ts). Each call deletes at most `limit` rows in one
  // short transaction, oldest first, so a caller can yield between chunks.
  /**
   * Deletes runs finished before `before`, except: queued and running runs, each job's
   * latest run, runs with an open inbox item, and runs that a queued or running resume
   * continues. Their closed inbox items go with them.
   */
  pruneRuns(before: string, limit: number): Pruned;
  /**
   * Deletes finished one-shot jobs whole (runs and inbox items cascade): schedule kind `at`
   * with nothing left to fire (next_run_at null), at least one run, none queued or running,
   * no open inbox item, and no change or finished run at or after `before`.
   */
  pruneOneShots(before: string, limit: number): Pruned;
  /** Deletes audit rows written before `before`; returns how many. */
  pruneAudit(before: string, limit: number): number;

  // Inbox
  createInboxItem(item: NewInboxItem): InboxItem;
  getInboxItem(id: number): InboxItem | null;
  listInbox(options?: ListOptions & { state?: InboxState }): InboxItem[];
  countInbox(state: InboxState): number;
  /** Open item → answered (hold cleared). Throws InboxStateError unless open. */
  answerInbox(id: number, answer: string, via: string): InboxItem;
  /** Open item → dismissed (hold cleared). Throws InboxStateError unless open. */
  dismissInbox(id: number, via: string): InboxItem;
  /** Sets (replace semantics) or clears the hold of an open item. Throws InboxStateError. */
  setHold(id: number, heldJson: string | null): InboxItem;

  // Audit (best effort: appendAudit never throws)
  appendAudit(row: NewAuditRow): AuditRow | null;
  /** Newest first; each filter is an exact match served by its own index (migration 004). */
  listAudit(options?: ListOptions & AuditFilter): AuditRow[];

  // Push subscriptions
  upsertPushSubscription(
    sub: { endpoint: string; keys: { p256dh: string; auth: string } },
  ): PushSubscription;
  listPushSubscriptions(): PushSubscription[];
  deletePushSubscription(endpoint: string): boolean;
  recordPushResult(endpoint: string, ok: boolean): void;

  // Trigger-bound recipes (core/store/triggers.ts)
  readonly triggers: TriggerStore;

  // Machine-door tokens (only hashes are stored)
  createMachineToken(name: string, tokenHash: string): MachineToken;
  listMachineTokens(): MachineToken[];
  revokeMachineToken(id: number): MachineToken;
  /** The live (unrevoked) token with this hash, stamping last_used_at; null otherwise. */
  verifyMachineToken(tokenHash: string): MachineToken | null;

  close(): void;
}
