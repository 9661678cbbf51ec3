// Figures of several outposts on one PostgreSQL (issue 32), on a throwaway loopback cluster
// (tests/pg_cluster.ts) and real `agent-outpost` processes started with the programs' flags:
//
//   lag         fire lag (slot → run started) p50/p99 for --jobs (1,000) every-minute jobs on 1 and on
//               3 nodes, over --minutes (2) of real time. The agent is /bin/true (a child per
//               fire; the governor at its highest, 64 runners a node, MAX_CONCURRENT_RUNS=64),
//               so the figure is the scheduler's and the database's, not a model's. A slot
//               no node has room for within a tick period is skipped (counted apart). Lock
//               waits: the nodes' sessions waiting on a lock (pg_stat_activity, sampled every
//               50 ms), in seconds over the run, by what they waited for.
//   throughput  runs completed per minute with a fake agent that sleeps 2 s (a shell script),
//               60 queued runs, 4 runners a node, on 1 and on 3 nodes: the ratio is the
//               scaling figure.
//   dashboard   in-process page latency (p50/p99 of --requests sequential requests) on
//               PostgreSQL against SQLite, each store holding 100 jobs and 100,000 runs.
//
//   deno run -A scripts/bench_fleet.ts [lag] [throughput] [dashboard] [--minutes 2] [--jobs 1000]
//
// Single-box start-up and memory with and without the PostgreSQL code:
// scripts/bench_single_box.ts.

import { join } from "node:path";
import { parseArgs } from "node:util";
import { silentLogger } from "../core/logger.ts";
import { envFrom, systemClock } from "../core/ports.ts";
import { PgConnection } from "../core/store/pg/pg_connection.ts";
import { PgStore } from "../core/store/pg/pg_store.ts";
import { outpostDbPath, SqliteStore } from "../core/store/sqlite_store.ts";
import type { NewRun, Store } from "../core/store/store.ts";
import { isoZ } from "../core/time.ts";
import { createApp } from "../server/app.ts";
import { openOutpost } from "../server/wiring.ts";
import { newJobFixture } from "../tests/fakes/job_fixture.ts";
import { FakeSpawner } from "../tests/fakes/spawner.ts";
import { freshDatabaseUrl, pgCluster } from "../tests/pg_cluster.ts";
import { tempHome } from "../tests/e2e/agent_process.ts";
import { type Outpost, startOutpost } from "../tests/e2e/outpost_process_kit.ts";
import { loadavg, quantile } from "./bench_rounds.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  allowPositionals: true,
  options: {
    minutes: { type: "string", default: "2" },
    jobs: { type: "string", default: "1000" },
    requests: { type: "string", default: "300" },
  },
});
const parts = positionals.length ? positionals : ["lag", "throughput", "dashboard"];

interface Node {
  home: string;
  outpost: Outpost;
}

async function startNodes(
  url: string,
  n: number,
  agent: string,
  runners: number,
  leaseS = 6,
): Promise<Node[]> {
  const nodes: Node[] = [];
  for (let i = 1; i <= n; i++) {
    const home = await tempHome();
    await Deno.mkdir(join(home, ".agent", "outpost"), { recursive: true, mode: 0o700 });
    await Deno.writeTextFile(
      join(home, ".agent", "outpost", "governor.json"),
      JSON.stringify({ max_concurrent: { api: runners, scheduled: runners } }),
      { mode: 0o600 },
    );
    const outpost = await startOutpost(home, {
      AGENT_OUTPOST_DATABASE_URL: url,
      AGENT_OUTPOST_NODE_ID: `n${i}`,
      AGENT_OUTPOST_LEASE_S: String(leaseS),
      AGENT_OUTPOST_AGENT_BIN: agent,
      MAX_CONCURRENT_RUNS: String(runners), // the hard sum cap (default 4)
    });
    nodes.push({ home, outpost });
  }
  return nodes;
}

async function stopNodes(nodes: Node[]): Promise<void> {
  for (const n of nodes) {
    n.outpost.child.kill("SIGTERM");
    await n.outpost.child.status;
    await n.outpost.stderr;
    await Deno.remove(n.home, { recursive: true });
  }
}

const seconds = (a: string, b: string) => (Date.parse(a) - Date.parse(b)) / 1000;
const p = (xs: number[], q: number) => xs.length ? quantile(xs, q) : NaN;

