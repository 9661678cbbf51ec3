// A scheduled fire's identity in the store (migration 011, issue 32): the database itself
// refuses a second first attempt for one (job, slot), on both engines, whatever code tries;
// retries, slotless runs (manual triggers, resumes, one-shots) and a fire whose slot a cancel
// gave back are not refused. A store at step 10 with rows in it migrates to step 11 with nothing lost.

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";
import { peerTest, probes } from "../../tests/peers.ts";
import { freshDatabaseUrl } from "../../tests/pg_cluster.ts";
import { storeTest } from "../../tests/store_backends.ts";
import { isDuplicateFire } from "./errors.ts";
import { MIGRATIONS, schemaVersion } from "./migrations.ts";
import { PG_MIGRATIONS } from "./pg/pg_migrations.ts";
import { PgStore } from "./pg/pg_store.ts";
import type { SqlStore } from "./sql_store.ts";
import { outpostDbPath, SqliteStore } from "./sqlite_store.ts";
import type { NewRun } from "./store.ts";

const SLOT = "2026-03-02T09:00:00Z";
const NEXT = "2026-03-02T10:00:00Z";

function hourlyJob(store: SqlStore, name = "hourly") {
  return store.createJob(newJobFixture({
    name,
    schedule: { kind: "cron", expr: "0 * * * *", tz: "UTC" },
    next_run_at: SLOT,
  }));
}

const fire = (jobId: number, slot: string | null, more: Partial<NewRun> = {}): NewRun => ({
  job_id: jobId,
  status: "queued",
  attempt: 1,
  priority: 10,
  class: "scheduled",
  slot,
  ...more,
});

storeTest(
  "the store refuses a second first attempt for one (job, slot), skip rows included",
  (b) => {
    const store = b.open(new FakeClock(SLOT));
    try {
      const job = hourlyJob(store);
      const first = store.createRun(fire(job.id, SLOT));
      assert.equal(store.getRun(first.id)!.slot, SLOT, "the slot is stored and read back");
      assert.throws(() => store.createRun(fire(job.id, SLOT)), isDuplicateFire);
      assert.throws(
        () => store.createRun(fire(job.id, SLOT, { status: "skipped", reason: "single-flight" })),
        isDuplicateFire,
        "a skip row is that slot's fire too",
      );
      // A tick's multi-row insert with one duplicate stores none of its rows.
      assert.throws(
        () => store.createRuns([fire(job.id, NEXT), fire(job.id, SLOT)]),
        isDuplicateFire,
      );
      assert.deepEqual(store.listRuns(job.id).map((r) => r.id), [first.id], "nothing else stored");
      // The same slot of another job is that job's own fire.
      const other = hourlyJob(store, "other");
      assert.equal(store.createRun(fire(other.id, SLOT)).slot, SLOT);
    } finally {
      store.close();
    }
  },
);

storeTest("retries, slotless runs and a fire whose slot was given back are not refused", (b) => {
  const store = b.open(new FakeClock(SLOT));
  try {
    const job = hourlyJob(store);
    const first = store.createRun(fire(job.id, SLOT, { status: "error" }));
    // The retry of that fire carries its slot; attempts after the first are outside the index.
    const retry = store.createRun(fire(job.id, SLOT, { attempt: 2 }));
    assert.equal(retry.slot, SLOT);
    store.createRun(fire(job.id, SLOT, { attempt: 3 }));
    // Manual triggers, resumes and one-shots have no slot: any number of them.
    for (let i = 0; i < 3; i++) assert.equal(store.createRun(fire(job.id, null)).slot, null);
    // A cancel while queued gives the slot back (cancel.ts clears it); cancelled and keeping
    // its slot, the fire still holds it.
    const at = hourlyJob(store, "at");
    const held = store.createRun(fire(at.id, SLOT, { reason: "held: governor" }));
    store.updateRun(held.id, { status: "cancelled", cancelled_at: SLOT, finished_at: SLOT });
    assert.throws(() => store.createRun(fire(at.id, SLOT)), isDuplicateFire);
    store.updateRun(held.id, { slot: null });
    assert.equal(store.createRun(fire(at.id, SLOT)).slot, SLOT);
    assert.throws(() => store.createRun(fire(at.id, SLOT)), isDuplicateFire);
    assert.equal(store.listRuns(job.id).length, 6);
    assert.equal(store.getRun(first.id)!.status, "error");
  } finally {
    store.close();
  }
});

/** A store at step 10 with a job and three runs, written by that step's own columns. */
function fillStep10(exec: (sql: string) => void): void {
  exec(
    `INSERT INTO jobs (name, prompt, schedule_kind, schedule_expr, schedule_tz, workdir, mode,
       timeout_s, max_retries, enabled, next_run_at, created_at, updated_at, class)
     VALUES ('old', 'p', 'cron', '0 * * * *', 'UTC', '/tmp', 'auto', 60, 2, 1,
       '${SLOT}', '${SLOT}', '${SLOT}', 'scheduled')`,
  );
  for (const [status, at] of [["ok", "08:00"], ["skipped", "08:30"], ["error", "08:45"]]) {
    exec(
      `INSERT INTO runs (job_id, status, attempt, queued_at, finished_at, priority, class,
         tokens_in, cost_usd)
       VALUES (1, '${status}', 1, '2026-03-02T${at}:00Z', '2026-03-02T${at}:05Z', 10,
         'scheduled', 120, 0.5)`,
    );
  }
}

/** What the upgraded store must still show, and that the new rule applies from now on. */
function checkUpgraded(store: SqlStore): void {
  const runs = store.listRuns(1);
  assert.deepEqual(runs.map((r) => [r.status, r.queued_at, r.tokens_in, r.slot]), [
    ["error", "2026-03-02T08:45:00Z", 120, null],
    ["skipped", "2026-03-02T08:30:00Z", 120, null],
    ["ok", "2026-03-02T08:00:00Z", 120, null],
  ]);
  assert.equal(store.getJob(1)!.next_run_at, SLOT);
  store.createRun(fire(1, SLOT));
  assert.throws(() => store.createRun(fire(1, SLOT)), isDuplicateFire);
}

Deno.test("a SQLite store at step 10 with rows migrates to step 11 with nothing lost", async () => {
  const home = await Deno.makeTempDir();
  try {
    const path = outpostDbPath(home);
    const clock = new FakeClock(SLOT);
    new SqliteStore({ path, clock, migrations: MIGRATIONS.slice(0, 10) }).close();
    const db = new DatabaseSync(path);
    assert.equal(schemaVersion(db), 10);
    fillStep10((sql) => db.exec(sql));
    db.close();
    const store = new SqliteStore({ path, clock });
    try {
      checkUpgraded(store);
    } finally {
      store.close();
    }
    const after = new DatabaseSync(path);
    assert.equal(schemaVersion(after), 11);
    after.close();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

peerTest(
  "a PostgreSQL store at step 10 with rows migrates to step 11 with nothing lost",
  probes.postgres,
  // deno-lint-ignore require-await
  async () => {
    const url = freshDatabaseUrl({ migrated: false });
    const clock = new FakeClock(SLOT);
    const old = new PgStore({ url, clock, migrations: PG_MIGRATIONS.slice(0, 10) });
    assert.equal(schemaVersion(old.connection), 10);
    fillStep10((sql) => old.connection.exec(sql));
    old.close();
    const store = new PgStore({ url, clock });
    try {
      assert.equal(schemaVersion(store.connection), 11);
      checkUpgraded(store);
    } finally {
      store.close();
    }
  },
);
