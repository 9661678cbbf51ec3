import assert from "node:assert/strict";
import { join } from "node:path";
import { backoffSeconds, sentence } from "./outcomes.ts";
import { SINGLE_BOX } from "./fleet.ts";
import type { JobStamp } from "./job_input.ts";
import { jobInput, type Kit, makeKit, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";
import {
  fifoWithWriter,
  replaceWithSymlink,
  SECRET,
  secretFile,
} from "../../tests/fakes/hostile_report.ts";

async function fireOnce(kit: Kit, overrides: Record<string, unknown> = {}, stamp?: JobStamp) {
  const job = kit.scheduler.createJob(
    jobInput({ schedule: { kind: "every", expr: "1d" }, ...overrides }),
    stamp,
  );
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  const run = kit.store.latestRun(job.id)!;
  return { job, proc, run };
}

Deno.test("backoff is 60 s, 120 s, then 300 s for every later attempt", () => {
  assert.deepEqual([1, 2, 3, 4, 9].map(backoffSeconds), [60, 120, 300, 300, 300]);
});

Deno.test("exit 0 records ok with the child's tokens, session, model, duration and kept report path", async () => {
  await using kit = await makeKit();
  const { job, proc, run } = await fireOnce(kit);
  const report = proc.arg("--output")!;
  assert.ok(report.startsWith(join(kit.home, "outpost", "runs", String(job.id)) + "/"));
  assert.match(report, /\/\d{8}T\d{6}Z\.md$/);
  await Deno.writeTextFile(report, "# done\n");
  kit.clock.set(new Date(kit.clock.now().getTime() + 90_000));
  proc.exit(0, {
    outcome: "ok",
    exit_code: 0,
    session_id: "s-1",
    usage: { input_tokens: 1200, output_tokens: 340 },
    cost_usd: 0.012,
    model: "qwen3-32b",
    duration_ms: 40,
  });
  assert.equal(await kit.scheduler.whenSettled(run.id), "ok");
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.status, "ok");
  assert.equal(done.exit_code, 0);
  assert.equal(done.tokens_in, 1200);
  assert.equal(done.tokens_out, 340);
  assert.equal(done.cost_usd, 0.012);
  // The model the child used and its own duration (ms, not the wall-clock 90 s), for /runs.
  assert.equal(done.model, "qwen3-32b");
  assert.equal(done.duration_ms, 40);
  assert.equal(done.session_id, "s-1");
  assert.equal(done.report_path, report);
  assert.equal(await Deno.readTextFile(report), "# done\n", "report kept");
  assert.equal(kit.store.listRuns(job.id).length, 1, "no retry");
  assert.equal(kit.governor.tokensLastHour("scheduled"), 1540);
});

Deno.test("exit 1 retries after 60, 120 and 300 s, then dead-letters the job past max_retries", async () => {
  await using kit = await makeKit();
  const { job, proc } = await fireOnce(kit);
  let current = proc;
  const delays: number[] = [];
  for (let attempt = 1; attempt <= 3; attempt++) {
    const finishedAt = kit.clock.now().getTime();
    current.exit(1, { error: `boom ${attempt}` });
    await kit.scheduler.idle();
    const retry = kit.store.latestRun(job.id)!;
    assert.equal(retry.status, "queued");
    assert.equal(retry.attempt, attempt + 1);
    const wait = Date.parse(retry.not_before!) - finishedAt;
    delays.push(wait / 1000);
    assert.ok(kit.scheduler.nextWakeAt() <= Date.parse(retry.not_before!), "loop wakes for it");
    kit.clock.set(new Date(Date.parse(retry.not_before!) - 1000));
    await kit.scheduler.step();
    assert.equal(kit.spawner.live().length, 0, "not before its backoff");
    kit.clock.set(retry.not_before!);
    const spawned = kit.spawner.nextSpawn();
    await kit.scheduler.step();
    current = await spawned;
  }
  assert.deepEqual(delays, [60, 120, 300]);
  current.exit(1, { error: "boom 4" });
  await kit.scheduler.idle();
  const runs = kit.store.listRuns(job.id);
  assert.deepEqual(runs.map((r) => r.status), ["error", "error", "error", "error"]);
  assert.deepEqual(runs.map((r) => r.attempt), [4, 3, 2, 1]);
  assert.equal(runs[0]!.reason, "boom 4");
  const dead = kit.store.getJob(job.id)!;
  assert.equal(dead.enabled, false);
  assert.equal(dead.failure_count, 4);
  assert.match(
    dead.dead_letter_reason!,
    /4 consecutive failed attempts \(max_retries 3\); last: boom 4\. Fix the cause/,
  );
  await kit.delivery.idle();
  const alerts = kit.delivered.filter((e) => e.kind === "alert" && e.alert === "dead_letter");
  assert.equal(alerts.length, 1);
  // Re-enabling clears the failure count and the dead-letter state.
  const revived = kit.scheduler.setEnabled(job.id, true);
  assert.equal(revived.failure_count, 0);
  assert.equal(revived.dead_letter_reason, null);
  assert.equal(revived.disabled_reason, null);
  assert.ok(revived.next_run_at! > dead.updated_at);
});

