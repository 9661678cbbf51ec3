// Which store an outpost opens: a shared PostgreSQL when AGENT_OUTPOST_DATABASE_URL is set,
// else the SQLite file beside it (the default, unchanged for a single box). The PostgreSQL
// code (and its npm client) is reached only through the dynamic import below, so a single
// box neither loads nor parses it.

import type { Clock, Env } from "../ports.ts";
import { outpostDbPath, SqliteStore } from "./sqlite_store.ts";
import type { Store } from "./store.ts";

export const DATABASE_URL_ENV = "AGENT_OUTPOST_DATABASE_URL";

export interface OpenedStore {
  store: Store;
  /** "sqlite" or "postgres". */
  kind: "sqlite" | "postgres";
  /** The SQLite file, or the database URL without its password. */
  where: string;
}

export interface OpenStoreOptions {
  home: string;
  clock: Clock;
  env: Env;
  /** Shown by PostgreSQL as the connection's application_name (the node id). */
  application?: string;
}

/** Throws with a clear message when the URL is not a postgres:// or postgresql:// URL. */
export function databaseUrlFrom(env: Env): string | null {
  const raw = env.get(DATABASE_URL_ENV);
  if (raw === undefined || raw === "") return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${DATABASE_URL_ENV} is not a URL (expected postgres://user@host:port/db)`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new Error(
      `${DATABASE_URL_ENV} must be a postgres:// URL, got ${url.protocol}// (SQLite needs none)`,
    );
  }
  return raw;
}

export async function openStore(o: OpenStoreOptions): Promise<OpenedStore> {
  const url = databaseUrlFrom(o.env);
  if (url === null) {
    const path = outpostDbPath(o.home);
    return { store: new SqliteStore({ path, clock: o.clock }), kind: "sqlite", where: path };
  }
  const { PgStore } = await import("./pg/pg_store.ts");
  const store = new PgStore({
    url,
    clock: o.clock,
    ...(o.application ? { application: o.application } : {}),
  });
  return { store, kind: "postgres", where: store.path };
}
