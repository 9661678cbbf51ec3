// The scheduler's reads of due jobs on both engines: lockDueJobs pages the due jobs in
// (next_run_at, id) order after a cursor (a fleet's tick takes them in bounded batches), and
// nextSlotAfter is the earliest upcoming slot (the scheduler wakes for it).

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";
import { storeTest } from "../../tests/store_backends.ts";

storeTest("lockDueJobs pages the due jobs by (slot, id) after a cursor; nextSlotAfter", (b) => {
  const store = b.open(new FakeClock("2026-03-02T09:00:00Z"));
  try {
    const job = (name: string, next_run_at: string | null, enabled = true) =>
      store.createJob(newJobFixture({ name, next_run_at, enabled })).id;
    const late = job("late", "2026-03-02T09:00:00Z");
    const early1 = job("early 1", "2026-03-02T08:00:00Z");
    const early2 = job("early 2", "2026-03-02T08:00:00Z");
    const middle = job("middle", "2026-03-02T08:30:00Z");
    job("paused", "2026-03-02T08:00:00Z", false);
    job("future", "2026-03-02T09:00:01Z");
    job("never", null);
    const at = "2026-03-02T09:00:00Z";
    const first = store.lockDueJobs(at, 2, null);
    assert.deepEqual(first.map((j) => j.id), [early1, early2]);
    const last = first[1]!;
    const second = store.lockDueJobs(at, 2, { next_run_at: last.next_run_at!, id: last.id });
    assert.deepEqual(second.map((j) => j.id), [middle, late]);
    const end = store.lockDueJobs(at, 2, { next_run_at: "2026-03-02T09:00:00Z", id: late });
    assert.deepEqual(end, []);
    assert.equal(store.nextSlotAfter(at), "2026-03-02T09:00:01Z", "after, not at");
    assert.equal(store.nextSlotAfter("2026-03-02T09:00:01Z"), null);
  } finally {
    store.close();
  }
});