Deno.test("a success resets the consecutive failure count", async () => {
  await using kit = await makeKit();
  const { job, proc } = await fireOnce(kit);
  proc.exit(1);
  await kit.scheduler.idle();
  assert.equal(kit.store.getJob(job.id)!.failure_count, 1);
  kit.clock.set(kit.store.latestRun(job.id)!.not_before!);
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.step();
  (await spawned).exit(0);
  await kit.scheduler.idle();
  assert.equal(kit.store.getJob(job.id)!.failure_count, 0);
  assert.equal(kit.store.latestRun(job.id)!.status, "ok");
});

Deno.test("max_retries 0 dead-letters on the first failure", async () => {
  await using kit = await makeKit();
  const { job, proc } = await fireOnce(kit, { max_retries: 0 });
  proc.exit(1);
  await kit.scheduler.idle();
  assert.equal(kit.store.listRuns(job.id).length, 1);
  assert.equal(kit.store.getJob(job.id)!.enabled, false);
});

Deno.test("timeout_s kills the whole process group; the attempt is an error and is retried", async () => {
  await using kit = await makeKit();
  const { job, proc, run } = await fireOnce(kit, { timeout_s: 120 });
  const deadline = Date.parse(run.started_at!) + 120_000;
  assert.equal(kit.scheduler.activeRuns()[0]!.deadline, deadline);
  kit.clock.set(new Date(deadline - 30_000));
  await kit.scheduler.step(); // a tick, so the next wake is the deadline, not the tick
  assert.equal(kit.scheduler.nextWakeAt(), deadline);
  kit.clock.set(new Date(deadline - 1));
  await kit.scheduler.step();
  assert.equal(proc.killed, false);
  kit.clock.set(new Date(deadline));
  await kit.scheduler.step();
  assert.equal(proc.killed, true, "SIGKILL to the group");
  assert.equal(await kit.scheduler.whenSettled(run.id), "error");
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.exit_code, 137);
  assert.equal(done.reason, "timed out after 120s; process group killed");
  const retry = kit.store.latestRun(job.id)!;
  assert.equal(retry.status, "queued");
  assert.equal(retry.attempt, 2);
});

