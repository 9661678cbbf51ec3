// A SqlConnection (core/store/sql_connection.ts) on a PostgreSQL server, synchronous like
// node:sqlite: each statement is posted to the worker that owns the client (pg_worker.ts) and
// the calling thread sleeps on a shared word until the reply is written. The store's logic,
// its check-then-act steps and its transactions stay exactly as they are on SQLite
// (core/store/README.md: "PostgreSQL: a synchronous bridge").

import type { SqlConnection, SqlRunResult, SqlStatement, SqlValue } from "../sql_connection.ts";
import type { Row } from "../sql_connection.ts";
import { StoreUnavailableError } from "../errors.ts";
import { toPostgres } from "./pg_dialect.ts";
import type { PgInit, PgReply, PgRequest } from "./pg_worker.ts";

/**
 * Key of the transaction-wide advisory lock every write transaction takes: SQLite's
 * `BEGIN IMMEDIATE` (one writer at a time) for the whole fleet, so check-then-act steps such
 * as single-flight and the job cap hold across nodes exactly as on one box.
 */
export const WRITE_LOCK_KEY = 7_201_032;

/**
 * Key of the lock transactions on rows (beginOnRows) take before writing runs: the rollup rows
 * their triggers update (run_hours, run_usage_hours: one row per hour) are every writer's, and
 * two such transactions taking them in different orders would deadlock. Queueing here first
 * turns that into a short wait; it is held to the commit, as the rollup rows' locks would be.
 * Advisory keys share one space, session locks and transaction locks alike: 7_201_032 the write
 * lock, 033 migrations and the fleet's schema, 034 the Matrix bot, 040 this, 041 the fleet cap.
 */
export const RUN_ROLLUP_LOCK_KEY = 7_201_040;

/** A statement failed, or the server could not be reached (`lost`: the session is gone). */
export class PgError extends Error {
  override readonly name = "PgError";
  readonly code: string;
  readonly lost: boolean;
  constructor(message: string, code: string, lost: boolean) {
    super(`PostgreSQL: ${message}${lost ? " (connection lost)" : ""}`);
    this.code = code;
    this.lost = lost;
  }
}

export interface PgConnectionOptions {
  url: string;
  /** Shown in pg_stat_activity: the node id. */
  application?: string;
  /** How long one statement may take before the store gives up on it. */
  timeoutMs?: number;
}

const decoder = new TextDecoder();

export class PgConnection implements SqlConnection {
  readonly dialect = "postgres";
  readonly #options: PgConnectionOptions;
  readonly #control = new SharedArrayBuffer(8);
  readonly #word = new Int32Array(this.#control);
  readonly #data = new SharedArrayBuffer(1 << 16, { maxByteLength: 1 << 30 });
  #worker: Worker | null = null;
  #transaction = false;
  /** The session dropped inside a transaction: nothing runs until the caller rolls back. */
  #broken = false;
  /** Statement timings for /metrics: count and total milliseconds. */
  readonly latency = { count: 0, totalMs: 0 };

  constructor(options: PgConnectionOptions) {
    this.#options = options;
    this.#start();
  }

  #start(): void {
    this.#worker = new Worker(new URL("./pg_worker.ts", import.meta.url).href, {
      type: "module",
    });
    const init: PgInit = {
      url: this.#options.url,
      control: this.#control,
      data: this.#data,
      application: this.#options.application ?? "agent-outpost",
    };
    this.#worker.postMessage(init);
  }

  get isTransaction(): boolean {
    return this.#transaction;
  }

  get isOpen(): boolean {
    return this.#worker !== null;
  }

  close(): void {
    this.#worker?.terminate();
    this.#worker = null;
  }

  prepare(sql: string): SqlStatement {
    const text = toPostgres(sql);
    const query = (params: SqlValue[]) => this.#query(text, params);
    return {
      get: (...params: SqlValue[]): Row | undefined => query(params).rows[0],
      all: (...params: SqlValue[]): Row[] => query(params).rows,
      run: (...params: SqlValue[]): SqlRunResult => ({
        changes: query(params).count,
        lastInsertRowid: 0,
      }),
    };
  }

  beginOnRows(): void {
    this.#send({
      kind: "exec",
      sql: `BEGIN; SELECT pg_advisory_xact_lock_shared(${WRITE_LOCK_KEY})`,
      params: [],
    });
    this.#transaction = true;
  }

  lockRunRollups(): void {
    // Taken again at each call, not remembered: one taken inside a savepoint that rolled back
    // was released with it. Taking it again in one transaction costs a round trip, no wait.
    if (!this.#transaction) return;
    this.#send({
      kind: "exec",
      sql: `SELECT pg_advisory_xact_lock(${RUN_ROLLUP_LOCK_KEY})`,
      params: [],
    });
  }

  exec(sql: string): void {
    const statement = sql.trim().toUpperCase();
    if (statement === "BEGIN IMMEDIATE" || statement === "BEGIN") {
      this.#send({
        kind: "exec",
        sql: `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`,
        params: [],
      });
      this.#transaction = true;
      return;
    }
    if (statement === "COMMIT" || statement === "ROLLBACK") {
      const wasBroken = this.#broken;
      this.#transaction = false;
      this.#broken = false;
      // After a lost session the server has rolled back already; COMMIT must not pretend.
      if (wasBroken && statement === "COMMIT") {
        throw new PgError("the transaction was lost with its connection", "08006", true);
      }
      if (!wasBroken) this.#send({ kind: "exec", sql, params: [] });
      return;
    }
    this.#send({ kind: "exec", sql, params: [] });
  }

  #query(sql: string, params: SqlValue[]): { rows: Row[]; count: number } {
    const reply = this.#send({
      kind: "query",
      sql,
      params: params.map((p) => typeof p === "bigint" ? String(p) : p),
    });
    return { rows: reply.rows as Row[], count: reply.count };
  }

  #send(request: PgRequest): Extract<PgReply, { ok: true }> {
    if (!this.#worker) throw new PgError("the store is closed", "CLOSED", false);
    if (this.#broken) {
      throw new PgError("the transaction was lost with its connection", "08006", true);
    }
    const started = performance.now();
    Atomics.store(this.#word, 0, 0);
    this.#worker.postMessage(request);
    const waited = Atomics.wait(this.#word, 0, 0, this.#options.timeoutMs ?? 30_000);
    this.latency.count++;
    this.latency.totalMs += performance.now() - started;
    if (waited === "timed-out") {
      // The reply may still come: a new worker (a new session) so it cannot be mistaken
      // for the next statement's. The old session's transaction dies with it.
      this.#worker.terminate();
      this.#start();
      this.#lose();
      throw new StoreUnavailableError(
        `PostgreSQL: no reply in ${this.#options.timeoutMs ?? 30_000} ms`,
      );
    }
    const length = Atomics.load(this.#word, 1);
    const reply = JSON.parse(
      decoder.decode(new Uint8Array(this.#data).slice(0, length)),
    ) as PgReply;
    if (reply.ok) return reply;
    if (reply.lost) {
      this.#lose();
      throw new StoreUnavailableError(`PostgreSQL: ${reply.message} (connection lost)`);
    }
    throw new PgError(reply.message, reply.code, false);
  }

  #lose(): void {
    if (this.#transaction) this.#broken = true;
  }
}
