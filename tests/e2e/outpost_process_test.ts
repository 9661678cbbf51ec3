// The outpost scheduler with real child processes (tests/fixtures/fake_agent.ts through the
// real process-group spawner) on a virtual clock: timeouts and backoffs happen when the test
// moves the clock, and every wait is on a signal (a run event, a FIFO, a closing pipe).

import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeClock } from "../fakes/clock.ts";
import { Delivery } from "../../core/delivery/delivery.ts";
import { MemoryLogger } from "../../core/logger.ts";
import type { DeliveryEvent } from "../../core/delivery/types.ts";
import { DEFAULT_GOVERNOR_CONFIG, governorPath } from "../../core/governor/config.ts";
import { Governor } from "../../core/governor/governor.ts";
import { envFrom } from "../../core/ports.ts";
import { linuxProcessTable } from "../../core/scheduler/proc.ts";
import { processSpawner } from "../../core/scheduler/process_spawner.ts";
import { Scheduler } from "../../core/scheduler/scheduler.ts";
import { outpostDbPath, SqliteStore } from "../../core/store/sqlite_store.ts";
import { mkfifo, readFifo } from "./outpost_fifo.ts";

const FAKE_AGENT = new URL("../fixtures/fake_agent.ts", import.meta.url).pathname;

async function realKit() {
  const home = await Deno.makeTempDir({ prefix: "outpost_e2e_" });
  const workdir = join(home, "work");
  await Deno.mkdir(workdir);
  const clock = new FakeClock("2026-03-02T09:00:00Z");
  const env = envFrom({
    PATH: Deno.env.get("PATH"),
    HOME: Deno.env.get("HOME") ?? home,
    NO_COLOR: "1",
  });
  const store = new SqliteStore({ path: outpostDbPath(home), clock });
  const logger = new MemoryLogger();
  const delivery = new Delivery({ clock, logger });
  const delivered: DeliveryEvent[] = [];
  delivery.register({
    name: "recorder",
    send: (e) => {
      delivered.push(e);
      return Promise.resolve();
    },
  });
  const scheduler = new Scheduler({
    store,
    clock,
    env,
    spawner: processSpawner,
    governor: new Governor(
      { path: governorPath(home), env, clock, store },
      structuredClone(DEFAULT_GOVERNOR_CONFIG),
    ),
    delivery,
    logger,
    processes: linuxProcessTable(),
    agentCommand: { command: Deno.execPath(), args: ["run", "-A", "--quiet", FAKE_AGENT] },
    home,
  });
  const job = (prompt: string, extra: Record<string, unknown> = {}) =>
    scheduler.createJob({
      name: "e2e",
      prompt,
      schedule: { kind: "every", expr: "1d", tz: "Asia/Tokyo" },
      workdir,
      ...extra,
    });
  /** Fires the job now and resolves with its run once the child is running. */
  const fire = async (jobId: number) => {
    clock.set(store.getJob(jobId)!.next_run_at!);
    const started = scheduler.nextEvent((e) => e.type === "run_started" && e.job_id === jobId);
    await scheduler.tick();
    const e = await started;
    return store.getRun(e.run_id)!;
  };
  return {
    home,
    workdir,
    clock,
    store,
    scheduler,
    delivered,
    delivery,
    job,
    fire,
    async [Symbol.asyncDispose]() {
      for (const a of scheduler.activeRuns()) a.proc?.killGroup();
      await scheduler.idle();
      await delivery.idle();
      store.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

Deno.test("a real child runs with the spec 4.4 command line and environment; ok keeps its report", async () => {
  await using kit = await realKit();
  // sleep:300 keeps the child alive while the runner reads its start identity: a child that has
  // already ended (and been reaped) has none to record.
  const job = kit.job("sleep:300 tokens:1200/300", { token_budget: 5000, mode: "strict" });
  const run = await kit.fire(job.id);
  assert.ok(run.pid! > 0);
  assert.match(run.pid_start!, /^[0-9a-f-]+:\d+$/, "process start identity recorded");
  assert.equal(await kit.scheduler.whenSettled(run.id), "ok");
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.exit_code, 0);
  assert.equal(done.tokens_in, 1200);
  assert.equal(done.tokens_out, 300);
  assert.equal(done.session_id, `sess-${run.pid}`);
  const report = await Deno.readTextFile(done.report_path!);
  assert.match(report, /^# fake agent report/);
  assert.match(report, /prompt: sleep:300 tokens:1200\/300/);
  assert.match(report, new RegExp(`workdir: ${kit.workdir} mode: strict budget: 5000`));
  assert.match(
    report,
    new RegExp(
      `env: TZ=Asia/Tokyo AGENT_JOB_ID=${job.id} AGENT_SANDBOX=container AGENT_COMPACT_THRESHOLD=0.85`,
    ),
  );
  assert.match(report, new RegExp(`cwd: ${kit.workdir}`));
  const log = await Deno.readTextFile(done.report_path!.replace(/\.md$/, ".log"));
  assert.match(log, /fake agent \d+ started/, "stderr goes to the log next to the report");
});

Deno.test("a child's memory reflection counts in the run's tokens and the hourly token rollup", async () => {
  await using kit = await realKit();
  // The real agent prints reflection_usage and counts it in usage (tests/e2e/
  // headless_reflection_test.ts); the fake does the same: 1200/300 for the run, 400/50 reflecting.
  const job = kit.job("sleep:300 tokens:1200/300 reflect:400/50");
  const run = await kit.fire(job.id);
  assert.equal(await kit.scheduler.whenSettled(run.id), "ok");
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.tokens_in, 1600);
  assert.equal(done.tokens_out, 350);
  // What the runs-per-hour chart and the governor's tokens_per_hour lever read.
  const hour = run.queued_at.slice(0, 13);
  assert.deepEqual(
    kit.store.tokensPerHour(run.queued_at).map((h) => ({ ...h })),
    [{ hour, key: "scheduled", n: 1950 }],
  );
  assert.equal(kit.store.tokensSince("scheduled", run.queued_at), 1950);
});

Deno.test("cancel SIGKILLs the whole process group: the grandchild dies too", async () => {
  await using kit = await realKit();
  const fifo = await mkfifo(join(kit.home, "pids"));
  const job = kit.job(`grandchild fifo:${fifo} hang`);
  const run = await kit.fire(job.id);
  const { pid: child, grandchild, closed } = await readFifo(fifo);
  assert.equal(child, run.pid);
  const procs = linuxProcessTable();
  assert.ok(procs.identity(grandchild), "grandchild alive before the cancel");
  const result = kit.scheduler.cancel(job.id);
  assert.equal(result.status, "cancelled");
  // whenSettled waits for the child's stdout to close, which the grandchild shares: it
  // resolves only once every process of the group has exited.
  assert.equal(await kit.scheduler.whenSettled(run.id), "cancelled");
  await closed; // the child's FIFO end closed with it
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.status, "cancelled");
  assert.equal(done.exit_code, 137);
  assert.equal(kit.store.listRuns(job.id).length, 1, "not retried");
  const again = kit.scheduler.cancel(job.id);
  assert.ok(again.status === "cancelled" && result.status === "cancelled");
  assert.equal(again.cancelled_at, result.cancelled_at, "idempotent");
});

Deno.test("timeout_s reached: the group is SIGKILLed, the attempt is an error and a retry is queued", async () => {
  await using kit = await realKit();
  const fifo = await mkfifo(join(kit.home, "pids"));
  const job = kit.job(`grandchild fifo:${fifo} hang`, { timeout_s: 60 });
  const run = await kit.fire(job.id);
  const { closed } = await readFifo(fifo);
  kit.clock.set(new Date(Date.parse(run.started_at!) + 60_000));
  await kit.scheduler.step();
  assert.equal(await kit.scheduler.whenSettled(run.id), "error");
  await closed;
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.exit_code, 137);
  assert.equal(done.reason, "timed out after 60s; process group killed");
  const retry = kit.store.latestRun(job.id)!;
  assert.equal(retry.status, "queued");
  assert.equal(retry.attempt, 2);
  assert.equal(Date.parse(retry.not_before!) - Date.parse(done.finished_at!), 60_000);
  kit.scheduler.cancel(job.id); // do not leave the retry behind
});

