import assert from "node:assert/strict";
import { FakeClock } from "../tests/fakes/clock.ts";
import { SlidingLimiter } from "./sliding_limiter.ts";

Deno.test("the sliding window admits `limit` hits a minute and says when the next fits", async () => {
  const clock = new FakeClock("2026-03-02T09:00:00Z");
  const limiter = new SlidingLimiter(clock, 5);
  for (let i = 0; i < 5; i++) {
    assert.deepEqual(limiter.take("item:1"), { ok: true });
    await clock.advance(1000);
  }
  assert.deepEqual(limiter.take("item:1"), { ok: false, retryInMs: 55_000 });
  assert.deepEqual(limiter.take("item:2"), { ok: true }); // another key has its own window
  await clock.advance(55_000);
  assert.deepEqual(limiter.take("item:1"), { ok: true }); // the first hit left the window
});

Deno.test("refused hits are not counted, so a flood does not extend its own ban", async () => {
  const clock = new FakeClock("2026-03-02T09:00:00Z");
  const limiter = new SlidingLimiter(clock, 1);
  limiter.take("s");
  for (let i = 0; i < 100; i++) limiter.take("s");
  await clock.advance(60_001);
  assert.deepEqual(limiter.take("s"), { ok: true });
});
