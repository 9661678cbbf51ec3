import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { AuditRepeatFilter } from "./repeat_filter.ts";

Deno.test("AuditRepeatFilter: one record per actor and target per minute", async () => {
  const clock = new FakeClock();
  const filter = new AuditRepeatFilter(clock);
  assert.equal(filter.shouldRecord("dashboard", "facts/a.md"), true);
  await clock.advance(59_999);
  assert.equal(filter.shouldRecord("dashboard", "facts/a.md"), false, "a reload within a minute");
  assert.equal(filter.shouldRecord("dashboard", "facts/b.md"), true, "another path");
  assert.equal(filter.shouldRecord("user:ann", "facts/a.md"), true, "another reader");
  await clock.advance(1);
  assert.equal(filter.shouldRecord("dashboard", "facts/a.md"), true, "a minute later");
  assert.equal(filter.shouldRecord("dashboard", "facts/a.md"), false);
});

Deno.test("AuditRepeatFilter: a clock stepped back records again rather than staying silent", () => {
  const clock = new FakeClock("2026-01-01T12:00:00Z");
  const filter = new AuditRepeatFilter(clock);
  assert.equal(filter.shouldRecord("a", "t"), true);
  clock.set("2026-01-01T11:00:00Z");
  assert.equal(filter.shouldRecord("a", "t"), true);
});

Deno.test("AuditRepeatFilter: memory stays bounded; forgotten pairs only ever record again", async () => {
  const clock = new FakeClock();
  const filter = new AuditRepeatFilter(clock, { maxKeys: 100 });
  for (let i = 0; i < 1000; i++) assert.equal(filter.shouldRecord("r", `p${i}`), true);
  assert.equal(filter.size, 100);
  // The newest 100 are remembered; the oldest were forgotten and record again.
  assert.equal(filter.shouldRecord("r", "p999"), false);
  assert.equal(filter.shouldRecord("r", "p0"), true);
  // After the window everything expires at the next record.
  await clock.advance(60_000);
  filter.shouldRecord("r", "fresh");
  assert.equal(filter.size, 1);
});
