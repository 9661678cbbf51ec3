// Outpost HTTP benchmark (issue targets: GET /api/jobs p99 < 20 ms at 32 concurrent
// connections with 100 jobs and 100,000 runs in the store; idle resident memory < 80 MiB).
//
//   deno run -A scripts/bench_outpost_http.ts [--requests 4000] [--seconds 20]
//
// 1. Fills a temp AGENT_HOME's store: 100 jobs, 1,000 runs each.
// 2. The figure of record, what a user sees: starts `agent-outpost --port 0` as its own
//    process (deno run with the outpost's flags) on that home and a bare Hono handler in a
//    process of its own (scripts/bench_bare_server.ts), loads both with the same closed loop
//    (32 workers issuing fetches back to back, bounded in count and time), reports the ratio,
//    and reads the outpost's VmRSS from /proc/<pid>/status when idle, after 1,000 requests and
//    after the load. The outpost runs with the push adapter active (a VAPID key file, checked
//    on /api/push/status). MATRIX: the Matrix adapter is active only with a real homeserver;
//    to measure with it, set MX_HOMESERVER, MX_TOKEN, MX_ROOM and MX_ALLOWLIST in this script's
//    environment (e.g. against a local Synapse) and they are passed to the outpost; without
//    them its pill is dormant and the output says so; with them, idle is read once the bot's
//    first sync has succeeded (the pill is ok). scripts/bench_outpost_rss.ts starts a Synapse
//    and runs this script with and without MX_*. `--rss-only` stops after the memory figures.
// 3. A diagnostic: the same app and a bare handler served in this process. Its latencies
//    include the load generator's own work on the same event loop, so they run higher than
//    the process figures; it isolates the app's cost (cache on and off) without IPC noise.
// 4. The history pages (issue 18 target: p99 < 20 ms in process): /runs with each filter
//    and the 24 h / 7 d charts, /jobs/<id>, /audit with filters and a run page with its
//    transcript, then the memory pane's writes (PUT and DELETE /api/memory/file, with the
//    CSRF cookie and header), each against the same bare handler, in `--rounds N` (3)
//    interleaved rounds. The runs are the last ~28 hours, so the 24 h chart covers ~86,000
//    of them. `--history-only` skips steps 1 to 3; `--page-concurrency N` (4) sets the
//    connections of this step. `--identity` loads the pages uncompressed (see PLAIN_GET).

import { fillBenchHome } from "./bench_outpost_fill.ts";
import { type LoadOptions, type Sample, sampleLoad, show } from "./bench_http_load.ts";
import { type Stats, statsOf, type Target } from "./bench_http_load.ts";
import { parseArgs } from "node:util";
import { Hono } from "hono";
import { silentLogger } from "../core/logger.ts";
import { envFrom, systemClock } from "../core/ports.ts";
import { FakeSpawner } from "../tests/fakes/spawner.ts";
import { createApp } from "../server/app.ts";
import { openOutpost } from "../server/wiring.ts";
import { denoRunArgs, RUN_ENV, RUN_FLAGS } from "./permissions.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const JOBS = 100;
const RUNS_PER_JOB = 1000;
const CONCURRENCY = 32;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    requests: { type: "string", default: "4000" },
    seconds: { type: "string", default: "20" },
    "history-only": { type: "boolean", default: false },
    "rss-only": { type: "boolean", default: false },
    "page-concurrency": { type: "string", default: "4" },
    rounds: { type: "string", default: "3" },
    identity: { type: "boolean", default: false },
  },
});
const HISTORY_ONLY = values["history-only"];
const RSS_ONLY = values["rss-only"];
const REQUESTS = Number(values.requests);
const SECONDS = Number(values.seconds);
/** Interleaved rounds of step 4 (the baseline is loaded again in every round). */
const ROUNDS = Number(values.rounds);
/** Memory files on the root while its writes are measured (a busy install has hundreds). */
const MEMORY_FILES = 300;
const MEMORY_WARMUP = 50;

/** Page views are an operator's browser, not a fleet of machines: fewer connections. */
const PAGE_CONCURRENCY = Number(values["page-concurrency"]);

/**
 * fetch asks for gzip, br and deflate, so pages are measured compressed (the outpost compresses
 * with hono/compress since issue 30). `--identity` asks for none: the render cost alone, the
 * figure to compare with runs from before compression.
 */
const PLAIN_GET: RequestInit = values.identity
  ? { headers: { "Accept-Encoding": "identity" } }
  : {};

