import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { Delivery } from "./delivery.ts";
import { MemoryLogger } from "../logger.ts";
import type { DeliveryAdapter, DeliveryEvent } from "./types.ts";

const alert: DeliveryEvent = {
  kind: "alert",
  alert: "dead_letter",
  job_id: 3,
  title: "nightly\ndisabled",
  body: "boom\u0007",
  priority: "high",
  at: "2026-03-02T09:00:00Z",
};

function recorder(name: string, got: DeliveryEvent[]): DeliveryAdapter {
  return {
    name,
    send: (e) => {
      got.push(e);
      return Promise.resolve();
    },
  };
}

Deno.test("send fans out to every adapter and re-sanitizes the text", async () => {
  const delivery = new Delivery({ clock: new FakeClock(), logger: new MemoryLogger() });
  const a: DeliveryEvent[] = [];
  const b: DeliveryEvent[] = [];
  delivery.register(recorder("a", a));
  const off = delivery.register(recorder("b", b));
  assert.deepEqual(await delivery.send(alert), [{ adapter: "a", ok: true }, {
    adapter: "b",
    ok: true,
  }]);
  assert.equal(a[0]!.title, "nightly disabled");
  assert.equal(a[0]!.body, "boom");
  assert.deepEqual(a, b);
  off();
  await delivery.send(alert);
  assert.equal(a.length, 2);
  assert.equal(b.length, 1);
  assert.deepEqual(delivery.adapterNames, ["a"]);
});

Deno.test("a throwing adapter (sync or async) never blocks or fails another; errors are logged", async () => {
  const logger = new MemoryLogger();
  const delivery = new Delivery({ clock: new FakeClock(), logger });
  const got: DeliveryEvent[] = [];
  delivery.register({
    name: "sync",
    send: () => {
      throw new Error("sync boom");
    },
  });
  delivery.register({ name: "async", send: () => Promise.reject(new Error("503 from push")) });
  delivery.register(recorder("ok", got));
  const outcomes = await delivery.send(alert);
  assert.deepEqual(outcomes, [
    { adapter: "sync", ok: false, error: "sync boom", timed_out: false },
    { adapter: "async", ok: false, error: "503 from push", timed_out: false },
    { adapter: "ok", ok: true },
  ]);
  assert.equal(got.length, 1);
  assert.deepEqual(
    logger.entries.map((e) => [e.level, e.data?.adapter]),
    [["warn", "sync"], ["warn", "async"]],
  );
});

Deno.test("a hanging adapter is cut off at the timeout (its signal aborted) while others finish at once", async () => {
  const clock = new FakeClock();
  const logger = new MemoryLogger();
  const delivery = new Delivery({ clock, logger, timeoutMs: 5000 });
  let aborted: unknown = null;
  const started = Promise.withResolvers<void>();
  delivery.register({
    name: "hang",
    send: (_e, signal) => {
      started.resolve();
      signal.addEventListener("abort", () => (aborted = signal.reason));
      return new Promise(() => {});
    },
  });
  const got: DeliveryEvent[] = [];
  delivery.register(recorder("fast", got));
  const sending = delivery.send(alert);
  await started.promise;
  assert.equal(got.length, 1, "the fast adapter did not wait for the hung one");
  await clock.advance(5000);
  const outcomes = await sending;
  assert.deepEqual(outcomes[0], {
    adapter: "hang",
    ok: false,
    error: "adapter hang took over 5000 ms",
    timed_out: true,
  });
  assert.ok(aborted instanceof Error);
  assert.equal(clock.pending, 0, "no timer left behind");
  await delivery.idle();
});

Deno.test("finished sends leave no timers behind", async () => {
  const clock = new FakeClock();
  const delivery = new Delivery({ clock, logger: new MemoryLogger() });
  delivery.register(recorder("x", []));
  await delivery.send(alert);
  assert.equal(clock.pending, 0);
});
