// Messenger figures against a real Synapse on loopback (issue 11):
//  1. command-to-reply latency: 100 `status` commands, median and p99, as a ratio to a bare
//     client-server round trip measured the same way (an operator's message seen back in
//     the operator's own sync, in a room without the bot);
//  2. the bot's resident memory after an hour of simulated traffic (time compressed on the
//     outpost's fake clock: a command every 10 s and a run report every minute);
//  3. the real agent-outpost's start-up time and memory with and without the four MX_*
//     variables (dormant never imports matrix-js-sdk).
//   deno run -A --v8-flags=--expose-gc scripts/bench_messenger.ts

import { join } from "node:path";
import { runReportEvent } from "../core/delivery/events.ts";
import { parseVerbs } from "../core/messenger/config.ts";
import { systemClock } from "../core/ports.ts";
import { startMessenger } from "../server/messenger/start.ts";
import { makeTestOutpost } from "../tests/fakes/test_outpost.ts";
import { jobInput } from "../tests/fakes/scheduler_kit.ts";
import { startOutpost, stop } from "../tests/e2e/outpost_process_kit.ts";
import { type MatrixUser, Synapse } from "../tests/e2e/synapse_kit.ts";

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function summary(ms: number[]): { median: number; p99: number } {
  const s = [...ms].sort((a, b) => a - b);
  return { median: quantile(s, 0.5), p99: quantile(s, 0.99) };
}

async function echo(user: MatrixUser, room: string): Promise<number> {
  const t0 = performance.now();
  const id = await user.send(room, "ping");
  await user.waitFor(room, (m) => m.event_id === id);
  return performance.now() - t0;
}

function rssMb(pid?: number): number {
  const text = Deno.readTextFileSync(`/proc/${pid ?? "self"}/status`);
  return Number(/VmRSS:\s+(\d+)/.exec(text)![1]) / 1024;
}

await using synapse = await Synapse.start();
const { alice, bot } = await synapse.users();
await using o = await makeTestOutpost({ baseUrl: "http://outpost.test" });
const dm = await alice.createRoom([bot.userId], "dm");
const plain = await alice.createRoom([], "plain");
const { verbs, setting } = parseVerbs(undefined);
const rssBefore = rssMb();
const messenger = await startMessenger({
  config: {
    homeserver: synapse.url,
    token: bot.token,
    room: dm,
    allowlist: new Set([alice.userId]),
    verbs,
    verbsSetting: setting,
  },
  store: o.store,
  scheduler: o.scheduler,
  inbox: o.deps.inbox,
  delivery: o.delivery,
  clock: o.clock,
  timers: systemClock,
  logger: o.logger,
  fetch: globalThis.fetch,
  publish: o.deps.publishGate,
  baseUrl: "http://outpost.test",
  workspacesRoot: join(o.home, "workspaces"),
  workdirPlaces: o.deps.workdirPlaces,
});
await alice.waitForJoin(dm, bot.userId);
await alice.command(dm, "status"); // warm-up

// 1. latency
const bare: number[] = [];
const cmd: number[] = [];
for (let i = 0; i < 100; i++) {
  if (i % 25 === 0) await o.clock.advance(61_000); // stay under 30 commands a minute
  bare.push(await echo(alice, plain));
  const t0 = performance.now();
  await alice.command(dm, "status");
  cmd.push(performance.now() - t0);
}
const b = summary(bare);
const c = summary(cmd);
console.log(
  `status command-to-reply: median ${c.median.toFixed(1)} ms, p99 ${c.p99.toFixed(1)} ms; ` +
    `bare round trip: median ${b.median.toFixed(1)} ms, p99 ${b.p99.toFixed(1)} ms; ` +
    `ratio median ${(c.median / b.median).toFixed(2)}x, p99 ${(c.p99 / b.p99).toFixed(2)}x`,
);

// 2. an hour of traffic, compressed: 360 commands (one per 10 s) and 60 run reports
const job = o.scheduler.createJob(jobInput({ workdir: o.home, output_surface: "messenger" }));
const run = o.store.createRun({
  job_id: job.id,
  status: "ok",
  attempt: 1,
  priority: 10,
  class: "scheduled",
});
// The JS heap after a full GC (run with --v8-flags=--expose-gc), or null: RSS alone cannot
// tell garbage V8 has not returned from what the bot keeps.
const gc = (globalThis as { gc?: () => void }).gc;
function heapMb(): number | null {
  if (!gc) return null;
  gc();
  return Deno.memoryUsage().heapUsed / 2 ** 20;
}
const rssStart = rssMb();
const heaps = [heapMb()];
const words = ["status", "list", "list jobs", "list schedules", "help", "stop 999"];
async function simulatedHour(): Promise<void> {
  for (let i = 0; i < 360; i++) {
    await o.clock.advance(10_000);
    await alice.command(dm, words[i % words.length]!);
    if (i % 6 === 0) {
      await o.delivery.send(
        runReportEvent(job, run, "ok", "report head ".repeat(100), o.clock.now().toISOString()),
      );
    }
  }
  await o.delivery.idle();
  heaps.push(heapMb());
}
await simulatedHour();
const rssHour = rssMb();
await simulatedHour();
console.log(
  `resident memory: ${rssBefore.toFixed(1)} MB before the bot started, ${
    rssStart.toFixed(1)
  } MB with it running, ${rssHour.toFixed(1)} MB after an hour of simulated traffic ` +
    `(360 commands, 60 run reports), ${rssMb().toFixed(1)} MB after a second hour`,
);
console.log(
  heaps[0] === null
    ? "JS heap after GC: run with --v8-flags=--expose-gc to measure it"
    : `JS heap after GC: ${heaps.map((h) => h!.toFixed(1)).join(" -> ")} MB ` +
      "(start, after each simulated hour)",
);
await messenger.stop();

// 3. the real outpost, dormant and configured
async function startup(env: Record<string, string>): Promise<{ ms: number; rss: number }> {
  const home = await Deno.makeTempDir({ prefix: "bench_mx_" });
  const t0 = performance.now();
  const p = await startOutpost(home, env);
  const ms = performance.now() - t0;
  if (env.MX_TOKEN) {
    for (;;) { // the configured bot has finished loading once its pill reads ok
      const s = await (await fetch(`${p.url}api/messenger/status`)).json();
      if (s.state === "ok") break;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  const rss = rssMb(p.child.pid);
  await stop(p);
  await Deno.remove(home, { recursive: true });
  return { ms, rss };
}
const mx = {
  MX_HOMESERVER: synapse.url,
  MX_TOKEN: bot.token,
  MX_ROOM: dm,
  MX_ALLOWLIST: alice.userId,
};
const dormant: { ms: number; rss: number }[] = [];
const configured: { ms: number; rss: number }[] = [];
for (let i = 0; i < 5; i++) {
  dormant.push(await startup({}));
  configured.push(await startup(mx));
}
const med = (xs: number[]) => summary(xs).median;
console.log(
  `agent-outpost to listening (median of 5): dormant ${
    med(dormant.map((x) => x.ms)).toFixed(0)
  } ms,` +
    ` ${med(dormant.map((x) => x.rss)).toFixed(1)} MB RSS; with MX_* set ${
      med(configured.map((x) => x.ms)).toFixed(0)
    } ms, ${med(configured.map((x) => x.rss)).toFixed(1)} MB RSS once the bot synced`,
);
