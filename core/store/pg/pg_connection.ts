// A SqlConnection (core/store/sql_connection.ts) on a PostgreSQL server, synchronous like
// node:sqlite: each statement is posted to the worker that owns the client (pg_worker.ts) and
// the calling thread sleeps on a shared word until the reply is written. The store's logic,
// its check-then-act steps and its transactions stay exactly as they are on SQLite
// (core/store/README.md: "PostgreSQL: a synchronous bridge").

import type { SqlConnection, SqlRunResult, SqlStatement, SqlValue } from "../sql_connection.ts";
import type { Row } from "../sql_connection.ts";
import { CommitUnknownError, StoreUnavailableError } from "../errors.ts";
import { Reconnect, sleepSync } from "./pg_reconnect.ts";
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

/** Key of the session lock held while schema changes: the migrations and the fleet's tables. */
export const SCHEMA_LOCK_KEY = 7_201_033;

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
  /**
   * How long a lost server may take to answer again while a statement or transaction waits
   * to be tried again (default: timeoutMs). Counted from the first failure of an outage.
   */
  retryWithinMs?: number;
}

const decoder = new TextDecoder();
/** Runs of one transaction, the first included, before a lost session is an error. */
const MAX_ATTEMPTS = 5;

export class PgConnection implements SqlConnection {
  readonly dialect = "postgres";
  readonly #options: PgConnectionOptions;
  readonly #control = new SharedArrayBuffer(8);
  readonly #word = new Int32Array(this.#control);
  readonly #data = new SharedArrayBuffer(1 << 16, { maxByteLength: 1 << 30 });
  #worker: Worker | null = null;
  #transaction = false;
  /**
   * The open transaction's session is gone (lost: maybe mid-statement; unsent: the request
   * never left; timeout: no reply): nothing runs until the caller rolls back.
   */
  #broken: "lost" | "unsent" | "timeout" | null = null;
  /** The transaction that just failed may run again (retryTransaction). */
  #mayRunAgain = false;
  /** The worker's session number that began the open transaction. */
  #txSession: number | undefined;
  /** Waiting for a lost server: reconnect.ts (retries before COMMIT, a lost COMMIT). */
  readonly #reconnect: Reconnect;
  /** Statement timings for /metrics: count and total milliseconds. */
  readonly latency = { count: 0, totalMs: 0 };

