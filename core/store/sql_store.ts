// The Store's logic over a SQL connection (sql_connection.ts): the same statements serve the
// embedded SQLite file (sqlite_store.ts) and a shared PostgreSQL (pg/pg_store.ts). Each public
// method is one atomic step; multi-statement ones run in a transaction.

import type { Clock } from "../ports.ts";
import { isoZ } from "../time.ts";
import { JobLimitError, MAX_JOBS, NotFoundError } from "./errors.ts";
import type { Row, SqlConnection, SqlStatement, SqlValue } from "./sql_connection.ts";
import * as inbox from "./sql_inbox.ts";
import * as retention from "./sql_retention.ts";
import * as small from "./sql_push_tokens.ts";
import * as history from "./sqlite_history.ts";
import * as jobQueries from "./sql_jobs.ts";
import * as usage from "./sqlite_usage.ts";
import { SqliteTriggerStore } from "./sqlite_triggers.ts";
import { SqlTransactions } from "./sql_transactions.ts";
import {
  INSERT_RUNS_MAX,
  insertRunsSql,
  JOB_PLAIN_COLUMNS,
  limitOf,
  pickColumns,
  plain,
  RUN_COLUMNS,
  RUN_PATCH_COLUMNS,
  toInboxItem,
  toJob,
  toRun,
} from "./sqlite_rows.ts";
import type {
  AuditFilter,
  AuditRow,
  DueCursor,
  HourCount,
  InboxItem,
  InboxState,
  Job,
  JobClass,
  JobPatch,
  JobWithLatestRun,
  ListOptions,
  MachineToken,
  NewAuditRow,
  NewInboxItem,
  NewJob,
  NewRun,
  Pruned,
  PushSubscription,
  Run,
  RunFilter,
  RunPatch,
  RunStatus,
  Store,
  UsageBucket,
  UsageTotals,
} from "./store.ts";

/** The condition of the live-run partial indexes (migration 001). */
const LIVE = "status IN ('queued', 'running')";
export interface SqlStoreOptions {
  clock: Clock;
  maxJobs?: number;
}

export class SqlStore implements Store {
  readonly #db: SqlConnection;
  /** Trigger rows and accepted delivery ids (trigger-bound recipes), on this connection. */
  readonly triggers: SqliteTriggerStore;
  readonly #clock: Clock;
  readonly #maxJobs: number;
  readonly #statements = new Map<string, SqlStatement>();
  readonly #transactions: SqlTransactions;
  #nowMs = NaN;
  #nowText = "";

