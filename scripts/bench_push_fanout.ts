// Browser push figures (issue 12), reported as ratios so they travel between machines:
//
// 1. Fan-out: the time for one event to reach 100 subscriptions on the loopback push-service
//    stand-in (tests/fakes/push_service.ts: it decrypts every message and verifies every
//    VAPID JWT), against the time for one subscription.
// 2. A dead push service never delays the others: with 100 subscriptions on a refused port,
//    or on a stand-in that never answers (the seam cuts it at its 10 s deadline, the service
//    would have hung 30 s), the chat adapter's latency (send() to the chat adapter holding
//    the event) and a scheduler tick (a due job to its child being spawned) are timed against
//    the same with no push adapter at all.
//
//   deno run -A scripts/bench_push_fanout.ts [--rounds 15]

import { parseArgs } from "node:util";
import { FakeClock } from "../tests/fakes/clock.ts";
import { newJobFixture } from "../tests/fakes/job_fixture.ts";
import { startPushService } from "../tests/fakes/push_service.ts";
import { FakeProcessTable, FakeSpawner } from "../tests/fakes/spawner.ts";
import { Delivery } from "../core/delivery/delivery.ts";
import type { DeliveryEvent } from "../core/delivery/types.ts";
import { DEFAULT_GOVERNOR_CONFIG, governorPath } from "../core/governor/config.ts";
import { Governor } from "../core/governor/governor.ts";
import { silentLogger } from "../core/logger.ts";
import { envFrom, systemClock } from "../core/ports.ts";
import { PushAdapter } from "../core/push/push_adapter.ts";
import { vapidKeyPair } from "../core/push/vapid.ts";
import { Scheduler } from "../core/scheduler/scheduler.ts";
import { SqliteStore } from "../core/store/sqlite_store.ts";
import { isoZ } from "../core/time.ts";
import { testPublishGate } from "../tests/fakes/publish_gate.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "15" } } });
const ROUNDS = Number(values.rounds);
const KEYS = {
  state: "ok" as const,
  keys: {
    subject: "mailto:bench@localhost",
    ...vapidKeyPair(
      "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw",
    ),
  },
};
const EVENT: DeliveryEvent = {
  kind: "inbox_item",
  item_id: 12,
  job_id: 4,
  run_id: 9,
  risk: "medium",
  title: "triage needs you",
  body: "Which branch should the fix go to?",
  priority: "high",
  at: "2026-03-02T09:00:00Z",
};

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function pushAdapter(store: SqliteStore): PushAdapter {
  return new PushAdapter({
    store,
    keys: () => KEYS,
    fetch: globalThis.fetch,
    resolve: () => Promise.reject(new Error("loopback only")),
    allowLoopback: true,
    clock: systemClock,
    logger: silentLogger,
    gate: testPublishGate({ store, home: Deno.makeTempDirSync(), logger: silentLogger }),
  });
}

// ---------- 1. fan-out, 1 vs 100 subscriptions ----------

// Both fan-outs go to one stand-in and their rounds alternate (1, 100, 1, 100 …), so load
// from other processes on a shared machine falls on both sides of the ratio alike.
async function fanOutMs(): Promise<{ one: number; hundred: number }> {
  await using push = await startPushService();
  const stores = [1, 100].map((n) => {
    const store = new SqliteStore({ path: ":memory:", clock: systemClock });
    for (let i = 0; i < n; i++) store.upsertPushSubscription(push.subscribe());
    return store;
  });
  try {
    const adapters = stores.map(pushAdapter);
    const times: number[][] = [[], []];
    for (const adapter of adapters) await adapter.send(EVENT, new AbortController().signal); // warm-up (loads web-push)
    for (let r = 0; r < ROUNDS; r++) {
      for (const [i, adapter] of adapters.entries()) {
        const t0 = performance.now();
        await adapter.send(EVENT, new AbortController().signal);
        times[i]!.push(performance.now() - t0);
      }
    }
    if (push.rejected.length > 0) throw new Error(`stand-in rejected: ${push.rejected[0]}`);
    if (push.received.length !== 101 * (ROUNDS + 1)) {
      throw new Error(`expected ${101 * (ROUNDS + 1)} pushes, got ${push.received.length}`);
    }
    return { one: median(times[0]!), hundred: median(times[1]!) };
  } finally {
    for (const store of stores) store.close();
  }
}

