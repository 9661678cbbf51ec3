// Opening the recall index's database (recall_index.ts): the schema, the connection
// settings, and the one rule for when the file is rebuilt. It is derived data, so a file SQLite
// finds corrupt, not a database, or of another schema is deleted and made anew; any other
// failure (a refused permission, a lock held elsewhere, a directory or a symlink in its place)
// throws naming the file and leaves every index file as it was.

import { DatabaseSync } from "node:sqlite";
import { MemoryPathError } from "./errors.ts";

// 2: titles come from `title:` frontmatter and lose inline markdown (rebuilt on open).
const SCHEMA_VERSION = "2";

const SCHEMA = [
  "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
  `CREATE TABLE IF NOT EXISTS files(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  mtime_ms INTEGER NOT NULL,
  size INTEGER NOT NULL,
  category TEXT NOT NULL,
  workspace TEXT,
  legacy INTEGER NOT NULL,
  title TEXT NOT NULL
)`,
  "CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(path, title, body, tokenize = 'porter unicode61')",
];

const CONNECTION_PRAGMAS = [
  "PRAGMA busy_timeout = 5000",
  "PRAGMA journal_mode = WAL",
  "PRAGMA synchronous = NORMAL",
  // Keep a 10k-file index (about 15 MB) hot: recall reads many pages per query.
  "PRAGMA cache_size = -32000",
];

// SQLite primary result codes (https://sqlite.org/rescode.html).
const SQLITE_ERROR = 1;
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/** SQLite's primary result code of a node:sqlite error, if it carries one. */
function sqliteCode(err: unknown): number | undefined {
  const code = (err as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" ? code & 0xff : undefined;
}

/** The file's content is damaged or not SQLite at all: the one case for a rebuild. */
function isCorrupt(err: unknown): boolean {
  const code = sqliteCode(err);
  return code === SQLITE_CORRUPT || code === SQLITE_NOTADB;
}

function indexError(path: string, err: unknown): Error {
  const why = err instanceof Error ? err.message : String(err);
  return new Error(`cannot open the recall index ${path} (${why}); it was left as it is`, {
    cause: err,
  });
}

/** Whether the index file exists; anything there but a file, or a refused look, throws. */
function indexFileExists(file: string): boolean {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw indexError(file, err);
  }
  if (!info.isFile) throw indexError(file, new Error("it is not a file; move it away"));
  return true;
}

function refuseLink(path: string): void {
  try {
    if (Deno.lstatSync(path).isSymlink) {
      throw new MemoryPathError(path, "symlink", "the recall index location is a symlink");
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
}

/**
 * Opens (creating if needed) the index database `name` in `dir`. Only a file SQLite finds corrupt or
 * not a database, or one with another schema, is deleted and rebuilt (it is derived
 * data). Any other failure (a refused permission, a lock held elsewhere, a directory in
 * its place) throws naming the file and leaves every index file as it was: deleting a
 * database another process has open, or one we merely may not read, loses its state.
 */
export function openIndexDatabase(
  dir: string,
  name: string,
): { db: DatabaseSync; fresh: boolean } {
  refuseLink(dir);
  try {
    Deno.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
  }
  const file = `${dir}/${name}`;
  refuseLink(file);
  const existed = indexFileExists(file);
  const db = openCurrent(file, existed);
  if (db) return { db, fresh: !existed };
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    try {
      Deno.removeSync(file + suffix);
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw indexError(file + suffix, err);
    }
  }
  return { db: openCurrent(file, false, true)!, fresh: true };
}

/**
 * The database at `file` with the current schema, or null when its content must be
 * rebuilt (corrupt, not a database, another schema). `final` (right after deleting the
 * old files) treats every failure as an error.
 */
function openCurrent(file: string, existed: boolean, final = false): DatabaseSync | null {
  let db: DatabaseSync;
  try {
    db = connect(file);
  } catch (err) {
    if (!final && isCorrupt(err)) return null;
    throw indexError(file, err);
  }
  try {
    // A foreign or older database may hold other tables under these names: SQLite says
    // SQLITE_ERROR ("no such column", "already exists") while applying the schema.
    for (const sql of SCHEMA) db.prepare(sql).run();
    if (!existed) {
      db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?)").run(
        SCHEMA_VERSION,
      );
      return db;
    }
    const version = (db.prepare("SELECT value FROM meta WHERE key = 'schema'").get() as
      | { value: string }
      | undefined)?.value;
    if (version === SCHEMA_VERSION) return db;
  } catch (err) {
    if (final || !(isCorrupt(err) || sqliteCode(err) === SQLITE_ERROR)) {
      db.close();
      throw indexError(file, err);
    }
  }
  db.close();
  return null;
}

/**
 * Opens `file` with the connection settings. Statements run through prepare() so a
 * failure carries SQLite's result code (node:sqlite's exec() leaves it off).
 */
function connect(file: string): DatabaseSync {
  const db = new DatabaseSync(file);
  try {
    for (const pragma of CONNECTION_PRAGMAS) db.prepare(pragma).get();
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}
