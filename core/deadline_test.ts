import assert from "node:assert/strict";
import { FakeClock } from "../tests/fakes/clock.ts";
import { DeadlineError, withDeadline } from "./deadline.ts";

Deno.test("withDeadline passes the task's value or error through and leaves no timer", async () => {
  const clock = new FakeClock();
  assert.equal(await withDeadline(clock, 1000, "t", () => Promise.resolve(7)), 7);
  await assert.rejects(
    () => withDeadline(clock, 1000, "t", () => Promise.reject(new Error("no"))),
    /no/,
  );
  await assert.rejects(
    () =>
      withDeadline(clock, 1000, "t", () => {
        throw new Error("sync");
      }),
    /sync/,
  );
  assert.equal(clock.pending, 0);
});

Deno.test("withDeadline aborts the task's signal and rejects with DeadlineError when time is up", async () => {
  const clock = new FakeClock();
  const started = Promise.withResolvers<AbortSignal>();
  const result = withDeadline(clock, 500, "slow thing", (signal) => {
    started.resolve(signal);
    return new Promise<never>(() => {});
  });
  const settled = result.then(() => null, (err: unknown) => err); // handled from the start
  const signal = await started.promise;
  await clock.advance(500);
  const err = await settled;
  assert.ok(err instanceof DeadlineError);
  assert.equal(err.message, "slow thing took over 500 ms");
  assert.equal(signal.aborted, true);
});
