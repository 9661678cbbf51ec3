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

  constructor(options: SqliteStoreOptions) {
    super(openSqlite(options), options);
    this.path = options.path;
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
    db.exec("PRAGMA busy_timeout = 5000");
    db.exec("PRAGMA journal_mode = WAL");
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