const load = () => Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
const loadBefore = load();
const { one, hundred } = await fanOutMs();
console.log(`load average (1/5/15 min) before: ${loadBefore}; after: ${load()}`);
console.log(`fan-out, 1 subscription:    ${one.toFixed(2)} ms (median of ${ROUNDS}, interleaved)`);
console.log(`fan-out, 100 subscriptions: ${hundred.toFixed(2)} ms`);
console.log(`  ratio 100:1 = ${(hundred / one).toFixed(1)}x (16 in flight at a time)`);

// ---------- 2. a dead push service vs the chat adapter and the scheduler tick ----------

type Dead = "none" | "refused" | "hang";

async function withDeadPush<T>(dead: Dead, fn: (delivery: Delivery) => Promise<T>): Promise<T> {
  await using push = await startPushService();
  const store = new SqliteStore({ path: ":memory:", clock: systemClock });
  const delivery = new Delivery({ clock: systemClock, logger: silentLogger });
  try {
    if (dead !== "none") {
      const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      const port = (closed.addr as Deno.NetAddr).port;
      closed.close();
      for (let i = 0; i < 100; i++) {
        const sub = push.subscribe();
        if (dead === "hang") push.script(sub.endpoint, ...Array(1000).fill("hang"));
        store.upsertPushSubscription(
          dead === "refused" ? { ...sub, endpoint: `http://127.0.0.1:${port}/push/${i}` } : sub,
        );
      }
      delivery.register(pushAdapter(store));
    }
    return await fn(delivery);
  } finally {
    await push[Symbol.asyncDispose](); // releases hung requests so the seam settles
    await delivery.idle();
    store.close();
  }
}

async function chatLatencyMs(dead: Dead): Promise<number> {
  return await withDeadPush(dead, async (delivery) => {
    let got: ((t: number) => void) | null = null;
    delivery.register({
      name: "chat",
      send: () => {
        got?.(performance.now());
        return Promise.resolve();
      },
    });
    const times: number[] = [];
    for (let r = 0; r < ROUNDS * 4; r++) {
      const arrived = new Promise<number>((resolve) => (got = resolve));
      const t0 = performance.now();
      void delivery.send(EVENT);
      times.push((await arrived) - t0);
    }
    return median(times);
  });
}

async function tickMs(dead: Dead): Promise<number> {
  return await withDeadPush(dead, async (delivery) => {
    const home = await Deno.makeTempDir({ prefix: "push_bench_" });
    const clock = new FakeClock("2026-03-02T09:00:00Z");
    const store = new SqliteStore({ path: ":memory:", clock });
    try {
      for (let i = 0; i < 20; i++) {
        store.createJob(newJobFixture({
          name: `job-${i}`,
          schedule: { kind: "every", expr: "365d", tz: "UTC" },
          workdir: "/tmp",
          next_run_at: "2027-03-03T09:00:00Z",
        }));
      }
      const env = envFrom({});
      const spawner = new FakeSpawner();
      const scheduler = new Scheduler({
        store,
        clock,
        env,
        spawner,
        governor: new Governor(
          { path: governorPath(home), env, clock, store },
          structuredClone(DEFAULT_GOVERNOR_CONFIG),
        ),
        delivery,
        logger: silentLogger,
        processes: new FakeProcessTable(),
        agentCommand: { command: "agent", args: [] },
        home,
      });
      const times: number[] = [];
      for (let r = 0; r < ROUNDS * 2; r++) {
        const job = (r % 20) + 1;
        clock.set(new Date(clock.now().getTime() + 1000));
        store.setNextRunAt(job, isoZ(clock.now()));
        void delivery.send(EVENT); // a fan-out to the dead service is in flight during the tick
        const spawned = spawner.nextSpawn();
        const t0 = performance.now();
        await scheduler.tick();
        const proc = await spawned;
        times.push(performance.now() - t0);
        proc.exit(0);
        await scheduler.idle();
      }
      return median(times);
    } finally {
      store.close();
      await Deno.remove(home, { recursive: true });
    }
  });
}

for (
  const figure of [["chat adapter latency", chatLatencyMs], ["scheduler tick", tickMs]] as const
) {
  const [name, measure] = figure;
  const base = await measure("none");
  const refused = await measure("refused");
  const hang = await measure("hang");
  console.log(`${name}: no push ${base.toFixed(3)} ms`);
  console.log(
    `  with 100 subscriptions refusing connections: ${refused.toFixed(3)} ms, ratio ${
      (refused / base).toFixed(2)
    }x`,
  );
  console.log(
    `  with 100 subscriptions on a service that hangs: ${hang.toFixed(3)} ms, ratio ${
      (hang / base).toFixed(2)
    }x`,
  );
}