/** --jobs every-minute jobs, written straight into the store (the cap is 100 per door). */
async function fireLag(nodeCount: number): Promise<string> {
  const url = freshDatabaseUrl();
  const store = new PgStore({ url, clock: systemClock, maxJobs: 10_000 });
  const anchor = Date.now() + 20_000; // first slot after every node is up
  const first = isoZ(new Date(anchor));
  store.atomically(() => {
    for (let i = 0; i < Number(values.jobs); i++) {
      store.createJob(newJobFixture({
        name: `lag ${i}`,
        schedule: { kind: "every", expr: "1m", tz: "UTC" },
        workdir: "/tmp",
        next_run_at: first,
      }));
    }
  });
  const nodes = await startNodes(url, nodeCount, "/bin/true", 64);
  const minutes = Number(values.minutes);
  const waits = sampleLockWaits(url);
  await new Promise((r) => setTimeout(r, anchor - Date.now() + minutes * 60_000 + 5_000));
  const waited = waits.stop();
  await stopNodes(nodes);
  const lags: number[] = [];
  let skipped = 0;
  for (const job of store.listJobs()) {
    for (const run of store.listRuns(job.id, { limit: 1000 })) {
      if (run.started_at === null) {
        skipped++;
        continue;
      }
      // The slot the run was fired for (migration 011); before it, slots were first + k
      // minutes and a run's slot the last one at or before its queueing.
      const k = Math.floor(seconds(run.queued_at, first) / 60);
      lags.push(seconds(run.started_at, run.slot ?? isoZ(new Date(anchor + k * 60_000))));
    }
  }
  store.close();
  return `| ${nodeCount} | ${lags.length} | ${skipped} | ${p(lags, 0.5)} | ${p(lags, 0.99)} | ${
    Object.entries(waited).map(([what, s]) => `${what} ${s.toFixed(1)} s`).join(", ") || "none"
  } |`;
}

/**
 * Samples every 50 ms which of the nodes' sessions wait on a lock (advisory: the fleet's write
 * lock or the rollup lock; transactionid / tuple: a row another transaction holds). Returns the
 * seconds waited by kind when stopped. Its own connection, so it never waits itself.
 */
function sampleLockWaits(url: string): { stop(): Record<string, number> } {
  const db = new PgConnection({ url, application: "bench-sampler" });
  const waited: Record<string, number> = {};
  const timer = setInterval(() => {
    const rows = db.prepare(
      `SELECT wait_event FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND datname = current_database()`,
    ).all() as { wait_event: string }[];
    for (const r of rows) waited[r.wait_event] = (waited[r.wait_event] ?? 0) + 0.05;
  }, 50);
  return {
    stop() {
      clearInterval(timer);
      db.close();
      return waited;
    },
  };
}

/** 60 queued runs of a 2 s sleeping agent; runs finished per minute. */
async function throughput(nodeCount: number, agent: string): Promise<number> {
  const url = freshDatabaseUrl();
  const nodes = await startNodes(url, nodeCount, agent, 4, 3);
  const store = new PgStore({ url, clock: systemClock });
  const jobs = Array.from({ length: 60 }, (_, i) =>
    store.createJob(newJobFixture({
      name: `sleep ${i}`,
      schedule: { kind: "every", expr: "1d", tz: "UTC" },
      workdir: "/tmp",
      next_run_at: "2099-01-01T00:00:00Z",
    })));
  const started = Date.now();
  const rows: NewRun[] = jobs.map((j) => ({
    job_id: j.id,
    status: "queued",
    attempt: 1,
    priority: 10,
    class: "scheduled",
  }));
  store.createRuns(rows);
  let done = 0;
  while (done < 60 && Date.now() - started < 600_000) {
    await new Promise((r) => setTimeout(r, 250));
    done = jobs.filter((j) => {
      const r = store.latestRun(j.id);
      return r !== null && r.finished_at !== null;
    }).length;
  }
  const minutes = (Date.now() - started) / 60_000;
  await stopNodes(nodes);
  store.close();
  return done / minutes;
}

function fillRuns(store: Store): void {
  store.atomically(() => {
    for (let i = 0; i < 100; i++) {
      store.createJob(newJobFixture({
        name: `job ${i}`,
        schedule: { kind: "cron", expr: "0 9 * * *", tz: "UTC" },
        workdir: "/tmp",
        next_run_at: "2099-01-01T09:00:00Z",
      }));
    }
  });
  const statuses = ["ok", "ok", "ok", "error", "needs_human", "skipped"] as const;
  let t = Date.now() - 100_000 * 1000;
  for (let r = 0; r < 1000; r++) {
    const batch: NewRun[] = [];
    for (let j = 1; j <= 100; j++) {
      t += 1000;
      const at = isoZ(new Date(t));
      batch.push({
        job_id: j,
        status: statuses[(r + j) % statuses.length]!,
        attempt: 1,
        priority: 10,
        class: "scheduled",
        queued_at: at,
        started_at: at,
        finished_at: at,
        tokens_in: 1200,
        tokens_out: 150,
      });
    }
    store.createRuns(batch);
  }
}

