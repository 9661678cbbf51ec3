import assert from "node:assert/strict";
import { join } from "node:path";
import { renderReport } from "../agent/report.ts";
import type { HeadlessResult } from "../agent/types.ts";
import { jobInput, type Kit, makeKit } from "../../tests/fakes/scheduler_kit.ts";

const running = {
  attempt: 1,
  priority: 10,
  class: "scheduled" as const,
  status: "running" as const,
};

Deno.test("startup recovery: a live orphan is killed, a vanished one is lost, schedules resume", async () => {
  await using kit = await makeKit();
  // No retries left: killed and lost runs stay as they are (the spec's table).
  const a = kit.scheduler.createJob(jobInput({ name: "a", max_retries: 0 }));
  const b = kit.scheduler.createJob(jobInput({ name: "b", max_retries: 0 }));
  const c = kit.scheduler.createJob(jobInput({ name: "c", max_retries: 0 }));
  const alive = kit.store.createRun({ ...running, job_id: a.id, pid: 501, pid_start: "boot:501" });
  const gone = kit.store.createRun({ ...running, job_id: b.id, pid: 502, pid_start: "boot:502" });
  const reused = kit.store.createRun({ ...running, job_id: c.id, pid: 503, pid_start: "boot:503" });
  const queued = kit.store.createRun({ ...running, job_id: c.id, status: "queued" });
  kit.processes.identities.set(501, "boot:501");
  kit.processes.identities.set(503, "boot:other"); // PID 503 now belongs to another process

  const report = await kit.scheduler.recover();
  assert.deepEqual(report, {
    killed: [alive.id],
    lost: [gone.id, reused.id],
    finished: [],
    retried: [],
  });
  assert.deepEqual(kit.processes.killed, [501], "only the verified group is killed");
  assert.equal(kit.store.getRun(alive.id)!.status, "killed");
  assert.equal(kit.store.getRun(gone.id)!.status, "lost");
  assert.equal(kit.store.getRun(reused.id)!.status, "lost");
  assert.match(kit.store.getRun(alive.id)!.reason!, /process group was killed/);
  assert.match(kit.store.getRun(alive.id)!.reason!, /not retried: no retries left/);
  assert.match(kit.store.getRun(gone.id)!.reason!, /left no outcome \(no report/);
  assert.equal(kit.store.getRun(queued.id)!.status, "queued", "queued work is kept");
  for (const job of [a, b, c]) {
    const after = kit.store.getJob(job.id)!;
    assert.equal(after.enabled, true);
    assert.equal(after.next_run_at, job.next_run_at);
    assert.equal(after.failure_count, 0);
  }
  // The kept queued run is admitted by the first pass.
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.step();
  await spawned;
  assert.equal(kit.store.getRun(queued.id)!.status, "running");
});

Deno.test("startup recovery: a run cut short by the outpost's death is retried when retries are left, without counting a failure", async () => {
  await using kit = await makeKit();
  const a = kit.scheduler.createJob(jobInput({ name: "a", max_retries: 2 }));
  const b = kit.scheduler.createJob(jobInput({ name: "b", max_retries: 2 }));
  const spent = kit.scheduler.createJob(jobInput({ name: "spent", max_retries: 2 }));
  const off = kit.scheduler.createJob(jobInput({ name: "off", max_retries: 2 }));
  kit.store.updateJob(off.id, { enabled: false, disabled_reason: "paused" });
  const alive = kit.store.createRun({ ...running, job_id: a.id, pid: 601, pid_start: "boot:601" });
  const gone = kit.store.createRun({ ...running, job_id: b.id, pid: 602, pid_start: "boot:602" });
  const last = kit.store.createRun({ ...running, job_id: spent.id, attempt: 3 });
  const paused = kit.store.createRun({ ...running, job_id: off.id });
  kit.processes.identities.set(601, "boot:601");

  const report = await kit.scheduler.recover();
  assert.deepEqual(report.killed, [alive.id]);
  assert.deepEqual(report.lost, [gone.id, last.id, paused.id]);
  assert.equal(report.retried.length, 2);
  const [retryA, retryB] = report.retried.map((id) => kit.store.getRun(id)!);
  for (const [retry, of, job] of [[retryA!, alive, a], [retryB!, gone, b]] as const) {
    assert.equal(retry.job_id, job.id);
    assert.equal(retry.status, "queued");
    assert.equal(retry.attempt, 2, "the attempt is recorded");
    assert.equal(retry.not_before, kit.store.getRun(of.id)!.finished_at, "retried at once");
    assert.match(
      retry.reason!,
      new RegExp(`outpost stopped while attempt 1 was running \\(run ${of.id}\\)`),
    );
    assert.match(kit.store.getRun(of.id)!.reason!, new RegExp(`retried as run ${retry.id}`));
    assert.equal(kit.store.getJob(job.id)!.failure_count, 0, "not the job's fault");
  }
  assert.match(kit.store.getRun(last.id)!.reason!, /not retried: no retries left \(attempt 3/);
  assert.match(kit.store.getRun(paused.id)!.reason!, /not retried: the job is disabled/);
  assert.equal(kit.store.listRuns(spent.id).length, 1);
  assert.equal(kit.store.listRuns(off.id).length, 1);

  // The retries are admitted by the first pass (either may be the first to start).
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.step();
  await spawned;
  const started = [retryA!, retryB!].filter((r) => kit.store.getRun(r.id)!.status === "running");
  assert.ok(started.length >= 1, "a retry is running");
});

function headless(overrides: Partial<HeadlessResult>): HeadlessResult {
  return {
    outcome: "ok",
    exit_code: 0,
    done_reason: "stop",
    stop_reason: "end_turn",
    final_text: "All done.",
    questions: [],
    usage: { input_tokens: 1200, output_tokens: 80 },
    cost_usd: null,
    model: "served-model",
    duration_ms: 4200,
    session_id: "20260302-085900-abc123",
    ...overrides,
  } as HeadlessResult;
}

/** What a child that finished leaves: its report and (with a session) its journal. */
async function leaveOutcome(
  kit: Kit,
  jobId: number,
  name: string,
  result: HeadlessResult,
  journal: "outcome" | "none" | "other_reason" = "outcome",
): Promise<string> {
  const dir = join(kit.home, "outpost", "runs", String(jobId));
  await Deno.mkdir(dir, { recursive: true });
  const path = join(dir, `${name}.md`);
  await Deno.writeTextFile(path, renderReport(result, "the prompt"));
  if (result.session_id && journal !== "none") {
    await Deno.mkdir(join(kit.home, "sessions"), { recursive: true });
    const lines = [
      { type: "meta", meta: { id: result.session_id } },
      {
        type: "outcome",
        done_reason: journal === "other_reason" ? "turn_cap" : result.done_reason,
        questions: result.questions,
        final_text: result.final_text,
        at: "2026-03-02T08:59:30Z",
      },
      { type: "reflection", ran: false, skipped: "off", at: "2026-03-02T08:59:31Z" },
    ];
    await Deno.writeTextFile(
      join(kit.home, "sessions", `${result.session_id}.jsonl`),
      lines.map((l) => JSON.stringify(l)).join("\n") + "\n",
    );
  }
  return path;
}

Deno.test("startup recovery: a child that finished while the outpost was down is recorded with the outcome its report and journal show", async () => {
  await using kit = await makeKit();
  const ok = kit.scheduler.createJob(jobInput({ name: "ok" }));
  const human = kit.scheduler.createJob(jobInput({ name: "human" }));
  const noJournal = kit.scheduler.createJob(jobInput({ name: "no journal", max_retries: 0 }));
  const disagree = kit.scheduler.createJob(jobInput({ name: "disagree", max_retries: 0 }));
  const okRun = kit.store.createRun({
    ...running,
    job_id: ok.id,
    pid: 701,
    pid_start: "boot:701",
    report_path: await leaveOutcome(kit, ok.id, "a", headless({})),
  });
  const humanRun = kit.store.createRun({
    ...running,
    job_id: human.id,
    report_path: await leaveOutcome(
      kit,
      human.id,
      "b",
      headless({
        outcome: "needs_human",
        exit_code: 2,
        done_reason: "needs_human",
        session_id: "20260302-085900-def456",
        questions: [{ kind: "question", text: "Which branch?" }],
      }),
    ),
  });
  const bare = kit.store.createRun({
    ...running,
    job_id: noJournal.id,
    report_path: await leaveOutcome(
      kit,
      noJournal.id,
      "c",
      headless({ session_id: "20260302-085900-aaa111" }),
      "none",
    ),
  });
  const odd = kit.store.createRun({
    ...running,
    job_id: disagree.id,
    report_path: await leaveOutcome(
      kit,
      disagree.id,
      "d",
      headless({ session_id: "20260302-085900-bbb222" }),
      "other_reason",
    ),
  });

  const report = await kit.scheduler.recover();
  assert.deepEqual(report.finished, [okRun.id, humanRun.id]);
  assert.deepEqual(report.lost, [bare.id, odd.id], "an outcome not shown by both is unknown");
  assert.deepEqual(report.retried, []);

  const done = kit.store.getRun(okRun.id)!;
  assert.equal(done.status, "ok");
  assert.equal(done.exit_code, 0);
  assert.equal(done.session_id, "20260302-085900-abc123");
  assert.equal(done.tokens_in, 1200);
  assert.equal(done.tokens_out, 80);
  assert.equal(done.done_reason, "stop");
  assert.match(done.reason!, /the outpost was down when this run's child finished/);
  assert.match(done.reason!, /outcome read from its report and session journal/);
  assert.equal(kit.store.listRuns(ok.id).length, 1, "a finished run is not retried");

  const halted = kit.store.getRun(humanRun.id)!;
  assert.equal(halted.status, "needs_human");
  const items = kit.store.listInbox({ state: "open" });
  assert.equal(items.length, 1, "its inbox item is opened as if the outpost had seen the exit");
  assert.equal(items[0]!.run_id, humanRun.id);
  assert.equal(items[0]!.questions[0]!.text, "Which branch?");

  assert.match(kit.store.getRun(bare.id)!.reason!, /no session journal/);
  assert.match(
    kit.store.getRun(odd.id)!.reason!,
    /report \(stop\) and journal \(turn_cap\) disagree/,
  );
});

Deno.test("startup recovery: a report swapped for a symlink, or a journal that is a FIFO, is an unknown outcome (lost), read without hanging", async () => {
  await using kit = await makeKit();
  const linked = kit.scheduler.createJob(jobInput({ name: "linked", max_retries: 0 }));
  const piped = kit.scheduler.createJob(jobInput({ name: "piped", max_retries: 0 }));
  // A report elsewhere saying "ok", and a symlink to it where the run's report should be.
  const outside = join(kit.home, "elsewhere.md");
  await Deno.writeTextFile(outside, renderReport(headless({ session_id: null }), "p"));
  const dir = join(kit.home, "outpost", "runs", String(linked.id));
  await Deno.mkdir(dir, { recursive: true });
  const link = join(dir, "a.md");
  await Deno.symlink(outside, link);
  const linkRun = kit.store.createRun({ ...running, job_id: linked.id, report_path: link });
  // A real report whose session journal is a FIFO: opening it must not wait for a writer.
  const session = "20260302-085900-fff000";
  const fifoRun = kit.store.createRun({
    ...running,
    job_id: piped.id,
    report_path: await leaveOutcome(kit, piped.id, "b", headless({ session_id: session }), "none"),
  });
  await Deno.mkdir(join(kit.home, "sessions"), { recursive: true });
  const made = await new Deno.Command("mkfifo", {
    args: [join(kit.home, "sessions", `${session}.jsonl`)],
  }).output();
  assert.ok(made.success, "mkfifo");

  const report = await kit.scheduler.recover();
  assert.deepEqual(report.lost, [linkRun.id, fifoRun.id]);
  assert.deepEqual(report.finished, []);
  assert.match(kit.store.getRun(linkRun.id)!.reason!, /symlink/);
  assert.match(kit.store.getRun(fifoRun.id)!.reason!, /not a regular file/);
});
