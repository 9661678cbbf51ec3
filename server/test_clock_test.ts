import assert from "node:assert/strict";
import { FakeClock } from "../tests/fakes/clock.ts";
import { outpostClock } from "./test_clock.ts";

Deno.test("test clock: unset or blank, the outpost keeps the clock it was given", () => {
  const base = new FakeClock("2026-11-28T09:00:00Z");
  assert.equal(outpostClock(undefined, base), base);
  assert.equal(outpostClock("  ", base), base);
});

Deno.test("test clock: reads <virtual> at <real> and runs <speed> times as fast", async () => {
  const base = new FakeClock("2026-11-28T09:00:00Z");
  const clock = outpostClock("2026-03-29T00:40:00Z 2026-11-28T09:00:10Z 100", base);
  // Ten real seconds before the anchor: 1000 virtual seconds before the virtual start.
  assert.equal(clock.now().toISOString(), "2026-03-29T00:23:20.000Z");
  base.advance(10_000);
  assert.equal(clock.now().toISOString(), "2026-03-29T00:40:00.000Z");
  base.advance(600);
  assert.equal(clock.now().toISOString(), "2026-03-29T00:41:00.000Z");
  // A virtual minute's sleep ends after 600 real milliseconds.
  let woke = false;
  const sleeping = clock.sleep(60_000).then(() => woke = true);
  base.advance(599);
  await Promise.resolve();
  assert.equal(woke, false);
  base.advance(1);
  await sleeping;
  assert.equal(woke, true);
});

Deno.test("test clock: a malformed value is refused with one line naming the variable", () => {
  const base = new FakeClock("2026-11-28T09:00:00Z");
  for (
    const bad of [
      "2026-03-29T00:40:00Z",
      "2026-03-29 2026-11-28T09:00:10Z 100",
      "2026-03-29T00:40:00 2026-11-28T09:00:10Z 100", // no zone
      "2026-03-29T00:40:00Z 2026-11-28T09:00:10Z 0",
      "2026-03-29T00:40:00Z 2026-11-28T09:00:10Z 20000",
      "2026-03-29T00:40:00Z 2026-11-28T09:00:10Z fast",
      "2026-03-29T00:40:00Z 2026-11-28T09:00:10Z 100 extra",
      "2026-02-30T25:00:00Z 2026-11-28T09:00:10Z 100",
    ]
  ) {
    assert.throws(() => outpostClock(bad, base), /^Error: AGENT_OUTPOST_TEST_CLOCK: expected/, bad);
  }
});
