// A push service that hangs never holds the scheduler (issue 12): delivery is off the run
// and tick paths. A real PushAdapter sits on the scheduler's delivery seam, aimed at the
// loopback stand-in scripted to never answer. The seam's deadline runs on the fake clock, so
// the hung fan-out stays in flight for as long as the test does not advance it: a run that
// finishes and the next tick must both complete while it is still hanging. The order is
// asserted, not the time; `settles` only turns a regression (a wait on delivery) into a
// failure instead of a test that never ends.

import assert from "node:assert/strict";
import { jobInput, makeKit, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";
import { startPushService } from "../../tests/fakes/push_service.ts";
import type { DeliveryEvent } from "../delivery/types.ts";
import { isoZ } from "../time.ts";
import { PushAdapter } from "./push_adapter.ts";
import { testPublishGate } from "../../tests/fakes/publish_gate.ts";
import { vapidKeyPair, type VapidState } from "./vapid.ts";

const KEYS: VapidState = {
  state: "ok",
  keys: {
    subject: "mailto:operator@outpost.example.org",
    ...vapidKeyPair("yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw"),
  },
};

/** Resolves with `p`, or fails (no wall-clock figure is asserted) if it never settles. */
async function settles<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} never completed while the push service hung`)),
      30_000,
    );
  });
  try {
    return await Promise.race([p, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test("a hanging push service holds neither a finishing run nor the next tick; the fan-out ends at the seam's deadline", async () => {
  await using kit = await makeKit();
  await using push = await startPushService(); // disposed first: releases the hung requests
  const sub = push.subscribe();
  kit.store.upsertPushSubscription(sub);
  push.script(sub.endpoint, ...Array<"hang">(10).fill("hang"));
  const adapter = new PushAdapter({
    store: kit.store,
    keys: () => KEYS,
    fetch: globalThis.fetch,
    resolve: () => Promise.reject(new Error("loopback only")),
    allowLoopback: true,
    clock: kit.clock,
    logger: kit.logger,
    gate: testPublishGate({ store: kit.store, home: kit.home, logger: kit.logger }),
  });
  kit.delivery.register(adapter);

  // A messenger-surface run finishes: its run report fans out to the hanging service.
  const report = kit.scheduler.createJob(jobInput({ name: "report", output_surface: "messenger" }));
  const next = kit.scheduler.createJob(jobInput({ name: "next" }));
  kit.store.setNextRunAt(report.id, isoZ(kit.clock.now()));
  const first = await settles(tickAndSpawn(kit), "the first tick");
  first.exit(0, { outcome: "ok", final_text: "all green" });
  const firstRun = kit.store.listRuns(report.id)[0]!;
  assert.equal(await settles(kit.scheduler.whenSettled(firstRun.id), "the finishing run"), "ok");
  await settles(push.arrived(1), "the run report's push"); // now hanging in the stand-in
  assert.deepEqual(kit.delivered.map((e) => e.kind), ["run_report"]);
  let deliveryIdle = false;
  void kit.delivery.idle().then(() => (deliveryIdle = true));

  // A second fan-out starts, then the next job falls due and is ticked.
  const alert: DeliveryEvent = {
    kind: "alert",
    alert: "dead_letter",
    job_id: report.id,
    title: "an alert",
    body: "while the first push hangs",
    priority: "high",
    at: isoZ(kit.clock.now()),
  };
  void kit.delivery.send(alert);
  kit.store.setNextRunAt(next.id, isoZ(kit.clock.now()));
  const second = await settles(tickAndSpawn(kit), "the tick with a hung fan-out");
  assert.equal(kit.store.listRuns(next.id)[0]!.status, "running");

  // The tick is done; the push service has answered nothing and delivery is still busy.
  assert.equal(push.received.length, 0);
  assert.equal(deliveryIdle, false);

  // The seam's deadline (10 s on the fake clock) cuts the hung sends; they wait for a retry.
  await kit.clock.advance(10_000);
  await settles(kit.delivery.idle(), "delivery after the deadline");
  assert.ok(adapter.retries.size(sub.endpoint) >= 1);
  second.exit(0, { outcome: "ok", final_text: "done" });
  await kit.scheduler.whenSettled(kit.store.listRuns(next.id)[0]!.id);
});
