// The store's transactions (core/store/README.md): `atomically` (one writer at a time, for the
// whole fleet on PostgreSQL), `atomicallyOnRows` (the fleet's hot paths, side by side on the rows
// they lock) and the savepoints that make calls nest. Kept apart from sql_store.ts, which holds
// the statements.

import type { SqlConnection, SqlStatement } from "./sql_connection.ts";

export class SqlTransactions {
  readonly #db: SqlConnection;
  readonly #stmt: (sql: string) => SqlStatement;
  #savepoints = 0; // depth of nested calls
  #onRows = false;

  constructor(db: SqlConnection, stmt: (sql: string) => SqlStatement) {
    this.#db = db;
    this.#stmt = stmt;
  }

  /** Inside an atomicallyOnRows transaction (at any depth). */
  get onRows(): boolean {
    return this.#onRows && this.#db.isTransaction;
  }

  atomically<T>(fn: () => T): T {
    if (!this.#db.isTransaction) return this.tx(fn);
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

  /**
   * SQLite, or inside any transaction: exactly `atomically`. Otherwise (PostgreSQL) a
   * transaction that shares the fleet's write lock with others of its kind and waits for
   * (and holds off) `atomically`'s: `fn` must lock the rows it writes (FOR UPDATE) or write
   * only rows whose identity makes a second writer change nothing (INSERT … ON CONFLICT).
   */
  atomicallyOnRows<T>(fn: () => T): T {
    if (this.#db.dialect === "sqlite" || this.#db.isTransaction) return this.atomically(fn);
    return this.#retried(() => {
      this.#onRows = true;
      try {
        return this.#once(() => this.#db.beginOnRows(), fn);
      } finally {
        this.#onRows = false;
      }
    });
  }

  /** `fn` in a `BEGIN IMMEDIATE` transaction, or as part of the one already open. */
  tx<T>(fn: () => T): T {
    if (this.#db.isTransaction) return fn();
    return this.#retried(() => this.#once(() => this.#db.exec("BEGIN IMMEDIATE"), fn));
  }

  /**
   * PostgreSQL: a transaction whose session was lost before COMMIT runs again once the server
   * answers; otherwise (and on SQLite) the error stands (README: "A lost server").
   */
  #retried<T>(run: () => T): T {
    for (let attempt = 1;; attempt++) {
      try {
        return run();
      } catch (err) {
        if (!this.#db.retryTransaction) throw err;
        this.#db.retryTransaction(err, attempt);
      }
    }
  }

  #once<T>(begin: () => void, fn: () => T): T {
    begin();
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
