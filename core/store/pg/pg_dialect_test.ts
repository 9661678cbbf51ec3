import assert from "node:assert/strict";
import { toPostgres } from "./pg_dialect.ts";

Deno.test("positional parameters are numbered, quoted question marks are left alone", () => {
  assert.equal(
    toPostgres("SELECT * FROM runs WHERE id < ? AND reason = '?' AND status = ? LIMIT ?"),
    "SELECT * FROM runs WHERE id < $1 AND reason = '?' AND status = $2 LIMIT $3",
  );
});

Deno.test("SQLite's index hints are dropped and INSERT OR IGNORE becomes ON CONFLICT", () => {
  assert.equal(
    toPostgres("SELECT * FROM runs INDEXED BY runs_job WHERE id < ?"),
    "SELECT * FROM runs WHERE id < $1",
  );
  assert.equal(toPostgres("SELECT * FROM runs NOT INDEXED WHERE 1"), "SELECT * FROM runs WHERE 1");
  assert.equal(
    toPostgres("INSERT OR IGNORE INTO d (a, b) VALUES (?, ?)"),
    "INSERT INTO d (a, b) VALUES ($1, $2) ON CONFLICT DO NOTHING",
  );
  assert.equal(
    toPostgres("INSERT OR IGNORE INTO d (a) VALUES (?) RETURNING *"),
    "INSERT INTO d (a) VALUES ($1) ON CONFLICT DO NOTHING RETURNING *",
  );
});
