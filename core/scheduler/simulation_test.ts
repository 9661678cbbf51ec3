// A month of 100 jobs on virtual time, checked for the scheduler's invariants: caps never
// exceeded, single-flight held, every due fire accounted for (ran, skipped with a reason,
// or held), retries spaced by the backoff table, one-shots run exactly once.

import assert from "node:assert/strict";
import { runSimulation } from "../../tests/fakes/scheduler_simulation.ts";

Deno.test("30 days, 100 jobs: every invariant holds", async () => {
  const { violations, stats } = await runSimulation({ days: 30, jobs: 100, seed: 42 });
  assert.deepEqual(violations, []);
  assert.equal(stats.fires, stats.expected_fires, "every slot has exactly one fire record");
  assert.ok(stats.fires > 10_000, `a busy month (${stats.fires} fires)`);
  assert.ok(stats.max_running <= 4);
  assert.ok(stats.max_running_class.scheduled <= 2 && stats.max_running_class.api <= 2);
  // The month exercised every path, so the invariants above are not vacuous.
  assert.ok(stats.max_running_class.scheduled === 2, "scheduled cap reached");
  assert.ok(stats.skipped_governor > 0, "governor skips");
  assert.ok(stats.skipped_single_flight > 0, "single-flight skips");
  assert.ok(stats.retries > 0, "retries");
  assert.ok(stats.timeouts > 0, "timeouts");
  assert.ok(stats.dead_lettered > 0, "dead-letters");
  assert.ok((stats.by_status.needs_human ?? 0) > 0, "needs_human");
  assert.ok(stats.resumes > 0, "resumes");
  assert.ok(stats.one_shots > 0, "one-shots");
});

Deno.test("a tight governor (total 2, queue depth 1): caps hold and excess submissions are refused", async () => {
  const { violations, stats } = await runSimulation({
    days: 7,
    jobs: 40,
    seed: 7,
    totalCap: 2,
    governor: { queue_depth_max: 1, max_concurrent: { api: 1, scheduled: 2 } },
    // Submissions every 1-16 minutes, so some meet a full queue (retries and resumes no
    // longer fill it: only submissions count toward queue_depth_max).
    submitEvery: { minMs: 60_000, spreadMs: 900_000 },
  });
  assert.deepEqual(violations, []);
  assert.ok(stats.max_running <= 2);
  assert.ok(stats.max_running_class.api <= 1);
  assert.ok(stats.capacity_refusals > 0, "queue depth refusals happened");
  assert.equal(stats.fires, stats.expected_fires);
});