  constructor(options: PgConnectionOptions) {
    this.#options = options;
    this.#reconnect = new Reconnect(options.retryWithinMs ?? options.timeoutMs ?? 30_000);
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
    this.#begin(`BEGIN; SELECT pg_advisory_xact_lock_shared(${WRITE_LOCK_KEY})`);
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
      this.#begin(`BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK_KEY})`);
      return;
    }
    if (statement === "COMMIT") return this.#commit();
    if (statement === "ROLLBACK") return this.#rollback();
    this.#send({ kind: "exec", sql, params: [] });
  }

  /**
   * After a transaction failed with `err`: returns when it may run again, or throws. It may
   * when its session was lost before COMMIT was sent (the server rolled it back, so nothing
   * of it was kept) and the server answers again within the bound; see core/store/README.md
   * ("A lost server") for why this is safe and what the transaction's fn must respect.
   */
  retryTransaction(err: unknown, attempt: number): void {
    if (!this.#mayRunAgain) throw err;
    this.#mayRunAgain = false;
    if (attempt >= MAX_ATTEMPTS) {
      // A server that answers BEGIN and then loses every session (a statement that crashes
      // its backend) would otherwise be tried forever: the outage bound restarts each time.
      throw new StoreUnavailableError(
        `PostgreSQL: the transaction lost its session ${attempt} times in a row; given up`,
        { cause: err },
      );
    }
    if (!this.#reconnect.waitAgain()) {
      throw new StoreUnavailableError(
        `${this.#reconnect.gaveUp()}; the transaction was rolled back`,
        { cause: err },
      );
    }
  }

  #begin(sql: string): void {
    this.#mayRunAgain = false;
    try {
      const reply = this.#send({ kind: "exec", sql, params: [] }, "begin");
      this.#txSession = reply.session;
      this.#transaction = true;
    } catch (err) {
      if (err instanceof StoreUnavailableError) this.#mayRunAgain = true;
      throw err;
    }
  }

  /**
   * COMMIT, settled when its reply is lost: the transaction's id is read first, and after a
   * lost reply the server is asked whether that transaction committed (pg_xact_status), so
   * a commit is neither repeated nor reported lost when it was kept.
   */
  #commit(): void {
    if (this.#broken !== null) {
      this.#mayRunAgain = this.#broken !== "timeout"; // lost or unsent: rolled back
      this.#end();
      throw new StoreUnavailableError(
        "PostgreSQL: the transaction was lost with its connection before COMMIT; " +
          "nothing of it was kept",
      );
    }
    if (!this.#transaction) return; // as on SQLite: nothing open, nothing to commit
    const row = this.#query("SELECT pg_current_xact_id_if_assigned()::text AS xid", []).rows[0];
    const xid = (row?.xid ?? null) as string | null;
    try {
      this.#send({ kind: "exec", sql: "COMMIT", params: [] }, "end");
      this.#end();
    } catch (err) {
      const unsent = this.#broken === "unsent";
      this.#end();
      if (!(err instanceof StoreUnavailableError)) throw err;
      if (unsent) {
        this.#mayRunAgain = true; // COMMIT never left: the server rolled the session back
        throw err;
      }
      if (xid !== null) this.#settleCommit(xid, err);
      // No id: the transaction wrote nothing, so whether it committed changes nothing.
    }
  }

  /** Returns when transaction `xid` committed; throws when it did not or nobody can say. */
  #settleCommit(xid: string, lostReply: StoreUnavailableError): void {
    const until = performance.now() + this.#reconnect.boundMs;
    for (;;) {
      let status: string | null;
      try {
        const row = this.#query("SELECT pg_xact_status($1::xid8) AS status", [xid]).rows[0];
        status = (row?.status ?? null) as string | null;
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new CommitUnknownError(xid, `asking failed: ${why}`, { cause: err });
      }
      if (status === "committed") return;
      if (status === "aborted") {
        this.#mayRunAgain = true;
        throw new StoreUnavailableError(
          `PostgreSQL: the reply to COMMIT was lost and transaction ${xid} was rolled back`,
          { cause: lostReply },
        );
      }
      // In progress (its old session is still finishing) or forgotten: ask again, bounded.
      if (status !== "in progress" || performance.now() >= until) {
        throw new CommitUnknownError(xid, `its status is ${status ?? "unknown"}`, {
          cause: lostReply,
        });
      }
      sleepSync(100);
    }
  }

  #rollback(): void {
    // A lost session was rolled back by the server; a COMMIT that failed ended it already.
    if (!this.#transaction || this.#broken !== null) return this.#end();
    try {
      this.#send({ kind: "exec", sql: "ROLLBACK", params: [] }, "end");
    } catch (err) {
      // Its session is gone: the server rolled the transaction back, as asked.
      if (!(err instanceof StoreUnavailableError)) throw err;
    } finally {
      this.#end();
    }
  }

  #end(): void {
    this.#transaction = false;
    this.#broken = null;
    this.#txSession = undefined;
  }

  #query(sql: string, params: SqlValue[]): { rows: Row[]; count: number } {
    const reply = this.#send({
      kind: "query",
      sql,
      params: params.map((p) => typeof p === "bigint" ? String(p) : p),
    });
    return { rows: reply.rows as Row[], count: reply.count };
  }

  /**
   * One request, tried again while the server cannot be reached when that is safe: outside
   * a transaction when it never left (the connect failed), and always for BEGIN (a lost
   * BEGIN leaves nothing behind). Inside a transaction a lost session breaks it.
   */
  #send(
    request: PgRequest,
    phase: "begin" | "statement" | "end" = "statement",
  ): Extract<PgReply, { ok: true }> {
    if (!this.#worker) throw new PgError("the store is closed", "CLOSED", false);
    if (this.#broken !== null) {
      throw new StoreUnavailableError(
        "PostgreSQL: the transaction was lost with its connection (connection lost)",
      );
    }
    if (this.#transaction && this.#txSession !== undefined) request.session = this.#txSession;
    for (;;) {
      const reply = this.#roundTrip(request);
      if (reply.ok) {
        this.#reconnect.answered();
        return reply;
      }
      if (!reply.lost) throw new PgError(reply.message, reply.code, false);
      this.#reconnect.lost(reply.message);
      const safeAgain = !this.#transaction && (reply.unsent || phase === "begin");
      if (safeAgain && this.#reconnect.waitAgain()) continue;
      if (this.#transaction) {
        this.#broken = reply.unsent ? "unsent" : "lost";
        if (phase === "statement") this.#mayRunAgain = true;
      }
      throw new StoreUnavailableError(
        safeAgain ? this.#reconnect.gaveUp() : `PostgreSQL: ${reply.message} (connection lost)`,
      );
    }
  }

  /** Posts the request and sleeps until its reply, or replaces the worker after the timeout. */
  #roundTrip(request: PgRequest): PgReply {
    const worker = this.#worker!;
    const started = performance.now();
    Atomics.store(this.#word, 0, 0);
    worker.postMessage(request);
    const waited = Atomics.wait(this.#word, 0, 0, this.#options.timeoutMs ?? 30_000);
    this.latency.count++;
    this.latency.totalMs += performance.now() - started;
    if (waited === "timed-out") {
      // The reply may still come: a new worker (a new session) so it cannot be mistaken
      // for the next statement's. The old session's transaction dies with it; whether a
      // statement that timed out ran is unknown, so nothing is tried again.
      worker.terminate();
      this.#start();
      if (this.#transaction) this.#broken = "timeout";
      throw new StoreUnavailableError(
        `PostgreSQL: no reply in ${this.#options.timeoutMs ?? 30_000} ms`,
      );
    }
    const length = Atomics.load(this.#word, 1);
    return JSON.parse(decoder.decode(new Uint8Array(this.#data).slice(0, length))) as PgReply;
  }
}
