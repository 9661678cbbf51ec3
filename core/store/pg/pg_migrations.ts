// The PostgreSQL dialect of every schema step in ../migrations.ts: the steps' numbers and names
// are taken from that list, and only the SQL is this dialect's, applied by the same runner
// (migrate), so a database is at version N on either engine for the same N.

import { type Migration, MIGRATIONS } from "../migrations.ts";
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

/** Each step's SQL in PostgreSQL's dialect, by its version in MIGRATIONS. */
export const PG_SQL: Readonly<Record<number, string>> = {
  1: m001,
  2: m002,
  3: m003,
  4: m004,
  5: m005,
  6: m006,
  7: m007,
  8: m008,
  9: m009,
  10: m010,
  11: m011,
};

export const PG_MIGRATIONS: readonly Migration[] = MIGRATIONS.map((m) => {
  const sql = PG_SQL[m.version];
  if (sql === undefined) {
    throw new Error(`schema step ${m.version} (${m.name}) has no PostgreSQL dialect`);
  }
  return { ...m, sql };
});
