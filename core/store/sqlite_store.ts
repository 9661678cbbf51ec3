// The Store on embedded SQLite (node:sqlite), WAL mode, migrated on open.
// Each public method is one atomic step; multi-statement ones run in a transaction.

import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { ensurePrivateFileSync, makePrivateDirSync, tightenFileSync } from "../private_files.ts";
import type { Clock } from "../ports.ts";
import { isoZ } from "../time.ts";
import {
  InboxStateError,
  JobLimitError,
  MAX_JOBS,
  NotFoundError,
  StoreOpenError,
} from "./errors.ts";
import { migrate, type Migration, MIGRATIONS } from "./migrations.ts";
import * as history from "./sqlite_history.ts";
import * as usage from "./sqlite_usage.ts";
import { SqliteTriggerStore } from "./sqlite_triggers.ts";
import {
  JOB_PLAIN_COLUMNS,
  limitOf,
  pickColumns,
  plain,
  type Row,
  RUN_COLUMNS,
  RUN_PATCH_COLUMNS,
  toInboxItem,
  toJob,
  toPush,
  toRun,
} from "./sqlite_rows.ts";
import type {
  AuditFilter,
  AuditRow,
  HourCount,
  InboxItem,
  InboxState,
  Job,
  JobClass,
  JobPatch,
  JobWithLatestRun,
  LatestRun,
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

export interface SqliteStoreOptions {
  /** Database file, or ":memory:". See `outpostDbPath`. */
  path: string;
  clock: Clock;
  /** Override for tests of the migration runner. */
  migrations?: readonly Migration[];
  maxJobs?: number;
}

/** The condition of the live-run partial indexes (migration 001). */
const LIVE = "status IN ('queued', 'running')";
/** Rows per multi-row run insert: 64 × 23 parameters, far below SQLite's 32,766. */
const INSERT_RUNS_MAX = 64;
const RUN_VALUES = `(${RUN_COLUMNS.map(() => "?").join(", ")})`;

const insertRunsText: string[] = [];

/** The insert of `n` runs (1..INSERT_RUNS_MAX; each count is prepared once and kept). */
function insertRunsSql(n: number): string {
  return insertRunsText[n] ??= `INSERT INTO runs (${RUN_COLUMNS.join(", ")}) VALUES ${
    Array.from({ length: n }, () => RUN_VALUES).join(", ")
  }`;
}

/** <home>/outpost/outpost.db — home defaults to ~/.agent and is passed by the caller. */
export function outpostDbPath(home: string): string {
  return join(home, "outpost", "outpost.db");
}

function reportsOf(rows: { report_path: string | null }[]): string[] {
  return rows.flatMap((r) => (r.report_path ? [r.report_path] : []));
}

export class SqliteStore implements Store {
  readonly path: string;
  readonly #db: DatabaseSync;
  /** Trigger rows and accepted delivery ids (trigger-bound recipes), on this connection. */
  readonly triggers: SqliteTriggerStore;
  readonly #clock: Clock;
  readonly #maxJobs: number;
  readonly #statements = new Map<string, StatementSync>();
  #savepoints = 0; // depth of nested atomically() calls
  #nowMs = NaN;
  #nowText = "";

  constructor(options: SqliteStoreOptions) {
    this.path = options.path;
    this.#clock = options.clock;
    this.#maxJobs = options.maxJobs ?? MAX_JOBS;
    let db: DatabaseSync;
    try {
      if (options.path !== ":memory:") {
        // Owner-only (core/private_files.ts): SQLite would create the database 0644, and
        // its -wal and -shm take the database file's mode.
        makePrivateDirSync(dirname(options.path));
        ensurePrivateFileSync(options.path);
        tightenFileSync(`${options.path}-wal`);
        tightenFileSync(`${options.path}-shm`);
      }
      db = new DatabaseSync(options.path);
      db.exec("PRAGMA busy_timeout = 5000");
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      db.exec("PRAGMA foreign_keys = ON");
    } catch (err) {
      throw new StoreOpenError(options.path, err);
    }
    try {
      migrate(db, options.path, this.#now(), options.migrations ?? MIGRATIONS);
    } catch (err) {
      db.close();
      throw err;
    }
    this.#db = db;
    this.triggers = new SqliteTriggerStore(db, () => this.#now());
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
    const rows = this.#stmt(
      `SELECT j.*, r.id AS lr_id, r.status AS lr_status, r.exit_code AS lr_exit_code,
              r.attempt AS lr_attempt, r.queued_at AS lr_queued_at, r.finished_at AS lr_finished_at
         FROM jobs j
         LEFT JOIN runs r ON r.id = (SELECT MAX(id) FROM runs WHERE job_id = j.id)
        WHERE j.id < ?
        ORDER BY j.id DESC LIMIT ?`,
    ).all(
      options.before_id ?? Number.MAX_SAFE_INTEGER,
      options.limit ?? Number.MAX_SAFE_INTEGER,
    ) as Row[];
    return rows.map((row) => {
      const latest: LatestRun | null = row.lr_id === null ? null : {
        id: row.lr_id as number,
        status: row.lr_status as RunStatus,
        exit_code: row.lr_exit_code as number | null,
        attempt: row.lr_attempt as number,
        queued_at: row.lr_queued_at as string,
        finished_at: row.lr_finished_at as string | null,
      };
      return { ...toJob(row), latest_run: latest };
    });
  }

  countJobs(cls?: JobClass): number {
    const row = cls === undefined
      ? this.#stmt("SELECT COUNT(*) AS n FROM jobs").get()
      : this.#stmt("SELECT COUNT(*) AS n FROM jobs WHERE class = ?").get(cls);
    return (row as { n: number }).n;
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
    const rows = this.#stmt(
      `SELECT * FROM jobs WHERE enabled = 1 AND next_run_at IS NOT NULL AND next_run_at <= ?
        ORDER BY next_run_at, id`,
    ).all(at) as Row[];
    return rows.map(toJob);
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
    // Every run column is named (absent ones as NULL, which is what the table would store
    // for them), so one prepared statement per row count serves every insert and the
    // stored rows are known without reading them back. This is the scheduler's hottest
    // write (a skipped run per blocked fire, ~45,000 in the 30-day simulation), and one
    // statement for a tick's rows costs about half as much per row as one per row.
    // More rows than one statement takes: the statements land together or not at all.
    if (runs.length > INSERT_RUNS_MAX) return this.atomically(() => this.#insertRuns(runs));
    return this.#insertRuns(runs);
  }

  #insertRuns(runs: readonly NewRun[]): Run[] {
    const out: Run[] = [];
    for (let at = 0; at < runs.length; at += INSERT_RUNS_MAX) {
      const chunk = runs.slice(at, at + INSERT_RUNS_MAX);
      const rows: Row[] = [];
      const values: SQLInputValue[] = [];
      for (const run of chunk) {
        const row: Row = { id: 0 };
        for (const col of RUN_COLUMNS) row[col] = (run as Row)[col] ?? null;
        row.queued_at ??= this.#now();
        for (const col of RUN_COLUMNS) values.push(row[col]!);
        rows.push(row);
      }
      const result = this.#stmt(insertRunsSql(chunk.length)).run(...values);
      // One VALUES list on an AUTOINCREMENT table takes consecutive rowids in list order
      // (this connection holds the write lock for the statement), ending at lastInsertRowid.
      const last = Number(result.lastInsertRowid);
      rows.forEach((row, i) => {
        row.id = last - (rows.length - 1 - i);
        out.push(toRun(row));
      });
    }
    return out;
  }

  getRun(id: number): Run | null {
    const row = this.#stmt("SELECT * FROM runs WHERE id = ?").get(id) as Row | undefined;
    return row ? toRun(row) : null;
  }

  updateRun(id: number, patch: RunPatch): Run {
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
    return (this.#stmt(`SELECT COUNT(*) AS n FROM runs WHERE ${LIVE} AND status = 'queued'`)
      .get() as {
        n: number;
      }).n;
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
    const row = this.#stmt(
      `SELECT COALESCE(SUM(COALESCE(tokens_in, 0) + COALESCE(tokens_out, 0)), 0) AS n
         FROM runs WHERE class = ? AND finished_at >= ?
          AND (tokens_in IS NOT NULL OR tokens_out IS NOT NULL)`,
    ).get(cls, since) as { n: number };
    return row.n;
  }

  // ---- retention ----

  pruneRuns(before: string, limit: number): Pruned {
    return this.#tx(() => {
      // runs_finished serves the range; each exception is an index probe per candidate.
      const rows = this.#stmt(
        `SELECT r.id, r.report_path FROM runs r
          WHERE r.finished_at IS NOT NULL AND r.finished_at < ?
            AND r.status NOT IN ('queued', 'running')
            AND r.id < (SELECT MAX(l.id) FROM runs l WHERE l.job_id = r.job_id)
            AND NOT EXISTS (SELECT 1 FROM inbox_items i WHERE i.run_id = r.id AND i.state = 'open')
            AND r.id NOT IN (SELECT q.resume_of_run FROM runs q
                              WHERE ${LIVE} AND q.resume_of_run IS NOT NULL)
          ORDER BY r.finished_at LIMIT ?`,
      ).all(before, limitOf({ limit })) as { id: number; report_path: string | null }[];
      const remove = this.#stmt("DELETE FROM runs WHERE id = ?");
      for (const row of rows) remove.run(row.id);
      return { jobs: 0, runs: rows.length, reports: reportsOf(rows) };
    });
  }

  pruneOneShots(before: string, limit: number): Pruned {
    return this.#tx(() => {
      const jobs = this.#stmt(
        `SELECT j.id FROM jobs j
          WHERE j.schedule_kind = 'at' AND j.next_run_at IS NULL AND j.updated_at < ?
            AND EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id)
            AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.job_id = j.id
                             AND (r.finished_at IS NULL OR r.finished_at >= ?
                                  OR r.status IN ('queued', 'running')))
            AND NOT EXISTS (SELECT 1 FROM inbox_items i WHERE i.job_id = j.id AND i.state = 'open')
          ORDER BY j.id LIMIT ?`,
      ).all(before, before, limitOf({ limit })) as { id: number }[];
      const runsOf = this.#stmt("SELECT report_path FROM runs WHERE job_id = ?");
      const remove = this.#stmt("DELETE FROM jobs WHERE id = ?");
      let runs = 0;
      const reports: string[] = [];
      for (const { id } of jobs) {
        const rows = runsOf.all(id) as { report_path: string | null }[];
        runs += rows.length;
        reports.push(...reportsOf(rows));
        remove.run(id); // runs and inbox items cascade
      }
      return { jobs: jobs.length, runs, reports };
    });
  }

  pruneAudit(before: string, limit: number): number {
    return this.#tx(() =>
      Number(
        this.#stmt(
          `DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE at < ? ORDER BY at LIMIT ?)`,
        ).run(before, limitOf({ limit })).changes,
      )
    );
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
    const row = this.#stmt("SELECT * FROM inbox_items WHERE id = ?").get(id) as Row | undefined;
    return row ? toInboxItem(row) : null;
  }

  listInbox(options: ListOptions & { state?: InboxState } = {}): InboxItem[] {
    const before = options.before_id ?? Number.MAX_SAFE_INTEGER;
    const rows = options.state === undefined
      ? this.#stmt("SELECT * FROM inbox_items WHERE id < ? ORDER BY id DESC LIMIT ?")
        .all(before, limitOf(options))
      : this.#stmt("SELECT * FROM inbox_items WHERE state = ? AND id < ? ORDER BY id DESC LIMIT ?")
        .all(options.state, before, limitOf(options));
    return (rows as Row[]).map(toInboxItem);
  }

  countInbox(state: InboxState): number {
    return (this.#stmt("SELECT COUNT(*) AS n FROM inbox_items WHERE state = ?").get(state) as {
      n: number;
    }).n;
  }

  answerInbox(id: number, answer: string, via: string): InboxItem {
    return this.#closeInbox(id, "answered", answer, via);
  }

  dismissInbox(id: number, via: string): InboxItem {
    return this.#closeInbox(id, "dismissed", null, via);
  }

  setHold(id: number, heldJson: string | null): InboxItem {
    return this.#tx(() => {
      const item = this.#openItem(id, heldJson === null ? "unheld" : "held");
      this.#stmt("UPDATE inbox_items SET held_json = ? WHERE id = ?").run(heldJson, item.id);
      return this.getInboxItem(id)!;
    });
  }

  #closeInbox(id: number, state: InboxState, answer: string | null, via: string): InboxItem {
    return this.#tx(() => {
      this.#openItem(id, state);
      this.#stmt(
        `UPDATE inbox_items SET state = ?, answer = ?, answered_via = ?, answered_at = ?,
                held_json = NULL WHERE id = ?`,
      ).run(state, answer, via, this.#now(), id);
      return this.getInboxItem(id)!;
    });
  }

  #openItem(id: number, action: string): InboxItem {
    const item = this.getInboxItem(id);
    if (!item) throw new NotFoundError("inbox item", id);
    if (item.state !== "open") throw new InboxStateError(id, item.state, action);
    return item;
  }

  // ---- audit ----

  appendAudit(row: NewAuditRow): AuditRow | null {
    try {
      return plain<AuditRow>(this.#insert("audit", {
        at: row.at ?? this.#now(),
        action: row.action,
        target: row.target,
        actor: row.actor,
        channel: row.channel,
        detail: row.detail,
      }));
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
    this.#stmt(
      `INSERT INTO push_subscriptions (endpoint, p256dh, auth, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (endpoint) DO UPDATE SET p256dh = excluded.p256dh, auth = excluded.auth,
         failure_count = 0`,
    ).run(sub.endpoint, sub.keys.p256dh, sub.keys.auth, this.#now());
    return toPush(
      this.#stmt("SELECT * FROM push_subscriptions WHERE endpoint = ?").get(sub.endpoint) as Row,
    );
  }

  listPushSubscriptions(): PushSubscription[] {
    return (this.#stmt("SELECT * FROM push_subscriptions ORDER BY created_at, endpoint")
      .all() as Row[])
      .map(toPush);
  }

  deletePushSubscription(endpoint: string): boolean {
    return Number(
      this.#stmt("DELETE FROM push_subscriptions WHERE endpoint = ?").run(endpoint).changes,
    ) > 0;
  }

  recordPushResult(endpoint: string, ok: boolean): void {
    if (ok) {
      this.#stmt(
        "UPDATE push_subscriptions SET last_success_at = ?, failure_count = 0 WHERE endpoint = ?",
      ).run(this.#now(), endpoint);
    } else {
      this.#stmt(
        "UPDATE push_subscriptions SET failure_count = failure_count + 1 WHERE endpoint = ?",
      ).run(endpoint);
    }
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
    return this.#stmt("SELECT * FROM machine_tokens ORDER BY id").all().map(plain<MachineToken>);
  }

  revokeMachineToken(id: number): MachineToken {
    this.#stmt("UPDATE machine_tokens SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?")
      .run(this.#now(), id);
    const token = this.#token(id);
    if (!token) throw new NotFoundError("machine token", id);
    return token;
  }

  verifyMachineToken(tokenHash: string): MachineToken | null {
    const row = this.#stmt(
      "SELECT id FROM machine_tokens WHERE token_hash = ? AND revoked_at IS NULL",
    ).get(tokenHash) as { id: number } | undefined;
    if (!row) return null;
    this.#stmt("UPDATE machine_tokens SET last_used_at = ? WHERE id = ?").run(this.#now(), row.id);
    return this.#token(row.id);
  }

  #token(id: number): MachineToken | null {
    const row = this.#stmt("SELECT * FROM machine_tokens WHERE id = ?").get(id);
    return row ? plain<MachineToken>(row) : null;
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

  /** #stmt as a function value, for the query helpers of sqlite_history.ts. */
  readonly #prepare = (sql: string): StatementSync => this.#stmt(sql);

  #stmt(sql: string): StatementSync {
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
    if (!this.#db.isTransaction) return this.#tx(fn);
    // Nested: a savepoint, so an inner failure rolls back only the inner writes.
    const name = `nested_${++this.#savepoints}`;
    // Prepared once per depth: exec() would parse the SQL on every fire of every tick.
    this.#stmt(`SAVEPOINT ${name}`).run();
    try {
      const result = fn();
      this.#stmt(`RELEASE ${name}`).run();
      return result;
    } catch (err) {
      this.#stmt(`ROLLBACK TO ${name}`).run();
      this.#stmt(`RELEASE ${name}`).run();
      throw err;
    } finally {
      this.#savepoints--;
    }
  }

  #tx<T>(fn: () => T): T {
    if (this.#db.isTransaction) return fn();
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const result = fn();
      this.#db.exec("COMMIT");
      return result;
    } catch (err) {
      this.#db.exec("ROLLBACK");
      throw err;
    }
  }
}
