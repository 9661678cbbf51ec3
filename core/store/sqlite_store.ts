// The Store on embedded SQLite (node:sqlite), WAL mode, migrated on open: a single box's
// store, the default. The statements themselves are SqlStore's (sql_store.ts).

import { DatabaseSync } from "node:sqlite";
import { dirname, join } from "node:path";
import { ensurePrivateFileSync, makePrivateDirSync, tightenFileSync } from "../private_files.ts";
import type { Clock } from "../ports.ts";
import { isoZ } from "../time.ts";
import { StoreOpenError } from "./errors.ts";
import { migrate, type Migration, MIGRATIONS } from "./migrations.ts";
import { SqliteConnection } from "./sql_connection.ts";
import { SqlStore } from "./sql_store.ts";

export interface SqliteStoreOptions {
  /** Database file, or ":memory:". See `outpostDbPath`. */
  path: string;
  clock: Clock;
  /** Override for tests of the migration runner. */
  migrations?: readonly Migration[];
  maxJobs?: number;
}

/** <home>/outpost/outpost.db — home defaults to ~/.agent and is passed by the caller. */
export function outpostDbPath(home: string): string {
  return join(home, "outpost", "outpost.db");
}

export class SqliteStore extends SqlStore {
  readonly path: string;
  /** The store's own connection (query-plan tests read plans on it, as PgStore's). */
  readonly connection: SqliteConnection;

  constructor(options: SqliteStoreOptions) {
    const connection = openSqlite(options);
    super(connection, options);
    this.connection = connection;
    this.path = options.path;
  }
}

/** The busy timeout above, which SQLite does not apply to a change of journal mode. */
const BUSY_MS = 5000;

/**
 * Switches a new file to WAL. The switch needs the file to itself and fails at once with
 * "database is locked" while another connection (a second opener migrating the same new
 * file) writes, so it is tried again within the busy timeout.
 */
function walMode(db: DatabaseSync): void {
  const until = performance.now() + BUSY_MS;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (err) {
      const busy = err instanceof Error && /database is locked/.test(err.message);
      if (!busy || performance.now() >= until) throw err;
      Atomics.wait(pause, 0, 0, 20);
    }
  }
}

function openSqlite(options: SqliteStoreOptions): SqliteConnection {
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
    db.exec(`PRAGMA busy_timeout = ${BUSY_MS}`);
    walMode(db);
    db.exec("PRAGMA synchronous = NORMAL");
    db.exec("PRAGMA foreign_keys = ON");
    // A statement that may fail a UNIQUE check part-way (a tick's fire rows: migration 011) keeps
    // a statement journal; in a temporary file that cost ~100 µs a fire, in memory nothing.
    db.exec("PRAGMA temp_store = MEMORY");
  } catch (err) {
    throw new StoreOpenError(options.path, err);
  }
  const connection = new SqliteConnection(db);
  try {
    migrate(connection, options.path, isoZ(options.clock.now()), options.migrations ?? MIGRATIONS);
  } catch (err) {
    db.close();
    throw err;
  }
  return connection;
}
