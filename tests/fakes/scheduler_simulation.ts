// A month of outpost life on virtual time: 100 jobs (every, cron, at) plus api one-shots,
// children with random durations and outcomes, answered inbox items, the real scheduler,
// governor and store. A discrete-event driver jumps the FakeClock straight to the next
// thing that happens (a tick, a backoff end, a timeout, a child exiting), so 30 days take
// seconds. Used by core/scheduler/simulation_test.ts (invariants), scheduler_bench.ts and
// scripts/bench_outpost_sim.ts (speed).

import { FakeClock } from "./clock.ts";
import { Delivery } from "../../core/delivery/delivery.ts";
import { MemoryLogger } from "../../core/logger.ts";
import {
  DEFAULT_GOVERNOR_CONFIG,
  type GovernorConfig,
  governorPath,
} from "../../core/governor/config.ts";
import { CapacityError } from "../../core/governor/errors.ts";
import { Governor } from "../../core/governor/governor.ts";
import { envFrom } from "../../core/ports.ts";
import { SqliteStore } from "../../core/store/sqlite_store.ts";
import type { JobClass, Run } from "../../core/store/store.ts";
import { type FakeProcess, FakeProcessTable, FakeSpawner } from "./spawner.ts";
import { firstRunAt } from "../../core/scheduler/next_run.ts";
import { nextFire, type Schedule } from "../../core/scheduler/schedule.ts";
import { Scheduler } from "../../core/scheduler/scheduler.ts";

export interface SimulationOptions {
  days?: number;
  jobs?: number;
  seed?: number;
  governor?: Partial<GovernorConfig>;
  totalCap?: number;
  /** Store file; default in-memory (the month is about scheduling, not disk speed). */
  dbPath?: string;
  /** Gap between background one-shots: minMs plus up to spreadMs (default 10 min + 4 h). */
  submitEvery?: { minMs: number; spreadMs: number };
}

export interface SimulationResult {
  runs: Run[];
  /** Violations of the invariants; empty when everything held. */
  violations: string[];
  stats: {
    fires: number;
    expected_fires: number;
    by_status: Record<string, number>;
    skipped_single_flight: number;
    skipped_governor: number;
    retries: number;
    resumes: number;
    one_shots: number;
    capacity_refusals: number;
    timeouts: number;
    dead_lettered: number;
    max_running: number;
    max_running_class: Record<JobClass, number>;
    spawns: number;
    /** Wall time of the month itself (without the invariant checks). */
    loop_ms: number;
  };
}

/** Small deterministic PRNG (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A plausible agent-job mix: mostly hourly to daily, a few every 15-30 minutes.
const EVERY = ["15m", "30m", "1h", "90m", "2h", "6h", "12h", "1d"];
const CRON = [
  "*/30 * * * *",
  "0 * * * *",
  "30 9 * * 1-5",
  "0 */4 * * *",
  "15 2 * * *",
  "0 18 * * 0",
  "45 1 * * *",
  "0 9,17 * * *",
];
const ZONES = ["UTC", "America/New_York", "Europe/Paris", "Asia/Tokyo", "Australia/Lord_Howe"];

