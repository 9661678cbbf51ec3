import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { MemoryLogger } from "../logger.ts";
import type { NewAuditRow } from "../store/store.ts";
import { AuditBurstTally, type TalliedRow } from "./burst_tally.ts";

function recorder() {
  const rows: NewAuditRow[] = [];
  return {
    rows,
    appendAudit: (r: NewAuditRow) => (rows.push(r), { id: rows.length, at: "", ...r }),
  };
}

const row = (detail: string): TalliedRow => ({
  action: "webhook_refused",
  target: "trigger:1",
  actor: "webhook:github",
  channel: "webhook",
  detail,
});

Deno.test("burst tally: the first refusal of a source and reason is written at once, the rest of its minute as one count", async () => {
  const clock = new FakeClock("2026-03-02T09:00:00Z");
  const store = recorder();
  const tally = new AuditBurstTally(store, new MemoryLogger(), clock);
  for (let i = 0; i < 500; i++) tally.record("addr:a", "bad_signature", row(`refusal ${i}`));
  tally.record("addr:a", "rate_limited", row("limited"));
  tally.record("addr:b", "bad_signature", row("other sender"));
  assert.deepEqual(store.rows.map((r) => r.detail), [
    "refusal 0 [from addr:a]",
    "limited [from addr:a]",
    "other sender [from addr:b]",
  ]);
  await clock.advance(60_000); // the timer writes the counts; a burst of one writes nothing
  assert.deepEqual(store.rows.slice(3).map((r) => [r.action, r.target, r.detail]), [[
    "webhook_refused",
    "trigger:1",
    "499 more bad_signature from addr:a in the minute after 2026-03-02T09:00:00Z " +
    "(counted, not written one by one)",
  ]]);
  assert.equal(tally.size, 0);
  // A new minute opens a new burst with its own first row.
  tally.record("addr:a", "bad_signature", row("again"));
  tally.record("addr:a", "bad_signature", row("again 2"));
  assert.equal(store.rows.at(-1)!.detail, "again [from addr:a]");
  tally.close(); // shutdown: what is counted is written, and the timer is gone
  assert.match(store.rows.at(-1)!.detail, /^1 more bad_signature from addr:a/);
  assert.equal(clock.pending, 0);
});

Deno.test("burst tally: memory is bounded; past maxKeys the oldest burst is written out early", () => {
  const clock = new FakeClock("2026-03-02T09:00:00Z");
  const store = recorder();
  const tally = new AuditBurstTally(store, new MemoryLogger(), clock, { maxKeys: 3 });
  for (let i = 0; i < 10; i++) {
    tally.record(`addr:${i}`, "bad_signature", row(`s${i}`));
    tally.record(`addr:${i}`, "bad_signature", row(`s${i} again`));
  }
  assert.ok(tally.size <= 3);
  // Every refusal is accounted for: ten first rows plus the counts of the evicted ones.
  const counted = store.rows.filter((r) => /^1 more/.test(r.detail)).length;
  assert.equal(store.rows.length - counted, 10);
  assert.equal(counted, 10 - tally.size);
  tally.close();
  assert.equal(store.rows.filter((r) => /^1 more/.test(r.detail)).length, 10);
});
