// The scheduler kit's store is the engine AGENT_TEST_STORE names, so a run of the scheduler
// suite under AGENT_TEST_STORE=postgres (scheduler_postgres_test.ts) really exercises it.

import assert from "node:assert/strict";
import { KIT_STORE, makeKit } from "../../tests/fakes/scheduler_kit.ts";
import { PgStore } from "../store/pg/pg_store.ts";
import { SqliteStore } from "../store/sqlite_store.ts";

Deno.test("the kit's store is the engine AGENT_TEST_STORE names", async () => {
  await using kit = await makeKit();
  const expected = KIT_STORE === "postgres" ? PgStore : SqliteStore;
  assert.ok(kit.store instanceof expected, `expected a ${expected.name}`);
});