/** How this run's loads go (the command line's --requests, --seconds and --identity). */
const LOAD: LoadOptions = { requests: REQUESTS, seconds: SECONDS, plainGet: PLAIN_GET };

function sample(
  target: Target,
  concurrency: number,
  requests = REQUESTS,
  warmup = 200,
): Promise<Sample> {
  return sampleLoad(target, concurrency, LOAD, requests, warmup);
}

async function load(url: string, concurrency = CONCURRENCY): Promise<Stats> {
  return statsOf([await sample(url, concurrency)]);
}

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  const kb = Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]);
  return kb / 1024;
}

/** The Matrix variables passed through to the outpost when this script has them. */
const MATRIX_VARS = ["MX_HOMESERVER", "MX_TOKEN", "MX_ROOM", "MX_ALLOWLIST"];

/** A VAPID private key file (PEM PKCS#8, P-256), so the outpost's push adapter is active. */
async function writeVapidKey(dir: string): Promise<string> {
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
  ]);
  const der = new Uint8Array(await crypto.subtle.exportKey("pkcs8", pair.privateKey));
  const b64 = btoa(String.fromCharCode(...der)).replace(/(.{64})/g, "$1\n");
  const path = `${dir}/vapid.pem`;
  await Deno.writeTextFile(
    path,
    `-----BEGIN PRIVATE KEY-----\n${b64}\n-----END PRIVATE KEY-----\n`,
    {
      mode: 0o600,
    },
  );
  return path;
}

