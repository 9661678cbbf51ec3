// One fleet node's tick in a thread of its own, for core/scheduler/fleet_rows_test.ts: two
// nodes in one thread can never tick at the same time (the store's calls are synchronous), so
// each runs here. It opens its node (tests/fakes/fleet_node.ts), answers "ready", waits for
// "go", fires the jobs due at `now` (fire.ts fireTick, as Scheduler's tick does, without
// starting runs) and answers how many fire records it wrote.

/// <reference lib="deno.worker" />

import { fireTick } from "../../core/scheduler/fire.ts";
import { fleetNode } from "./fleet_node.ts";

export interface TickWorkerInit {
  url: string;
  id: string;
  now: string;
}

export type TickWorkerReply = { ready: true } | { fired: number } | { error: string };

let go: () => void;
const started = new Promise<void>((resolve) => go = resolve);

self.onmessage = async (event: MessageEvent<TickWorkerInit | "go">) => {
  if (event.data === "go") return go();
  const { url, id, now } = event.data;
  const reply = (r: TickWorkerReply) => self.postMessage(r);
  try {
    const node = await fleetNode(url, id, now, { timeoutMs: 20_000 });
    reply({ ready: true });
    await started;
    let fired = 0;
    try {
      fireTick(node.scheduler.ctx, new Date(now), null, { api: 0, scheduled: 0 }, (outcomes) => {
        fired += outcomes.filter((o) => o.kind !== "none").length;
      });
    } finally {
      await node.close();
    }
    reply({ fired });
  } catch (err) {
    reply({ error: err instanceof Error ? err.stack ?? err.message : String(err) });
  }
};