  /** Takes a migrated connection and owns it from here (close() closes it). */
  constructor(db: SqlConnection, options: SqlStoreOptions) {
    this.#db = db;
    this.#clock = options.clock;
    this.#maxJobs = options.maxJobs ?? MAX_JOBS;
    this.triggers = new SqliteTriggerStore(db, () => this.#now());
    this.#transactions = new SqlTransactions(db, this.#prepare);
  }

  close(): void {
    this.#statements.clear();
    if (this.#db.isOpen) this.#db.close();
  }

  // ---- jobs ----

  createJob(job: NewJob): Job {
    return this.#tx(() => {
      // Every job counts, whichever door made it: the cap is what keeps the store (and the
      // pages that list it) bounded. Finished one-shots leave through the retention sweep.
      if (this.countJobs() >= this.#maxJobs) {
        throw new JobLimitError(this.#maxJobs);
      }
      const now = this.#now();
      const row: Row = {
        ...pickColumns(job, JOB_PLAIN_COLUMNS),
        failure_count: job.failure_count ?? 0,
        disabled_reason: job.disabled_reason ?? null,
        dead_letter_reason: null,
        schedule_kind: job.schedule.kind,
        schedule_expr: job.schedule.expr,
        schedule_tz: job.schedule.tz,
        enabled: job.enabled ? 1 : 0,
        meta: JSON.stringify(job.meta ?? {}),
        created_at: now,
        updated_at: now,
      };
      return toJob(this.#insert("jobs", row));
    });
  }

  getJob(id: number): Job | null {
    const row = this.#stmt("SELECT * FROM jobs WHERE id = ?").get(id) as Row | undefined;
    return row ? toJob(row) : null;
  }

  listJobs(options: ListOptions = {}): JobWithLatestRun[] {
    return jobQueries.listJobs(this.#prepare, options);
  }

  jobNames(): Map<number, string> {
    return jobQueries.jobNames(this.#prepare);
  }

  countJobs(cls?: JobClass): number {
    return jobQueries.countJobs(this.#prepare, cls);
  }

  updateJob(id: number, patch: JobPatch): Job {
    const row: Row = pickColumns(patch, JOB_PLAIN_COLUMNS);
    if (patch.schedule !== undefined) {
      row.schedule_kind = patch.schedule.kind;
      row.schedule_expr = patch.schedule.expr;
      row.schedule_tz = patch.schedule.tz;
    }
    if (patch.enabled !== undefined) row.enabled = patch.enabled ? 1 : 0;
    if (patch.meta !== undefined) row.meta = JSON.stringify(patch.meta);
    row.updated_at = this.#now();
    const updated = this.#update("jobs", id, row);
    if (!updated) throw new NotFoundError("job", id);
    return toJob(updated);
  }

  deleteJob(id: number): boolean {
    // Runs and inbox items cascade (foreign keys); report files are left on disk.
    return Number(this.#stmt("DELETE FROM jobs WHERE id = ?").run(id).changes) > 0;
  }

  dueJobs(at: string): Job[] {
    return jobQueries.dueJobs(this.#prepare, at);
  }

  lockDueJobs(at: string, limit: number, after: DueCursor | null): Job[] {
    const locks = this.#db.dialect === "postgres" && this.#transactions.onRows;
    return jobQueries.dueJobsPage(this.#prepare, at, limit, after, locks);
  }

  nextSlotAfter(at: string): string | null {
    return jobQueries.nextSlotAfter(this.#prepare, at);
  }

  setNextRunAt(id: number, next: string | null): void {
    this.#stmt("UPDATE jobs SET next_run_at = ?, updated_at = ? WHERE id = ?").run(
      next,
      this.#now(),
      id,
    );
  }

  // ---- runs ----

  createRun(run: NewRun): Run {
    return this.createRuns([run])[0]!;
  }

  createRuns(runs: readonly NewRun[]): Run[] {
    if (this.#transactions.onRows) this.#db.lockRunRollups();
    // Every run column is named (absent ones as NULL), so one prepared statement per row
    // count serves every insert and the stored rows are known without reading them back:
    // the scheduler's hottest write (~45,000 skip rows in the 30-day simulation). Over
    // INSERT_RUNS_MAX rows: the statements land together or not at all.
    if (runs.length > INSERT_RUNS_MAX) return this.atomically(() => this.#insertRuns(runs));
    return this.#insertRuns(runs);
  }

  #insertRuns(runs: readonly NewRun[]): Run[] {
    const out: Run[] = [];
    for (let at = 0; at < runs.length; at += INSERT_RUNS_MAX) {
      const chunk = runs.slice(at, at + INSERT_RUNS_MAX);
      const rows: Row[] = [];
      const values: SqlValue[] = [];
      for (const run of chunk) {
        const row: Row = { id: 0 };
        for (const col of RUN_COLUMNS) row[col] = (run as Row)[col] ?? null;
        row.queued_at ??= this.#now();
        for (const col of RUN_COLUMNS) values.push(row[col]!);
        rows.push(row);
      }
      const ids = this.#insertRunIds(chunk.length, values);
      rows.forEach((row, i) => {
        row.id = ids(i);
        out.push(toRun(row));
      });
    }
    return out;
  }

  /** Inserts `n` runs' values; returns the id of the i-th row. */
  #insertRunIds(n: number, values: SqlValue[]): (i: number) => number {
    if (this.#db.dialect === "postgres") {
      // Other nodes draw from the same sequence at the same time: ids need not be
      // consecutive, so they are read back (in VALUES order, as PostgreSQL returns them).
      const ids = this.#stmt(`${insertRunsSql(n)} RETURNING id`).all(...values);
      return (i) => Number(ids[i]!.id);
    }
    const result = this.#stmt(insertRunsSql(n)).run(...values);
    // One VALUES list on an AUTOINCREMENT table takes consecutive rowids in list order
    // (this connection holds the write lock for the statement), ending at lastInsertRowid.
    const last = Number(result.lastInsertRowid);
    return (i) => last - (n - 1 - i);
  }

  getRun(id: number): Run | null {
    const row = this.#stmt("SELECT * FROM runs WHERE id = ?").get(id) as Row | undefined;
    return row ? toRun(row) : null;
  }

  updateRun(id: number, patch: RunPatch): Run {
    if (this.#transactions.onRows) this.#db.lockRunRollups();
    const row = pickColumns(patch, RUN_PATCH_COLUMNS);
    if (Object.keys(row).length === 0) {
      const run = this.getRun(id);
      if (!run) throw new NotFoundError("run", id);
      return run;
    }
    const updated = this.#update("runs", id, row);
    if (!updated) throw new NotFoundError("run", id);
    return toRun(updated);
  }

  listRuns(jobId: number, options: ListOptions = {}): Run[] {
    return this.#stmt(
      `SELECT * FROM runs WHERE job_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
    ).all(jobId, options.before_id ?? Number.MAX_SAFE_INTEGER, limitOf(options)).map(toRun);
  }

  latestAttempt(jobId: number): Run | null {
    const row = this.#stmt(
      `SELECT * FROM runs WHERE job_id = ? AND status NOT IN ('skipped', 'skipped_drift')
        ORDER BY id DESC LIMIT 1`,
    ).get(jobId) as Row | undefined;
    return row ? toRun(row) : null;
  }

  latestRun(jobId: number): Run | null {
    const row = this.#stmt("SELECT * FROM runs WHERE job_id = ? ORDER BY id DESC LIMIT 1")
      .get(jobId) as Row | undefined;
    return row ? toRun(row) : null;
  }

  inFlightRun(jobId: number): Run | null {
    const row = this.#stmt(
      `SELECT * FROM runs WHERE ${LIVE} AND job_id = ?
        ORDER BY id DESC LIMIT 1`,
    ).get(jobId) as Row | undefined;
    return row ? toRun(row) : null;
  }

  runsWithStatus(status: RunStatus): Run[] {
    // The live-run partial index only serves queries that repeat its condition.
    const sql = status === "queued" || status === "running"
      ? `SELECT * FROM runs WHERE ${LIVE} AND status = ? ORDER BY id`
      : "SELECT * FROM runs WHERE status = ? ORDER BY id";
    return this.#stmt(sql).all(status).map(toRun);
  }

  queuedRuns(): Run[] {
    return this.#stmt(
      `SELECT * FROM runs WHERE ${LIVE} AND status = 'queued' ORDER BY priority, queued_at, id`,
    ).all().map(toRun);
  }

  countQueued(): number {
    const sql = `SELECT COUNT(*) AS n FROM runs WHERE ${LIVE} AND status = 'queued'`;
    return (this.#stmt(sql).get() as { n: number }).n;
  }

  listRunHistory(filter: RunFilter, options: ListOptions = {}): Run[] {
    return history.listRunHistory(this.#prepare, filter, options);
  }

  runsPerHour(since: string): HourCount[] {
    return history.runsPerHour(this.#prepare, since);
  }

  tokensPerHour(since: string): HourCount[] {
    return history.tokensPerHour(this.#prepare, since);
  }

  usageSince(day: string, jobId?: number): UsageTotals {
    return usage.usageSince(this.#prepare, day, jobId);
  }

  usageByJob(days: readonly string[], jobIds: readonly number[]): Map<number, UsageTotals[]> {
    return usage.usageByJob(this.#prepare, days, jobIds);
  }

  usageBuckets(unit: "day" | "hour", since: string): UsageBucket[] {
    return usage.usageBuckets(this.#prepare, unit, since);
  }

  tokensSince(cls: JobClass, since: string): number {
    return history.tokensSince(this.#prepare, cls, since);
  }

  // ---- retention ----

  pruneRuns(before: string, limit: number): Pruned {
    return this.#tx(() => retention.pruneRuns(this.#prepare, before, limit));
  }

  pruneOneShots(before: string, limit: number): Pruned {
    return this.#tx(() => retention.pruneOneShots(this.#prepare, before, limit));
  }

  pruneAudit(before: string, limit: number): number {
    return this.#tx(() => retention.pruneAudit(this.#prepare, before, limit));
  }

  // ---- inbox ----

  createInboxItem(item: NewInboxItem): InboxItem {
    return toInboxItem(this.#insert("inbox_items", {
      job_id: item.job_id,
      run_id: item.run_id,
      questions: JSON.stringify(item.questions),
      state: "open",
      meta: JSON.stringify(item.meta),
      created_at: this.#now(),
    }));
  }

  getInboxItem(id: number): InboxItem | null {
    return inbox.getInboxItem(this.#prepare, id);
  }

  listInbox(options: ListOptions & { state?: InboxState } = {}): InboxItem[] {
    return inbox.listInbox(this.#prepare, options);
  }

  countInbox(state: InboxState): number {
    return inbox.countInbox(this.#prepare, state);
  }

  answerInbox(id: number, answer: string, via: string): InboxItem {
    return this.#tx(() =>
      inbox.closeInbox(this.#prepare, this.#now(), id, "answered", answer, via)
    );
  }

  dismissInbox(id: number, via: string): InboxItem {
    return this.#tx(() => inbox.closeInbox(this.#prepare, this.#now(), id, "dismissed", null, via));
  }

  setHold(id: number, heldJson: string | null): InboxItem {
    return this.#tx(() => inbox.setHold(this.#prepare, id, heldJson));
  }

  // ---- audit ----

  appendAudit(row: NewAuditRow): AuditRow | null {
    const append = () =>
      plain<AuditRow>(this.#insert("audit", {
        at: row.at ?? this.#now(),
        action: row.action,
        target: row.target,
        actor: row.actor,
        channel: row.channel,
        detail: row.detail,
      }));
    try {
      // PostgreSQL aborts a transaction on any failed statement: a savepoint keeps the caller's.
      const guarded = this.#db.dialect === "postgres" && this.#db.isTransaction;
      return guarded ? this.atomically(append) : append();
    } catch {
      return null; // best effort: an audit failure never breaks the operation (spec 2.9)
    }
  }

  listAudit(options: ListOptions & AuditFilter = {}): AuditRow[] {
    return history.listAudit(this.#prepare, options);
  }

  // ---- push subscriptions ----

  upsertPushSubscription(
    sub: { endpoint: string; keys: { p256dh: string; auth: string } },
  ): PushSubscription {
    return small.upsertPushSubscription(this.#prepare, this.#now(), sub);
  }

  listPushSubscriptions(): PushSubscription[] {
    return small.listPushSubscriptions(this.#prepare);
  }

  deletePushSubscription(endpoint: string): boolean {
    return small.deletePushSubscription(this.#prepare, endpoint);
  }

  recordPushResult(endpoint: string, ok: boolean): void {
    small.recordPushResult(this.#prepare, this.#now(), endpoint, ok);
  }

  // ---- machine-door tokens ----

  createMachineToken(name: string, tokenHash: string): MachineToken {
    return plain<MachineToken>(this.#insert("machine_tokens", {
      name,
      token_hash: tokenHash,
      created_at: this.#now(),
    }));
  }

  listMachineTokens(): MachineToken[] {
    return small.listMachineTokens(this.#prepare);
  }

  revokeMachineToken(id: number): MachineToken {
    return small.revokeMachineToken(this.#prepare, this.#now(), id);
  }

  verifyMachineToken(tokenHash: string): MachineToken | null {
    return small.verifyMachineToken(this.#prepare, this.#now(), tokenHash);
  }

  // ---- plumbing ----

  #now(): string {
    // Many writes share one instant (a tick's fires); format it once.
    const ms = this.#clock.now().getTime();
    if (ms !== this.#nowMs) {
      this.#nowMs = ms;
      this.#nowText = isoZ(new Date(ms));
    }
    return this.#nowText;
  }

  /** #stmt as a function value, for the query helpers (sqlite_history.ts, sql_*.ts). */
  readonly #prepare = (sql: string): SqlStatement => this.#stmt(sql);

  #stmt(sql: string): SqlStatement {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /** Inserts and returns the stored row (one statement, RETURNING). */
  #insert(table: string, row: Row): Row {
    const cols = Object.keys(row);
    const sql = `INSERT INTO ${table} (${cols.join(", ")}) VALUES (${
      cols.map(() => "?").join(", ")
    }) RETURNING *`;
    return this.#stmt(sql).get(...cols.map((c) => row[c] ?? null)) as Row;
  }

  /** Updates by id and returns the new row, or undefined when there is no such id. */
  #update(table: string, id: number, row: Row): Row | undefined {
    const cols = Object.keys(row);
    const sql = `UPDATE ${table} SET ${
      cols.map((c) => `${c} = ?`).join(", ")
    } WHERE id = ? RETURNING *`;
    return this.#stmt(sql).get(...cols.map((c) => row[c] ?? null), id) as Row | undefined;
  }

  atomically<T>(fn: () => T): T {
    return this.#transactions.atomically(fn);
  }

  atomicallyOnRows<T>(fn: () => T): T {
    return this.#transactions.atomicallyOnRows(fn);
  }

  #tx<T>(fn: () => T): T {
    return this.#transactions.tx(fn);
  }
}