async function spawnServer(
  args: string[],
  home: string,
  extraEnv: Record<string, string> = {},
): Promise<{ child: Deno.ChildProcess; url: string }> {
  const child = new Deno.Command(Deno.execPath(), {
    args,
    env: {
      ...RUN_ENV,
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      AGENT_HOME: home,
      NO_COLOR: "1",
      // Keep the module cache, or the child would try to download every npm package again.
      DENO_DIR: Deno.env.get("DENO_DIR") ??
        `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`,
      ...extraEnv,
    },
    clearEnv: true,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${args.at(-1)} exited: ${seen}`);
    seen += value;
    const m = /listening on (\S+)/.exec(seen);
    if (m) {
      reader.releaseLock();
      void child.stdout.cancel().catch(() => {});
      return { child, url: m[1]! };
    }
  }
}

const home = await Deno.makeTempDir({ prefix: "bench_outpost_" });
try {
  const t0 = performance.now();
  fillBenchHome(home, JOBS, RUNS_PER_JOB);
  console.log(
    `store: ${JOBS} jobs, ${JOBS * RUNS_PER_JOB} runs (filled in ${
      ((performance.now() - t0) / 1000).toFixed(1)
    } s)`,
  );
  console.log(
    `load: ${CONCURRENCY} concurrent connections, up to ${REQUESTS} requests or ${SECONDS} s each`,
  );
  // Latency on a shared machine moves with its load; print it so figures can be compared.
  console.log(
    `machine: ${navigator.hardwareConcurrency} CPUs, load average ${
      Deno.loadavg().map((n) => n.toFixed(2)).join(" ")
    }\n`,
  );

  if (RSS_ONLY) await outpostMemory();
  else {
    if (!HISTORY_ONLY) await processAndDiagnostic();
    await historyPages();
  }
} finally {
  await Deno.remove(home, { recursive: true });
}

/** The real agent-outpost with its adapters active, settled and idle. */
async function startOutpostIdle(): Promise<
  { proc: { child: Deno.ChildProcess; url: string }; matrix: string }
> {
  const adapters: Record<string, string> = {
    VAPID_PRIVATE_KEY_FILE: await writeVapidKey(home),
    VAPID_SUBJECT: "mailto:bench@example.org",
  };
  for (const name of MATRIX_VARS) {
    const value = Deno.env.get(name);
    if (value !== undefined) adapters[name] = value;
  }
  const proc = await spawnServer(
    [...denoRunArgs("agent-outpost", ROOT), "--port", "0"],
    home,
    adapters,
  );
  const push = await (await fetch(`${proc.url}api/push/status`)).json();
  if (push.state !== "ok") throw new Error(`push adapter not active: ${JSON.stringify(push)}`);
  const matrixOn = MATRIX_VARS.every((n) => adapters[n] !== undefined);
  if (matrixOn) await messengerSynced(proc.url);
  await new Promise((r) => setTimeout(r, 2000)); // settle: the number wanted is the idle figure
  const matrix = matrixOn
    ? "Matrix adapter on (MX_* set, bot synced)"
    : "Matrix adapter dormant (set MX_* against a Synapse to include it)";
  return { proc, matrix };
}

/** Waits until the bot's first sync has succeeded: the pill reads ok. */
async function messengerSynced(url: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const status = await (await fetch(`${url}api/messenger/status`)).json();
    if (status.state === "ok") return;
    if (Date.now() > deadline) {
      throw new Error(`Matrix bot never synced: ${JSON.stringify(status)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function requests1000(url: string): Promise<void> {
  for (let i = 0; i < 1000; i++) await (await fetch(`${url}api/jobs`)).arrayBuffer();
}

/**
 * `--rss-only`: the outpost's resident memory idle and after 1,000 requests, nothing else,
 * beside the bare Hono process given the same 1,000 requests: both grow by about as much
 * (Deno's HTTP stack and allocator warming up, not something the outpost keeps), so the
 * ratios to the bare process are the figures that say what the outpost itself costs.
 */
async function outpostMemory(): Promise<void> {
  const bare = await spawnServer(
    ["run", ...RUN_FLAGS, "-A", `${ROOT}/scripts/bench_bare_server.ts`],
    home,
  );
  const { proc, matrix } = await startOutpostIdle(); // includes a 2 s settle for both
  const bareIdle = rssMiB(bare.child.pid);
  const idle = rssMiB(proc.child.pid);
  await requests1000(bare.url);
  await requests1000(proc.url);
  const bareAfter = rssMiB(bare.child.pid);
  const after1000 = rssMiB(proc.child.pid);
  for (const p of [proc, bare]) {
    p.child.kill("SIGTERM");
    await p.child.status;
  }
  console.log(
    `agent-outpost RSS (push adapter active; ${matrix}): idle ${idle.toFixed(1)} MiB, ` +
      `after 1,000 requests ${after1000.toFixed(1)} MiB (+${(after1000 - idle).toFixed(1)})\n` +
      `bare Hono process RSS: idle ${bareIdle.toFixed(1)} MiB, after 1,000 requests ` +
      `${bareAfter.toFixed(1)} MiB (+${(bareAfter - bareIdle).toFixed(1)})\n` +
      `ratio vs bare: idle ${(idle / bareIdle).toFixed(2)}x, after 1,000 requests ` +
      `${(after1000 / bareAfter).toFixed(2)}x`,
  );
}

async function processAndDiagnostic(): Promise<void> {
  // 1. The figure of record: separate processes, as a user's browser or proxy sees them.
  const bareProc = await spawnServer(
    ["run", ...RUN_FLAGS, "-A", `${ROOT}/scripts/bench_bare_server.ts`],
    home,
  );
  const { proc, matrix } = await startOutpostIdle();
  const idle = rssMiB(proc.child.pid);
  await requests1000(proc.url);
  const after1000 = rssMiB(proc.child.pid);
  const bareProcStats = await load(`${bareProc.url}api/jobs`);
  const procStats = await load(`${proc.url}api/jobs`);
  await new Promise((r) => setTimeout(r, 2000));
  const afterLoad = rssMiB(proc.child.pid);
  for (const p of [proc, bareProc]) {
    p.child.kill("SIGTERM");
    await p.child.status;
  }
  const ratio = (s: Stats, base: Stats) =>
    `p50 ×${(s.p50 / base.p50).toFixed(1)}, p99 ×${(s.p99 / base.p99).toFixed(1)}, ` +
    `throughput ×${(s.rps / base.rps).toFixed(2)}`;
  console.log("figure of record (separate processes):");
  show("bare Hono handler (process)", bareProcStats);
  show("GET /api/jobs (agent-outpost process)", procStats);
  console.log(`ratio vs bare: ${ratio(procStats, bareProcStats)}`);
  console.log(
    `agent-outpost RSS (push adapter active; ${matrix}): idle after start ` +
      `${idle.toFixed(1)} MiB, after 1,000 requests ${after1000.toFixed(1)} MiB, after the load ` +
      `${afterLoad.toFixed(1)} MiB (${(afterLoad / idle).toFixed(2)}x idle)\n`,
  );

  // 2. Diagnostic: in process (the load generator shares the event loop; figures run high).
  const bare = new Hono();
  const constant = { jobs: [] };
  bare.get("/api/jobs", (c) => c.json(constant));
  const bareServer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, bare.fetch);

  const outpost = await openBenchOutpost();
  const app = createApp(outpost.deps);
  const appServer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  outpost.deps.listen = { hostname: "127.0.0.1", port: appServer.addr.port };

  const body = await (await fetch(`http://127.0.0.1:${appServer.addr.port}/api/jobs`)).json();
  if (body.jobs.length !== JOBS || !body.jobs[0].latest_run) {
    throw new Error("unexpected /api/jobs body");
  }
  const size = JSON.stringify(body).length;

  // The same app with its response cache off: every request queries and serializes.
  const uncachedDeps = { ...outpost.deps, dataVersion: null };
  const uncachedApp = createApp(uncachedDeps);
  const uncachedServer = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    uncachedApp.fetch,
  );
  uncachedDeps.listen = { hostname: "127.0.0.1", port: uncachedServer.addr.port };

  const bareStats = await load(`http://127.0.0.1:${bareServer.addr.port}/api/jobs`);
  const appStats = await load(`http://127.0.0.1:${appServer.addr.port}/api/jobs`);
  const uncachedStats = await load(`http://127.0.0.1:${uncachedServer.addr.port}/api/jobs`);
  console.log("diagnostic (in process; shares the event loop with the load generator):");
  show("bare Hono handler (in process)", bareStats);
  show(`GET /api/jobs (in process, ${(size / 1024).toFixed(0)} KiB)`, appStats);
  show("GET /api/jobs, cache off (in process)", uncachedStats);
  console.log(
    `ratio vs bare: ${ratio(appStats, bareStats)}; cache off: ${ratio(uncachedStats, bareStats)}`,
  );
  await uncachedServer.shutdown();
  await appServer.shutdown();
  await bareServer.shutdown();
  await outpost.close();

  console.log(
    `\ntargets (figure of record): p99 < 20 ms -> ${procStats.p99 < 20 ? "met" : "MISSED"}; ` +
      `idle RSS < 80 MiB -> ${idle < 80 ? "met" : "MISSED"}; ` +
      `RSS after 1,000 requests < 80 MiB -> ${after1000 < 80 ? "met" : "MISSED"}`,
  );
}

/** The outpost the in-process runs measure: the seeded home, a fake spawner, no agent binary. */
function openBenchOutpost(): ReturnType<typeof openOutpost> {
  return openOutpost({
    home,
    env: envFrom({ PATH: "/usr/bin:/bin" }),
    clock: systemClock,
    logger: silentLogger,
    spawner: new FakeSpawner(),
    agentCommand: { command: "false", args: [] },
    fetch: globalThis.fetch,
    baseUrl: "http://127.0.0.1",
    memoryRoot: `${home}/memory`,
    jobDefaults: {},
  });
}

/**
 * 4. The history pages and the memory pane's writes in process, each against the same
 * in-process bare handler. ROUNDS rounds, each loading the bare handler and then every
 * target in turn, so a change in the machine's load lands on the baseline too; each target's
 * rounds are pooled for its percentiles.
 */
async function historyPages(): Promise<void> {
  const bare = new Hono();
  bare.get("*", (c) => c.html("<p>bare</p>"));
  const bareServer = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, bare.fetch);
  const bareUrl = `http://127.0.0.1:${bareServer.addr.port}/runs`;
  const outpost = await openBenchOutpost();
  const app = createApp(outpost.deps);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, app.fetch);
  outpost.deps.listen = { hostname: "127.0.0.1", port: server.addr.port };
  const base = `http://127.0.0.1:${server.addr.port}`;
  const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const lastRun = outpost.deps.store.listRunHistory({ job_id: 1 }, { limit: 1 })[0]!;
  const paths = [
    // The landing page and the job list carry the usage totals (issue 30): run_usage reads.
    "/",
    "/jobs",
    ...(Deno.env.get("BENCH_NO_LIVE_PARTIALS") ? [] : ["/partials/runs-table"]),
    "/runs",
    "/runs?status=error",
    "/runs?class=scheduled&status=needs_human",
    "/runs?job=42&status=ok",
    `/runs?from=${day}T06:00&to=${day}T07:00`,
    "/runs?span=7d",
    "/runs?before=50000",
    "/jobs/42",
    "/audit",
    "/audit?actor=user:ann&action=answer",
    "/audit?actor=dashboard&target=job:7",
    `/runs/1/${lastRun.id}`,
  ];
  const sizes = new Map<string, number>();
  for (const path of paths) {
    const res = await fetch(`${base}${path}`);
    sizes.set(path, (await res.arrayBuffer()).byteLength);
    if (res.status !== 200) throw new Error(`${path}: HTTP ${res.status}`);
  }

  // The memory pane's writes (PUT and DELETE /api/memory/file) as the page sends them: CSRF
  // cookie and header, on a memory root of MEMORY_FILES files. A PUT flips one of 50 files
  // between two categories, so every request writes; a DELETE removes a file made for it
  // before the round (outside the timing).
  const memory = await outpost.deps.memory();
  for (let i = 0; i < MEMORY_FILES; i++) {
    memory.create(
      `/memories/facts/bench-${i}.md`,
      `---\ncategory: project-fact\n---\n# Bench fact ${i}\n${"Remember this. ".repeat(20)}\n`,
    );
  }
  const first = await fetch(`${base}/api/jobs`);
  const token = /outpost_csrf=([^;]+)/.exec(first.headers.get("set-cookie") ?? "")?.[1];
  await first.body?.cancel();
  if (!token) throw new Error("no CSRF cookie");
  const headers = {
    Cookie: `outpost_csrf=${token}`,
    "X-CSRF-Token": token,
    "Content-Type": "application/json",
  };
  let puts = 0;
  const put: Target = () => {
    const i = puts++;
    const category = Math.floor(i / 50) % 2 ? "project-fact" : "episodic";
    return [`${base}/api/memory/file`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ path: `/memories/facts/bench-${i % 50}.md`, category }),
    }];
  };
  let doomed = 0;
  const del: Target = () => {
    const path = `/memories/episodes/doomed-${doomed++}.md`;
    return [`${base}/api/memory/file?path=${encodeURIComponent(path)}`, {
      method: "DELETE",
      headers,
    }];
  };
  const makeDoomed = () => {
    for (let i = doomed; i < doomed + REQUESTS + MEMORY_WARMUP; i++) {
      memory.create(`/memories/episodes/doomed-${i}.md`, `---\ncategory: episodic\n---\nx ${i}\n`);
    }
  };

  const labels = ["bare", ...paths, "PUT /api/memory/file", "DELETE /api/memory/file"];
  const samples = new Map<string, Sample[]>(labels.map((l) => [l, []]));
  const loads: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(Deno.loadavg()[0]!.toFixed(2));
    samples.get("bare")!.push(await sample(bareUrl, PAGE_CONCURRENCY));
    for (const path of paths) {
      samples.get(path)!.push(await sample(`${base}${path}`, PAGE_CONCURRENCY));
    }
    samples.get("PUT /api/memory/file")!.push(
      await sample(put, PAGE_CONCURRENCY, REQUESTS, MEMORY_WARMUP),
    );
    makeDoomed();
    samples.get("DELETE /api/memory/file")!.push(
      await sample(del, PAGE_CONCURRENCY, REQUESTS, MEMORY_WARMUP),
    );
  }
  loads.push(Deno.loadavg()[0]!.toFixed(2));

  const bareStats = statsOf(samples.get("bare")!);
  console.log(
    `history pages and memory writes (in process, ${PAGE_CONCURRENCY} concurrent connections, ` +
      `${ROUNDS} interleaved rounds of up to ${REQUESTS} requests or ${SECONDS} s per target; ` +
      `1-min load average at each round: ${loads.join(", ")}):`,
  );
  show("bare Hono handler (in process)", bareStats);
  let worst = 0;
  for (const label of labels.slice(1)) {
    const s = statsOf(samples.get(label)!);
    worst = Math.max(worst, s.p99);
    const size = sizes.get(label);
    const name = size === undefined ? label : `GET ${label} (${(size / 1024).toFixed(0)} KiB)`;
    show(name.slice(0, 60), s);
    console.log(
      `${"".padEnd(34)} ratio vs bare: p50 ×${(s.p50 / bareStats.p50).toFixed(1)}, ` +
        `p99 ×${(s.p99 / bareStats.p99).toFixed(1)}`,
    );
  }
  console.log(
    `\ntarget (history pages and memory writes in process): p99 < 20 ms -> ${
      worst < 20 ? "met" : "MISSED"
    } (worst ${worst.toFixed(2)} ms)`,
  );
  await server.shutdown();
  await bareServer.shutdown();
  await outpost.close();
}