Deno.test("exit 1 with real children: retried after 60, 120, 300 s, then dead-lettered", async () => {
  await using kit = await realKit();
  const job = kit.job("exit:1");
  let run = await kit.fire(job.id);
  const gaps: number[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    assert.equal(await kit.scheduler.whenSettled(run.id), "error");
    const failed = kit.store.getRun(run.id)!;
    assert.equal(failed.attempt, attempt);
    assert.equal(failed.reason, "fake failure");
    const retry = kit.store.latestRun(job.id)!;
    gaps.push((Date.parse(retry.not_before!) - Date.parse(failed.finished_at!)) / 1000);
    kit.clock.set(retry.not_before!);
    const started = kit.scheduler.nextEvent((e) => e.type === "run_started");
    await kit.scheduler.step();
    run = kit.store.getRun((await started).run_id)!;
  }
  assert.equal(await kit.scheduler.whenSettled(run.id), "error");
  assert.deepEqual(gaps, [60, 120, 300]);
  const dead = kit.store.getJob(job.id)!;
  assert.equal(dead.enabled, false);
  assert.match(dead.dead_letter_reason!, /4 consecutive failed attempts/);
  await kit.delivery.idle();
  assert.equal(
    kit.delivered.filter((e) => e.kind === "alert" && e.alert === "dead_letter").length,
    1,
  );
});

Deno.test("exit 2 opens an inbox item; answering resumes the session in a new real child", async () => {
  await using kit = await realKit();
  const job = kit.job("exit:2 kind:approval");
  const run = await kit.fire(job.id);
  assert.equal(await kit.scheduler.whenSettled(run.id), "needs_human");
  const [item] = kit.store.listInbox({ state: "open" });
  assert.ok(item);
  assert.deepEqual(item.questions, [{ kind: "approval", text: "Which branch?" }]);
  assert.equal(item.meta.risk, "high");
  const started = kit.scheduler.nextEvent((e) => e.type === "run_started");
  const { run: resume } = kit.scheduler.resumeFromInbox(item.id, "main, -- carefully");
  await kit.scheduler.step();
  await started;
  assert.equal(await kit.scheduler.whenSettled(resume!.id), "ok");
  const report = await Deno.readTextFile(kit.store.getRun(resume!.id)!.report_path!);
  assert.match(report, new RegExp(`resume: sess-${run.pid}`));
  assert.match(report, /prompt: main, -- carefully/);
});

Deno.test("a child that dies without its result: the run's reason carries its last stderr line", async () => {
  await using kit = await realKit();
  const job = kit.job("crash", { max_retries: 0 });
  const run = await kit.fire(job.id);
  assert.equal(await kit.scheduler.whenSettled(run.id), "error");
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.exit_code, 1);
  assert.equal(
    done.reason,
    "agent exited with code 1 and printed no result: error: Uncaught Error: the disk is on fire",
  );
});
