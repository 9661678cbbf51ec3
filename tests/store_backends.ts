// The store suite runs once per backend: every test written with `storeTest` is registered
// for SQLite (in memory) and for PostgreSQL (a fresh database of this process's throwaway
// cluster, tests/pg_cluster.ts), the latter through the peer gate of tests/peers.ts. One
// suite, two engines: a difference between them is a failing test, not a second file.

import { DatabaseSync } from "node:sqlite";
import type { FakeClock } from "./fakes/clock.ts";
import { peerTest, probes } from "./peers.ts";
import { freshDatabaseUrl } from "./pg_cluster.ts";
import { type Migration, MIGRATIONS } from "../core/store/migrations.ts";
import { PgConnection } from "../core/store/pg/pg_connection.ts";
import { PG_MIGRATIONS } from "../core/store/pg/pg_migrations.ts";
import { PgStore } from "../core/store/pg/pg_store.ts";
import { type SqlConnection, SqliteConnection } from "../core/store/sql_connection.ts";
import { SqliteStore } from "../core/store/sqlite_store.ts";
import type { SqlStore } from "../core/store/sql_store.ts";

export type BackendName = "sqlite" | "postgres";

export interface OpenOptions {
  maxJobs?: number;
}

export interface StoreBackend {
  name: BackendName;
  /** A new, empty, migrated store on `clock`. */
  open(clock: FakeClock, options?: OpenOptions): SqlStore;
  /** This engine's schema steps (the same numbers and names on both). */
  migrations: readonly Migration[];
  /** Where a new, blank database is (a file path, a database URL); nothing is created yet. */
  blank(): string;
  /** A store on the database at `where`, migrated by `migrations` (default: all steps). */
  openAt(where: string, clock: FakeClock, migrations?: readonly Migration[]): SqlStore;
  /** A plain connection to `where`, for what the Store interface does not do (catalogs, plans). */
  connect(where: string): SqlConnection;
}

const sqliteFiles: string[] = [];
globalThis.addEventListener("unload", () => {
  for (const dir of sqliteFiles) Deno.removeSync(dir, { recursive: true });
});

export const sqliteBackend: StoreBackend = {
  name: "sqlite",
  open: (clock, options = {}) => new SqliteStore({ path: ":memory:", clock, ...options }),
  migrations: MIGRATIONS,
  blank: () => {
    const dir = Deno.makeTempDirSync({ prefix: "store_backend_" });
    sqliteFiles.push(dir);
    return `${dir}/outpost.db`;
  },
  openAt: (path, clock, migrations) =>
    new SqliteStore({ path, clock, ...(migrations ? { migrations } : {}) }),
  connect: (path) => new SqliteConnection(new DatabaseSync(path)),
};

export const postgresBackend: StoreBackend = {
  name: "postgres",
  open: (clock, options = {}) => new PgStore({ url: freshDatabaseUrl(), clock, ...options }),
  migrations: PG_MIGRATIONS,
  blank: () => freshDatabaseUrl({ migrated: false }),
  openAt: (url, clock, migrations) =>
    new PgStore({ url, clock, ...(migrations ? { migrations } : {}) }),
  connect: (url) => new PgConnection({ url }),
};

/**
 * Registers `fn` once per backend. The SQLite case keeps the test's own name (so a failure
 * reads as before); the PostgreSQL one is named "postgres: …" and gated as a peer.
 */
export function storeTest(
  name: string,
  fn: (backend: StoreBackend) => void | Promise<void>,
): void {
  Deno.test(name, async () => await fn(sqliteBackend));
  peerTest(`postgres: ${name}`, probes.postgres, async () => await fn(postgresBackend));
}