Deno.test("exit 2 is needs_human: terminal, an inbox item with risk, a high alert, schedule goes on", async () => {
  await using kit = await makeKit();
  const { job, proc, run } = await fireOnce(kit, {}, { meta: { room: "!ops:example.org" } });
  proc.exit(2, {
    outcome: "needs_human",
    session_id: "sess-42",
    questions: [{ kind: "approval", text: "Push the release tag?" }],
    usage: { input_tokens: 10, output_tokens: 5 },
  });
  assert.equal(await kit.scheduler.whenSettled(run.id), "needs_human");
  assert.equal(kit.store.listRuns(job.id).length, 1, "never retried");
  const [item] = kit.store.listInbox({ state: "open" });
  assert.ok(item);
  assert.equal(item.run_id, run.id);
  assert.deepEqual(item.questions, [{ kind: "approval", text: "Push the release tag?" }]);
  assert.equal(item.meta.risk, "high");
  assert.equal(item.meta.room, "!ops:example.org");
  const after = kit.store.getJob(job.id)!;
  assert.equal(after.enabled, true);
  assert.ok(after.next_run_at! > run.queued_at, "schedule continues");
  await kit.delivery.idle();
  const inboxEvent = kit.delivered.find((e) => e.kind === "inbox_item");
  assert.ok(inboxEvent?.kind === "inbox_item");
  assert.equal(inboxEvent.item_id, item.id);
  assert.equal(inboxEvent.risk, "high");
  assert.equal(inboxEvent.priority, "high");
  assert.equal(inboxEvent.room, "!ops:example.org");
  const alert = kit.delivered.find((e) => e.kind === "alert");
  assert.ok(alert?.kind === "alert");
  assert.equal(alert.alert, "needs_human");
  assert.equal(alert.priority, "high");
  assert.ok(!kit.delivered.some((e) => e.kind === "run_report"), "surface is not messenger");
});

Deno.test("question-only needs_human items are medium risk; missing questions fail closed", async () => {
  await using kit = await makeKit();
  const a = await fireOnce(kit, { name: "a" });
  a.proc.exit(2, { questions: [{ kind: "question", text: "Which branch?" }], session_id: "s" });
  await kit.scheduler.idle();
  kit.scheduler.setEnabled(a.job.id, false);
  const b = await fireOnce(kit, { name: "b" });
  b.proc.exit(2, "not json at all");
  await kit.scheduler.idle();
  const items = kit.store.listInbox();
  assert.deepEqual(items.map((i) => [i.job_id, i.meta.risk]), [[b.job.id, "high"], [
    a.job.id,
    "medium",
  ]]);
  assert.deepEqual(items[0]!.questions, []);
});

Deno.test("messenger jobs deliver a run report (sanitized head, deep link) on ok and needs_human", async () => {
  await using kit = await makeKit();
  const { job, proc, run } = await fireOnce(kit, { output_surface: "messenger" });
  const report = proc.arg("--output")!;
  await Deno.writeTextFile(report, "# Report\u0007\n" + "x".repeat(5000));
  proc.exit(0, { final_text: "fallback" });
  await kit.scheduler.idle();
  await kit.delivery.idle();
  const ev = kit.delivered.find((e) => e.kind === "run_report");
  assert.ok(ev?.kind === "run_report");
  assert.equal(ev.link, `/runs/${job.id}/${run.id}`);
  assert.equal(ev.outcome, "ok");
  assert.equal(ev.job_id, job.id);
  assert.ok(ev.body.startsWith("# Report\nxxx"), "control character stripped");
  assert.ok(Array.from(ev.body).length <= 1500);
  assert.ok(ev.body.endsWith("…"));
});

Deno.test("a child that cannot be started is a failed attempt with the cause", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput({ schedule: { kind: "every", expr: "1d" } }));
  kit.clock.set(job.next_run_at!);
  kit.spawner.failNext = new Error('could not start "agent": not found or not executable');
  await kit.scheduler.tick();
  await kit.scheduler.idle();
  const runs = kit.store.listRuns(job.id);
  assert.equal(runs[1]!.status, "error");
  assert.match(runs[1]!.reason!, /not found or not executable/);
  assert.equal(runs[0]!.status, "queued", "retried like any failure");
});

Deno.test("a failure of a paused job is not retried", async () => {
  await using kit = await makeKit();
  const { job, proc } = await fireOnce(kit);
  kit.scheduler.setEnabled(job.id, false);
  proc.exit(1, { error: "bad" });
  await kit.scheduler.idle();
  const runs = kit.store.listRuns(job.id);
  assert.equal(runs.length, 1);
  assert.equal(runs[0]!.reason, "bad; not retried: the job is disabled");
});

