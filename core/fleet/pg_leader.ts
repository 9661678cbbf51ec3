// Leadership of one role across the fleet by a PostgreSQL session advisory lock (issue 32:
// exactly one node runs the Matrix bot's sync and its retry queues). The lock lives on the
// store's one connection (pg_worker.ts), so it is held exactly as long as that session: a
// node that dies or loses its connection loses it, and another node's next attempt takes it
// over. The holder checks each round that its session still holds it (a reconnect is a new
// session without the lock) and steps down at once when not.

import type { PgConnection } from "../store/pg/pg_connection.ts";

export class PgLeader {
  readonly #connection: PgConnection;
  readonly #key: number;
  #held = false;

  constructor(connection: PgConnection, key: number) {
    this.#connection = connection;
    this.#key = key;
  }

  get held(): boolean {
    return this.#held;
  }

  /**
   * One round: true while this node leads. Tries to take the lock when not holding it; when
   * holding it, checks that this session still does.
   */
  attempt(): boolean {
    if (this.#held) {
      const still = this.#connection.prepare(
        `SELECT 1 AS ok FROM pg_locks WHERE locktype = 'advisory' AND granted
            AND pid = pg_backend_pid() AND classid = 0 AND objid = ?::bigint AND objsubid = 1`,
      ).get(this.#key);
      this.#held = still !== undefined;
      if (this.#held) return true;
    }
    const row = this.#connection.prepare("SELECT pg_try_advisory_lock(?::bigint) AS ok")
      .get(this.#key) as unknown as { ok: boolean };
    this.#held = row.ok === true;
    return this.#held;
  }

  /** Gives the role up (shutdown). */
  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#connection.prepare("SELECT pg_advisory_unlock(?::bigint)").get(this.#key);
  }
}
