import assert from "node:assert/strict";
import { MIGRATIONS } from "../migrations.ts";
import { PG_MIGRATIONS, PG_SQL } from "./pg_migrations.ts";

Deno.test("every SQLite schema step has its PostgreSQL twin, same number and name", () => {
  assert.deepEqual(
    PG_MIGRATIONS.map((m) => [m.version, m.name]),
    MIGRATIONS.map((m) => [m.version, m.name]),
  );
  // No PostgreSQL step without its SQLite twin either.
  assert.deepEqual(Object.keys(PG_SQL).map(Number), MIGRATIONS.map((m) => m.version));
  for (const m of PG_MIGRATIONS) {
    assert.doesNotMatch(m.sql, /AUTOINCREMENT|WITHOUT ROWID|\bREAL\b/, `step ${m.version}`);
  }
});