async function dashboard(): Promise<string[]> {
  const paths = ["/api/jobs", "/runs", "/runs?status=error", "/jobs/7", "/audit"];
  const out: string[] = [];
  const requests = Number(values.requests);
  const samples: Record<string, Record<string, number[]>> = {};
  const engines: { name: string; env: Record<string, string> }[] = [
    { name: "sqlite", env: {} },
    { name: "postgres", env: { AGENT_OUTPOST_DATABASE_URL: freshDatabaseUrl() } },
  ];
  const apps = [];
  for (const e of engines) {
    const home = await Deno.makeTempDir({ prefix: "bench_dash_" });
    const fillStore = e.name === "sqlite"
      ? new SqliteStore({ path: outpostDbPath(home), clock: systemClock, maxJobs: 1000 })
      : new PgStore({ url: e.env.AGENT_OUTPOST_DATABASE_URL!, clock: systemClock });
    fillRuns(fillStore);
    fillStore.close();
    const outpost = await openOutpost({
      home,
      env: envFrom({ PATH: "/usr/bin:/bin", AGENT_OUTPOST_NODE_ID: "bench", ...e.env }),
      clock: systemClock,
      logger: silentLogger,
      spawner: new FakeSpawner(),
      agentCommand: { command: "false", args: [] },
      fetch: globalThis.fetch,
      baseUrl: "http://127.0.0.1",
      memoryRoot: `${home}/memory`,
      jobDefaults: {},
    });
    apps.push({ name: e.name, home, outpost, app: createApp(outpost.deps) });
    samples[e.name] = Object.fromEntries(paths.map((p) => [p, []]));
  }
  // Interleaved: each round asks every page of both engines once.
  for (let i = 0; i < requests; i++) {
    for (const a of apps) {
      for (const path of paths) {
        const t0 = performance.now();
        const res = await a.app.request(`http://127.0.0.1${path}`);
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${a.name} ${path}: ${res.status}`);
        samples[a.name]![path]!.push(performance.now() - t0);
      }
    }
  }
  out.push("| page | SQLite p50 / p99 ms | PostgreSQL p50 / p99 ms |", "|---|---|---|");
  for (const path of paths) {
    const s = samples.sqlite![path]!;
    const g = samples.postgres![path]!;
    out.push(
      `| ${path} | ${p(s, 0.5).toFixed(2)} / ${p(s, 0.99).toFixed(2)} | ${p(g, 0.5).toFixed(2)} / ${
        p(g, 0.99).toFixed(2)
      } |`,
    );
  }
  for (const a of apps) {
    await a.outpost.close();
    await Deno.remove(a.home, { recursive: true });
  }
  return out;
}

pgCluster();
console.log(`load average at start: ${loadavg()}`);
if (parts.includes("lag")) {
  console.log(
    `\nFire lag, ${values.jobs} every-minute jobs, ${values.minutes} min (seconds; started_at has`,
  );
  console.log(
    "whole seconds):\n| nodes | runs started | fires skipped | p50 | p99 | lock waits |\n" +
      "|---|---|---|---|---|---|",
  );
  for (const n of [1, 3]) console.log(await fireLag(n));
  console.log(`load average: ${loadavg()}`);
}
if (parts.includes("throughput")) {
  const dir = await Deno.makeTempDir({ prefix: "bench_agent_" });
  const agent = join(dir, "sleep-agent");
  await Deno.writeTextFile(agent, "#!/bin/sh\nsleep 2\n", { mode: 0o755 });
  const one = await throughput(1, agent);
  const three = await throughput(3, agent);
  console.log(`\nRuns per minute, 60 runs of a 2 s agent, 4 runners a node:`);
  console.log(`| 1 node | ${one.toFixed(0)} |\n| 3 nodes | ${three.toFixed(0)} |`);
  console.log(`scaling: ${(three / one).toFixed(2)}x; load average: ${loadavg()}`);
  await Deno.remove(dir, { recursive: true });
}
if (parts.includes("dashboard")) {
  console.log(`\nDashboard, 100 jobs and 100,000 runs, ${values.requests} requests a page:`);
  for (const line of await dashboard()) console.log(line);
  console.log(`load average: ${loadavg()}`);
}
pgCluster().stop();
