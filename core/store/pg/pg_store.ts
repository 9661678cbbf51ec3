// The Store on a shared PostgreSQL server: the statements of SqlStore (sql_store.ts) over a
// synchronous PgConnection, the schema steps of pg_migrations.ts. Loaded only when
// AGENT_OUTPOST_DATABASE_URL is set (core/store/open_store.ts), so a single box never loads
// the client. Several outposts may open the same database: migrations take a session-wide
// advisory lock, so the first node migrates and the others wait, then find nothing to do.

import type { Clock } from "../../ports.ts";
import { isoZ } from "../../time.ts";
import { StoreOpenError } from "../errors.ts";
import { migrate, type Migration } from "../migrations.ts";
import { SqlStore } from "../sql_store.ts";
import { PgConnection, SCHEMA_LOCK_KEY } from "./pg_connection.ts";
import { PG_MIGRATIONS } from "./pg_migrations.ts";

export interface PgStoreOptions {
  /** postgres://user[:password]@host:port/database */
  url: string;
  clock: Clock;
  /** Shown in pg_stat_activity (the node id). */
  application?: string;
  migrations?: readonly Migration[];
  maxJobs?: number;
  /** How long one statement may take (default 30 s). */
  timeoutMs?: number;
  /** How long the server may be lost before a statement or transaction gives up (timeoutMs). */
  retryWithinMs?: number;
}

/** The URL without its password, for messages and logs. */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable database URL)";
  }
}

export class PgStore extends SqlStore {
  /** Where the store lives, password removed (for messages). */
  readonly path: string;
  readonly connection: PgConnection;

  constructor(options: PgStoreOptions) {
    const connection = openPg(options);
    super(connection, options);
    this.connection = connection;
    this.path = redactedUrl(options.url);
  }
}

function openPg(options: PgStoreOptions): PgConnection {
  const where = redactedUrl(options.url);
  const connection = new PgConnection({
    url: options.url,
    ...(options.application ? { application: options.application } : {}),
    ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.retryWithinMs ? { retryWithinMs: options.retryWithinMs } : {}),
  });
  try {
    connection.exec(`SELECT pg_advisory_lock(${SCHEMA_LOCK_KEY})`);
  } catch (err) {
    connection.close();
    throw new StoreOpenError(
      where,
      err,
      "check the server is up and the URL's host, port, user, password and database",
    );
  }
  try {
    migrate(connection, where, isoZ(options.clock.now()), options.migrations ?? PG_MIGRATIONS);
    connection.exec(`SELECT pg_advisory_unlock(${SCHEMA_LOCK_KEY})`);
  } catch (err) {
    connection.close();
    throw err;
  }
  return connection;
}
