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
  assert.deepEqual(limiter.take("s"), { ok: true });
  // A flood spread over the window: each refusal still points at the one admitted hit.
  for (let elapsed = 1000; elapsed < 60_000; elapsed += 1000) {
    await clock.advance(1000);
    assert.deepEqual(limiter.take("s"), { ok: false, retryInMs: 60_000 - elapsed });
  }
  // The admitted hit leaves the window; refusals from the last minute would still be in it.
  await clock.advance(1001);
  assert.deepEqual(limiter.take("s"), { ok: true });
});
