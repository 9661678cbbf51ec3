// The PostgreSQL dialect of every schema step in ../migrations.ts: the same numbers and names,
// applied by the same runner (migrate), so a database is at version N on either engine for
// the same N. pg_migrations_test.ts checks that the two lists match step for step.

import type { Migration } from "../migrations.ts";
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

export const PG_MIGRATIONS: readonly Migration[] = [
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
];
