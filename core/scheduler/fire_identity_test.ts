// A slot fires once even when the code around it is wrong (issue 32): the store refuses a
// second fire record for one (job, slot) (migration 011), and the tick then records nothing
// more for that slot and moves the schedule on, so the job does not stay due on it. On both
// engines (scheduler_postgres_test.ts runs this file on PostgreSQL).

import assert from "node:assert/strict";
import { jobInput, makeKit, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";

Deno.test("a tick whose slot already has its fire record writes no second one and moves on", async () => {
  await using kit = await makeKit({ start: "2026-03-02T08:59:00Z" });
  const job = kit.scheduler.createJob(jobInput({ schedule: { kind: "cron", expr: "0 * * * *" } }));
  const slot = job.next_run_at!;
  // What a faulty path would leave: the slot's fire recorded, next_run_at not moved.
  const stray = kit.store.createRun({
    job_id: job.id,
    status: "ok",
    attempt: 1,
    priority: 10,
    class: "scheduled",
    slot,
    finished_at: slot,
  });
  kit.clock.set(slot);
  await kit.scheduler.tick();
  assert.deepEqual(kit.store.listRuns(job.id).map((r) => r.id), [stray.id], "no second fire");
  assert.equal(kit.spawner.spawned.length, 0, "nothing started");
  assert.equal(kit.store.getJob(job.id)!.next_run_at, "2026-03-02T10:00:00Z", "moved on");
  assert.ok(
    kit.logger.entries.some((e) => e.message === "slot already fired; not fired again"),
    "the refusal is logged",
  );
});

Deno.test("an `at` fire cancelled while held gives its slot back: re-enabled, it fires again", async () => {
  await using kit = await makeKit({ governor: { max_concurrent: { api: 2, scheduled: 1 } } });
  kit.scheduler.createJob(jobInput({ name: "busy", priority: 1 }));
  const once = kit.scheduler.createJob(
    jobInput({ name: "once", schedule: { kind: "at", expr: "2026-03-02T10:00:00Z" } }),
  );
  kit.clock.set("2026-03-02T10:00:00Z");
  const busy = await tickAndSpawn(kit); // one runner: `once` is held for its slot
  const held = kit.store.latestRun(once.id)!;
  assert.equal(held.slot, "2026-03-02T10:00:00Z");
  assert.equal(kit.scheduler.cancel(once.id).status, "cancelled");
  assert.equal(kit.store.getRun(held.id)!.slot, null, "the slot is given back");
  busy.exit(0);
  await kit.scheduler.idle();
  kit.scheduler.setEnabled(once.id, true); // an unfired `at` keeps its time
  const again = kit.spawner.nextSpawn();
  await kit.scheduler.tick();
  assert.equal((await again).req.env.AGENT_JOB_NAME, "once");
  const fired = kit.store.latestRun(once.id)!;
  assert.notEqual(fired.id, held.id);
  assert.equal(fired.slot, "2026-03-02T10:00:00Z");
  (await again).exit(0);
  await kit.scheduler.idle();
});