export async function runSimulation(options: SimulationOptions = {}): Promise<SimulationResult> {
  const days = options.days ?? 30;
  const jobCount = options.jobs ?? 100;
  const random = rng(options.seed ?? 42);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  // Starts just before the US spring-forward so DST transitions happen inside the month.
  const start = Date.parse("2026-03-01T00:00:00Z");
  const end = start + days * 86_400_000;
  const home = await Deno.makeTempDir({ prefix: "outpost_sim_" });
  const clock = new FakeClock(new Date(start));
  const env = envFrom({ MAX_CONCURRENT_RUNS: String(options.totalCap ?? 4) });
  // The simulation studies the scheduler with 100 scheduled jobs plus a month of one-shots,
  // not the job cap (which counts both and is tested in the store and route tests), so its
  // store has room for every submission.
  const store = new SqliteStore({ path: options.dbPath ?? ":memory:", clock, maxJobs: 10_000 });
  const logger = new MemoryLogger();
  const config = {
    ...structuredClone(DEFAULT_GOVERNOR_CONFIG),
    tokens_per_hour: { api: 0, scheduled: 400_000 },
    ...options.governor,
  };
  const governor = new Governor({ path: governorPath(home), env, clock, store }, config);
  const delivery = new Delivery({ clock, logger });
  const spawner = new FakeSpawner();
  const processes = new FakeProcessTable();
  const scheduler = new Scheduler({
    store,
    clock,
    env,
    spawner,
    governor,
    delivery,
    logger,
    processes,
    agentCommand: { command: "agent", args: [] },
    home,
  });

  const violations: string[] = [];
  const classOf = new Map<number, JobClass>();
  const stats: SimulationResult["stats"] = {
    fires: 0,
    expected_fires: 0,
    by_status: {},
    skipped_single_flight: 0,
    skipped_governor: 0,
    retries: 0,
    resumes: 0,
    one_shots: 0,
    capacity_refusals: 0,
    timeouts: 0,
    dead_lettered: 0,
    max_running: 0,
    max_running_class: { api: 0, scheduled: 0 },
    spawns: 0,
    loop_ms: 0,
  };

  // ---- the month's cast ----
  for (let i = 0; i < jobCount; i++) {
    const roll = random();
    const tz = pick(ZONES);
    const schedule = roll < 0.4
      ? { kind: "every", expr: pick(EVERY), tz }
      : roll < 0.9
      ? { kind: "cron", expr: pick(CRON), tz }
      : {
        kind: "at",
        expr: new Date(start + Math.floor(random() * (end - start - 3_600_000)) + 60_000)
          .toISOString(),
        tz,
      };
    const job = scheduler.createJob({
      name: `job-${i}`,
      prompt: `task ${i}`,
      schedule,
      workdir: "/srv/work",
      timeout_s: random() < 0.2 ? 600 : 1800,
      max_retries: random() < 0.1 ? 0 : 3,
      priority: random() < 0.2 ? 1 + Math.floor(random() * 100) : null,
      output_surface: random() < 0.3 ? "messenger" : "",
    });
    classOf.set(job.id, "scheduled");
  }

  // ---- children: duration and outcome are drawn at spawn ----
  const ends = new Map<FakeProcess, { at: number; code: number; tokens: number }>();
  const runOf = new Map<FakeProcess, number>();
  spawner.onSpawn = (proc) => {
    stats.spawns++;
    const jobId = Number(proc.req.env.AGENT_JOB_ID);
    const live = spawner.live();
    const per: Record<JobClass, number> = { api: 0, scheduled: 0 };
    const jobsLive = new Set<number>();
    for (const p of live) {
      const id = Number(p.req.env.AGENT_JOB_ID);
      if (p !== proc && id === jobId) {
        violations.push(`single-flight broken: job ${jobId} spawned twice`);
      }
      jobsLive.add(id);
      per[classOf.get(id) ?? "scheduled"]++;
    }
    const total = per.api + per.scheduled;
    stats.max_running = Math.max(stats.max_running, total);
    for (const cls of ["api", "scheduled"] as const) {
      stats.max_running_class[cls] = Math.max(stats.max_running_class[cls], per[cls]);
      if (per[cls] > config.max_concurrent[cls]) {
        violations.push(`class cap exceeded: ${per[cls]} ${cls} at ${clock.now().toISOString()}`);
      }
    }
    if (total > governor.totalCap) violations.push(`total cap exceeded: ${total}`);
    const r = random();
    const duration = r < 0.05 ? 3_000_000 : 30_000 + Math.floor(random() * 1_500_000);
    const code = r < 0.05 ? 0 : r < 0.15 ? 1 : r < 0.19 ? 2 : 0;
    ends.set(proc, {
      at: clock.now().getTime() + duration,
      code,
      tokens: 1000 + Math.floor(random() * 20_000),
    });
  };

  // Inbox items are answered (60 %) or left open by a simulated operator on the delivery seam.
  const answers: { at: number; item: number }[] = [];
  delivery.register({
    name: "operator",
    send: (event) => {
      if (event.kind === "inbox_item" && random() < 0.6) {
        answers.push({
          at: clock.now().getTime() + 60_000 + Math.floor(random() * 7_200_000),
          item: event.item_id,
        });
      }
      return Promise.resolve();
    },
  });
  // Background one-shots arrive every few hours (or as often as the test asks).
  const submitEvery = options.submitEvery ?? { minMs: 600_000, spreadMs: 14_400_000 };
  let nextSubmit = start + Math.floor(random() * 7_200_000);

  const settleDone = async () => {
    // Wait for every admitted run to spawn or finish, then for finished children to be recorded.
    while (scheduler.activeRuns().some((a) => a.proc === null)) {
      await scheduler.nextEvent(() => true);
    }
    for (const a of scheduler.activeRuns()) {
      if (a.proc) runOf.set(a.proc as FakeProcess, a.runId);
    }
    for (const [proc, runId] of runOf) {
      if (proc.done) {
        if (proc.killed) stats.timeouts++;
        runOf.delete(proc);
        ends.delete(proc);
        await scheduler.whenSettled(runId);
      }
    }
  };

  const loopStart = performance.now();
  await scheduler.recover();
  await scheduler.step();
  await settleDone();
  for (;;) {
    let nextEnd = Infinity;
    let ending: FakeProcess | null = null;
    for (const [proc, e] of ends) {
      if (!proc.done && e.at < nextEnd) {
        nextEnd = e.at;
        ending = proc;
      }
    }
    const nextAnswer = answers.reduce((m, a) => Math.min(m, a.at), Infinity);
    const t = Math.min(scheduler.nextWakeAt(), nextEnd, nextAnswer, nextSubmit);
    if (t > end) break;
    clock.set(new Date(Math.max(t, clock.now().getTime())));
    if (t === nextEnd && ending) {
      const e = ends.get(ending)!;
      const questions = [{ kind: random() < 0.5 ? "question" : "approval", text: "Proceed?" }];
      ending.exit(e.code, {
        session_id: `s-${ending.pid}`,
        usage: { input_tokens: e.tokens, output_tokens: Math.floor(e.tokens / 10) },
        ...(e.code === 2 ? { questions: questions as never } : {}),
      });
    } else if (t === nextAnswer) {
      const i = answers.findIndex((a) => a.at === nextAnswer);
      const [a] = answers.splice(i, 1);
      if (store.getInboxItem(a!.item)?.state === "open") {
        const { run } = scheduler.resumeFromInbox(a!.item, "yes, go ahead", "simulation");
        if (run) stats.resumes++;
      }
    } else if (t === nextSubmit) {
      nextSubmit = t + submitEvery.minMs + Math.floor(random() * submitEvery.spreadMs);
      try {
        const { job } = scheduler.submitOneShot({
          name: "one-shot",
          prompt: "check the queue",
          workdir: "/srv/ranger",
          ...(random() < 0.3 ? { priority: 1 + Math.floor(random() * 9) } : {}),
        });
        classOf.set(job.id, "api");
        stats.one_shots++;
      } catch (err) {
        if (!(err instanceof CapacityError)) throw err;
        stats.capacity_refusals++;
      }
      // The queue gauge never reads over its maximum (retries and resumes are shown apart).
      const { queue } = scheduler.usage();
      if (queue.depth > queue.max) {
        violations.push(
          `queue gauge ${queue.depth} / ${queue.max} at ${clock.now().toISOString()}`,
        );
      }
    }
    await scheduler.step();
    await settleDone();
    await delivery.idle();
  }

  const loopMs = performance.now() - loopStart;
  // ---- invariants over the recorded history ----
  const jobs = store.listJobs();
  const runs: Run[] = [];
  const runsOf = new Map<number, Run[]>();
  for (const job of jobs) {
    const mine = store.listRuns(job.id, { limit: 10_000 }).reverse();
    runsOf.set(job.id, mine);
    runs.push(...mine);
  }
  for (const r of runs) stats.by_status[r.status] = (stats.by_status[r.status] ?? 0) + 1;
  const deadAt = new Map<number, string>();
  for (const row of store.listAudit({ action: "dead_letter", limit: 10_000 })) {
    deadAt.set(Number(row.target.replace("job:", "")), row.at);
  }
  stats.dead_lettered = deadAt.size;
  stats.loop_ms = Math.round(loopMs);
  for (const job of jobs) {
    const mine = runsOf.get(job.id)!;
    // Single-flight over time: no two runs of a job overlap.
    const ran = mine.filter((r) => r.started_at).sort((a, b) =>
      a.started_at!.localeCompare(b.started_at!)
    );
    for (let i = 1; i < ran.length; i++) {
      const prev = ran[i - 1]!;
      if (prev.finished_at === null || prev.finished_at > ran[i]!.started_at!) {
        violations.push(`job ${job.id}: runs ${prev.id} and ${ran[i]!.id} overlap`);
      }
    }
    for (const r of mine) {
      if (r.status === "skipped" && !r.reason) {
        violations.push(`run ${r.id} skipped without a reason`);
      }
      if (r.attempt > 1) stats.retries++;
      if (r.status === "skipped" && r.reason?.includes("single-flight")) {
        stats.skipped_single_flight++;
      }
      if (r.status === "skipped" && r.reason?.startsWith("governor:")) stats.skipped_governor++;
    }
    if (job.class === "api") {
      if (mine.filter((r) => r.attempt === 1 && r.resume_of_run === null).length !== 1) {
        violations.push(`one-shot job ${job.id} does not have exactly one first run`);
      }
      continue;
    }
    // Every due fire is accounted for: exactly one fire record (ran, skipped, held) per slot.
    const fires = mine.filter((r) => r.attempt === 1 && r.resume_of_run === null);
    const limit = Math.min(end, deadAt.has(job.id) ? Date.parse(deadAt.get(job.id)!) : end);
    const expected = slots(job.schedule, new Date(job.created_at), limit);
    stats.fires += fires.length;
    stats.expected_fires += expected.length;
    if (fires.length !== expected.length) {
      violations.push(
        `job ${job.id} (${job.schedule.kind} ${job.schedule.expr} ${job.schedule.tz}): ` +
          `${fires.length} fires recorded, ${expected.length} slots due`,
      );
    } else {
      for (let i = 0; i < fires.length; i++) {
        const lag = Date.parse(fires[i]!.queued_at) - expected[i]!;
        if (lag < 0 || lag >= 60_000) {
          violations.push(`job ${job.id}: fire ${fires[i]!.id} ${lag} ms from its slot`);
          break;
        }
      }
    }
  }
  // Retry spacing: a retry is queued the moment its attempt fails, with not_before after
  // the backoff for that attempt.
  const failedAt = new Map<string, Run>();
  for (const r of runs) if (r.status === "error") failedAt.set(`${r.job_id}@${r.finished_at}`, r);
  for (const r of runs) {
    if (r.attempt < 2 || r.not_before === null) continue;
    const prev = failedAt.get(`${r.job_id}@${r.queued_at}`);
    if (!prev || prev.attempt !== r.attempt - 1) {
      violations.push(`retry run ${r.id} has no failed attempt ${r.attempt - 1} before it`);
      continue;
    }
    const gap = (Date.parse(r.not_before) - Date.parse(prev.finished_at!)) / 1000;
    const want = [60, 120, 300][Math.min(prev.attempt, 3) - 1];
    if (gap !== want) {
      violations.push(`run ${r.id}: backoff ${gap}s after run ${prev.id}, expected ${want}s`);
    }
  }

  await scheduler.stop();
  for (const p of spawner.live()) p.killGroup();
  await scheduler.idle();
  await delivery.idle();
  store.close();
  await Deno.remove(home, { recursive: true });
  return { runs, violations, stats };
}

/** Slot times (epoch ms) of a schedule from creation up to `until`, as the tick sees them. */
function slots(schedule: Schedule, created: Date, until: number): number[] {
  const out: number[] = [];
  const first = firstRunAt(schedule, created);
  let at = first === null ? null : new Date(first);
  while (at && at.getTime() <= until) {
    out.push(at.getTime());
    at = schedule.kind === "at" ? null : nextFire(schedule, at);
  }
  return out;
}
