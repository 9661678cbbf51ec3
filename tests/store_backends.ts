// The store suite runs once per backend: every test written with `storeTest` is registered
// for SQLite (in memory) and for PostgreSQL (a fresh database of this process's throwaway
// cluster, tests/pg_cluster.ts), the latter through the peer gate of tests/peers.ts. One
// suite, two engines: a difference between them is a failing test, not a second file.

import type { FakeClock } from "./fakes/clock.ts";
import { peerTest, probes } from "./peers.ts";
import { freshDatabaseUrl } from "./pg_cluster.ts";
import { PgStore } from "../core/store/pg/pg_store.ts";
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
}

export const sqliteBackend: StoreBackend = {
  name: "sqlite",
  open: (clock, options = {}) => new SqliteStore({ path: ":memory:", clock, ...options }),
};

export const postgresBackend: StoreBackend = {
  name: "postgres",
  open: (clock, options = {}) => new PgStore({ url: freshDatabaseUrl(), clock, ...options }),
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
