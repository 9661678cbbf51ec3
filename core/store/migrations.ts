// Versioned schema steps, applied in order on open. A step is never edited once shipped:
// a change is a new numbered file. A database newer than the last step here is refused.

import type { SqlConnection } from "./sql_connection.ts";
import { SchemaTooNewError } from "./errors.ts";
import m001 from "./migrations/001_initial.sql" with { type: "text" };
import m002 from "./migrations/002_retention_indexes.sql" with { type: "text" };
import m003 from "./migrations/003_recipe_triggers.sql" with { type: "text" };
import m004 from "./migrations/004_history_views.sql" with { type: "text" };
import m005 from "./migrations/005_run_done_reason.sql" with { type: "text" };
import m006 from "./migrations/006_audit_channel.sql" with { type: "text" };
import m007 from "./migrations/007_job_provider_preset.sql" with { type: "text" };
import m008 from "./migrations/008_run_cache_tokens.sql" with { type: "text" };
import m009 from "./migrations/009_trigger_events.sql" with { type: "text" };
import m010 from "./migrations/010_run_usage.sql" with { type: "text" };
import m011 from "./migrations/011_run_fire_slot.sql" with { type: "text" };

/** What the runner needs of a connection (a DatabaseSync has it too). */
export type Migratable = Pick<SqlConnection, "exec" | "prepare">;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "initial", sql: m001 },
  { version: 2, name: "retention_indexes", sql: m002 },
  { version: 3, name: "recipe_triggers", sql: m003 },
  { version: 4, name: "history_views", sql: m004 },
  { version: 5, name: "run_done_reason", sql: m005 },
  { version: 6, name: "audit_channel", sql: m006 },
  { version: 7, name: "job_provider_preset", sql: m007 },
  { version: 8, name: "run_cache_tokens", sql: m008 },
  { version: 9, name: "trigger_events", sql: m009 },
  { version: 10, name: "run_usage", sql: m010 },
  { version: 11, name: "run_fire_slot", sql: m011 },
];

export class MigrationError extends Error {
  override readonly name = "MigrationError";
  readonly version: number;
  constructor(version: number, name: string, cause: unknown) {
    super(
      `schema migration ${version} (${name}) failed and was rolled back: ` +
        `${cause instanceof Error ? cause.message : cause}`,
      { cause },
    );
    this.version = version;
  }
}

/** The highest applied version (0 for a fresh database). */
export function schemaVersion(db: Migratable): number {
  const row = db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as
    | { v: number | null }
    | undefined;
  return row?.v ?? 0;
}

/**
 * Applies every step above the database's version, each in its own transaction.
 * Returns the versions applied. Throws SchemaTooNewError before touching anything when
 * the database is ahead of `migrations`.
 */
export function migrate(
  db: Migratable,
  path: string,
  now: string,
  migrations: readonly Migration[] = MIGRATIONS,
): number[] {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (" +
      "version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)",
  );
  const current = schemaVersion(db);
  const latest = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  if (current > latest) throw new SchemaTooNewError(path, current, latest);
  const applied: number[] = [];
  for (const m of [...migrations].sort((a, b) => a.version - b.version)) {
    if (m.version <= current) continue;
    db.exec("BEGIN IMMEDIATE");
    try {
      // Another opener of the same database may have applied it since `current` was read:
      // under the write lock the version is read again, so each step runs once.
      if (schemaVersion(db) >= m.version) {
        db.exec("COMMIT");
        continue;
      }
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)")
        .run(m.version, m.name, now);
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw new MigrationError(m.version, m.name, err);
    }
    applied.push(m.version);
  }
  return applied;
}