Deno.test("a messenger run report carries the final text, never a file the run symlinked its report to", async () => {
  await using kit = await makeKit();
  const { proc } = await fireOnce(kit, { output_surface: "messenger" });
  await replaceWithSymlink(proc.arg("--output")!, await secretFile(kit.home));
  proc.exit(0, { final_text: "the final answer" });
  await kit.scheduler.idle();
  await kit.delivery.idle();
  const ev = kit.delivered.find((e) => e.kind === "run_report");
  assert.ok(ev?.kind === "run_report");
  assert.ok(!ev.body.includes(SECRET), "the symlinked file reached chat");
  assert.equal(ev.body, "the final answer");
  assert.ok(kit.logger.entries.some((e) => e.message === "run report refused for delivery"));
});

Deno.test("a messenger run whose report is a FIFO is delivered without opening it", async () => {
  await using kit = await makeKit();
  const { proc } = await fireOnce(kit, { output_surface: "messenger" });
  // The writer hands SECRET to whichever reader opens the FIFO (a blocking open would hang
  // the whole outpost until then).
  await using _fifo = await fifoWithWriter(proc.arg("--output")!);
  proc.exit(0, { final_text: "the final answer" });
  await kit.scheduler.idle();
  await kit.delivery.idle();
  const ev = kit.delivered.find((e) => e.kind === "run_report");
  assert.ok(ev?.kind === "run_report");
  assert.equal(ev.body, "the final answer");
});

Deno.test("a set-up error (unreadable project settings) is not retried: the job stops with one alert", async () => {
  await using kit = await makeKit();
  const { job, proc, run } = await fireOnce(kit, { max_retries: 3 });
  const cause = "Settings file /w/.agent/settings.toml is not valid TOML at line 1, column 5";
  proc.exit(1, { outcome: "error", exit_code: 1, error: cause, setup_error: true });
  assert.equal(await kit.scheduler.whenSettled(run.id), "error");
  await kit.scheduler.idle();
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.reason, `${cause} (not retried: a set-up error)`, "the run page says why");
  assert.equal(kit.store.listRuns(job.id).length, 1, "no retry queued");
  const stopped = kit.store.getJob(job.id)!;
  assert.equal(stopped.enabled, false);
  assert.match(stopped.disabled_reason ?? "", /^the run cannot start: Settings file .* not valid/);
  // Later fires do not come either: the job is disabled until someone fixes it.
  kit.clock.set(new Date(kit.clock.now().getTime() + 3 * 86_400_000));
  await kit.scheduler.step();
  assert.equal(kit.spawner.live().length, 0);
  await kit.delivery.idle();
  const alerts = kit.delivered.filter((e) => e.kind === "alert");
  assert.equal(alerts.length, 1, "one alert");
  assert.equal(alerts[0]!.kind === "alert" && alerts[0]!.alert, "setup_error");
  assert.equal(
    kit.store.listAudit({ limit: 10 }).filter((a) => a.action === "setup_error").length,
    1,
  );
});

Deno.test("a dead-letter reason ends each sentence once: no 'right?.'", () => {
  assert.equal(sentence("is base_url right?"), "is base_url right?");
  assert.equal(sentence("exit code 1"), "exit code 1.");
  assert.equal(sentence("done. "), "done.");
  assert.equal(sentence("stop!"), "stop!");
});

Deno.test("a lease lost between the first ownership check and the outcome write: nothing is written", async () => {
  // The fleet settles the run (a survivor's takeover) right after this node's first check
  // once the child ended: the check that counts is the one in the write's own transaction.
  let proc: { done: boolean } | null = null;
  let checksAfterExit = 0;
  const owns = () => !proc?.done || ++checksAfterExit === 1;
  await using kit = await makeKit({ fleet: { ...SINGLE_BOX, nodeId: "n1", owns } });
  const fired = await fireOnce(kit);
  proc = fired.proc;
  fired.proc.exit(0, { outcome: "ok", exit_code: 0, session_id: "s-1" });
  assert.equal(await kit.scheduler.whenSettled(fired.run.id), null);
  assert.equal(checksAfterExit, 2, "checked before reading the run, and again with the write");
  const run = kit.store.getRun(fired.run.id)!;
  assert.equal(run.status, "running", "left to the fleet's takeover, not recorded ok");
});
