// Fire lag (issue 32): a job due at 09:00 starts at 09:00, not when the loop's 60-second tick
// comes round (its phase is the scheduler's start time); in a fleet, a slot this node's governor
// deferred fires as soon as one of its runners is free, not at the next tick. On both engines
// (scheduler_postgres_test.ts runs this file on PostgreSQL).

import assert from "node:assert/strict";
import { flushMicrotasks } from "../../tests/fakes/clock.ts";
import { jobInput, type Kit, makeKit } from "../../tests/fakes/scheduler_kit.ts";
import type { Fleet } from "./fleet.ts";

Deno.test("a slot fires when it comes due, not at the loop's next 60-second tick", async () => {
  // The loop starts at 08:59:30: its ticks fall at :30. The job is due at 09:00:00.
  await using kit = await makeKit({ start: "2026-03-02T08:59:30Z" });
  const job = kit.scheduler.createJob(jobInput({ schedule: { kind: "cron", expr: "0 9 * * *" } }));
  assert.equal(job.next_run_at, "2026-03-02T09:00:00Z");
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.start(); // first tick at once: nothing due
  await parked(kit);
  assert.equal(kit.spawner.spawned.length, 0);
  await kit.clock.advance(30_000); // 09:00:00, half a tick before the next one
  const proc = await spawned;
  const run = kit.store.latestRun(job.id)!;
  assert.equal(run.queued_at, "2026-03-02T09:00:00Z");
  assert.equal(run.started_at, "2026-03-02T09:00:00Z");
  assert.equal(kit.scheduler.fireLag.sum, 0, "no lag observed");
  proc.exit(0);
  await kit.scheduler.idle();
});

/** Until the loop sleeps: time then moves only as the test advances it. */
async function parked(kit: Kit): Promise<void> {
  while (kit.clock.pending === 0) await flushMicrotasks(1);
}

/** A fleet of which this node is one member; it may run everything (claims are not tested). */
const OPEN_FLEET: Fleet = {
  nodeId: "n1",
  claimRun: () => true,
  owns: () => true,
  adopt: () => true,
  fleetHold: () => null,
};

Deno.test("in a fleet, a slot the governor deferred fires once a runner is free, not a tick later", async () => {
  await using kit = await makeKit({
    start: "2026-03-02T08:59:30Z",
    fleet: OPEN_FLEET,
    governor: { max_concurrent: { api: 1, scheduled: 1 } },
  });
  const cron = { schedule: { kind: "cron", expr: "0 9 * * *" } };
  const first = kit.scheduler.createJob(jobInput({ name: "first", ...cron }));
  const second = kit.scheduler.createJob(jobInput({ name: "second", ...cron }));
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.start();
  await parked(kit);
  await kit.clock.advance(30_000); // 09:00:00: one runner, so one job starts
  const proc = await spawned;
  assert.equal(kit.store.listRuns(second.id).length, 0, "deferred for the fleet, not skipped");
  const next = kit.spawner.nextSpawn();
  await kit.clock.advance(5_000);
  proc.exit(0); // 09:00:05: the runner is free
  await kit.scheduler.whenSettled(kit.store.latestRun(first.id)!.id);
  await parked(kit);
  await kit.clock.advance(2_000); // a second later the deferred slot fires
  const again = await next;
  const run = kit.store.latestRun(second.id)!;
  assert.equal(run.queued_at, "2026-03-02T09:00:06Z", "fired a second after the runner freed");
  assert.equal(run.status, "running");
  assert.equal(run.slot, "2026-03-02T09:00:00Z");
  again.exit(0);
  await kit.scheduler.idle();
});
