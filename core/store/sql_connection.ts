// The seam between the store's logic (sql_store.ts) and its two databases: the embedded
// SQLite file (sqlite_store.ts) and a shared PostgreSQL server (pg/pg_store.ts). It is
// node:sqlite's own shape (prepare → get/all/run, exec, isTransaction), so the SQLite side
// passes its statements through untouched and the PostgreSQL side emulates them
// synchronously (pg/pg_connection.ts; core/store/README.md says why).

import type { DatabaseSync, SQLInputValue } from "node:sqlite";

export type SqlValue = SQLInputValue;
export type Row = Record<string, SqlValue>;

export interface SqlRunResult {
  changes: number | bigint;
  lastInsertRowid: number | bigint;
}

/** One statement, prepared once and run many times with positional `?` parameters. */
export interface SqlStatement {
  get(...params: SqlValue[]): Row | undefined;
  all(...params: SqlValue[]): Row[];
  run(...params: SqlValue[]): SqlRunResult;
}

export type SqlDialect = "sqlite" | "postgres";

export interface SqlConnection {
  readonly dialect: SqlDialect;
  /** Statement text is written in SQLite's dialect; a PostgreSQL connection translates it. */
  prepare(sql: string): SqlStatement;
  /** Runs one or more statements without parameters (migrations, transaction control). */
  exec(sql: string): void;
  readonly isTransaction: boolean;
  readonly isOpen: boolean;
  close(): void;
  /**
   * After attempt `attempt` (1, 2, …) of a transaction failed with `err` and was rolled back:
   * returns when it may run again, or throws (`err` or why not). PostgreSQL only: a session
   * lost before COMMIT was sent, with the server answering again (core/store/README.md,
   * "A lost server").
   */
  retryTransaction?(err: unknown, attempt: number): void;
  /**
   * Starts a transaction for the fleet's hot paths (SqlStore.atomicallyOnRows), ended by
   * `exec("COMMIT")` or `exec("ROLLBACK")`. SQLite: `BEGIN IMMEDIATE`, one writer as ever.
   * PostgreSQL: the fleet's write lock in shared mode, so such transactions run side by side
   * on the rows they lock while `BEGIN IMMEDIATE` ones still run alone.
   */
  beginOnRows(): void;
  /**
   * Inside a beginOnRows transaction, before it writes runs: the runs' rollup rows (one per
   * hour) are shared by every writer, so these writers take turns for them from here to the
   * commit instead of deadlocking on them. A no-op on SQLite.
   */
  lockRunRollups(): void;
}

/** node:sqlite behind the seam: statements are node:sqlite's own, nothing is wrapped. */
export class SqliteConnection implements SqlConnection {
  readonly dialect = "sqlite";
  readonly db: DatabaseSync;

  constructor(db: DatabaseSync) {
    this.db = db;
  }

  prepare(sql: string): SqlStatement {
    return this.db.prepare(sql) as unknown as SqlStatement;
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  get isTransaction(): boolean {
    return this.db.isTransaction;
  }

  get isOpen(): boolean {
    return this.db.isOpen;
  }

  close(): void {
    if (this.db.isOpen) this.db.close();
  }

  beginOnRows(): void {
    this.db.exec("BEGIN IMMEDIATE");
  }

  lockRunRollups(): void {} // the transaction holds SQLite's only write lock already
}
