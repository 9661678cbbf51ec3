import assert from "node:assert/strict";
import { jobInput, makeKit, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";

const HOUR = 3_600_000;

Deno.test("a due job fires at the tick and next_run_at advances by its interval from the slot", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput());
  assert.equal(job.next_run_at, "2026-03-02T10:00:00Z");
  kit.clock.set("2026-03-02T10:00:40Z"); // the tick notices the slot 40 s late
  const proc = await tickAndSpawn(kit);
  assert.equal(
    kit.store.getJob(job.id)!.next_run_at,
    "2026-03-02T11:00:00Z",
    "anchored on the slot",
  );
  const run = kit.store.latestRun(job.id)!;
  assert.equal(run.status, "running");
  assert.equal(run.attempt, 1);
  assert.equal(run.pid, proc.pid);
  assert.equal(run.pid_start, `boot:${proc.pid}`);
});

Deno.test("single-flight: a due job whose run is still going records a skipped run and waits", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput({ timeout_s: 86_400 }));
  kit.clock.set("2026-03-02T10:00:00Z");
  const proc = await tickAndSpawn(kit);
  kit.clock.set("2026-03-02T11:00:00Z");
  await kit.scheduler.tick();
  const runs = kit.store.listRuns(job.id);
  assert.equal(runs.length, 2);
  assert.equal(runs[0]!.status, "skipped");
  assert.match(runs[0]!.reason!, /previous run \d+ still running \(single-flight\)/);
  assert.equal(runs[0]!.finished_at, "2026-03-02T11:00:00Z");
  assert.equal(kit.store.getJob(job.id)!.next_run_at, "2026-03-02T12:00:00Z");
  assert.equal(kit.spawner.spawned.length, 1, "no second child");
  proc.exit(0);
  await kit.scheduler.idle();
  kit.clock.set("2026-03-02T12:00:00Z");
  await tickAndSpawn(kit);
  assert.equal(kit.spawner.spawned.length, 2, "the next slot runs normally");
});

Deno.test("missed fires while the box was down collapse into one fire; next fire computed from now", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput({ schedule: { kind: "cron", expr: "0 * * * *" } }));
  assert.equal(job.next_run_at, "2026-03-02T10:00:00Z");
  kit.clock.set("2026-03-02T15:20:00Z"); // down for five slots
  await tickAndSpawn(kit);
  assert.equal(kit.store.listRuns(job.id).length, 1, "exactly one fire");
  assert.equal(kit.store.getJob(job.id)!.next_run_at, "2026-03-02T16:00:00Z");
});

Deno.test("an `every` job down for several intervals fires once and re-anchors on now", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput({ schedule: { kind: "every", expr: "15m" } }));
  kit.clock.set(new Date(Date.parse("2026-03-02T09:00:00Z") + 2 * HOUR + 7 * 60_000));
  await tickAndSpawn(kit);
  assert.equal(kit.store.listRuns(job.id).length, 1);
  assert.equal(kit.store.getJob(job.id)!.next_run_at, "2026-03-02T11:22:00Z");
});

Deno.test("an `at` job fires once and then has no next_run_at", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(
    jobInput({ schedule: { kind: "at", expr: "2026-03-02T09:30:00Z" } }),
  );
  assert.equal(job.next_run_at, "2026-03-02T09:30:00Z");
  kit.clock.set("2026-03-02T09:30:05Z");
  const proc = await tickAndSpawn(kit);
  assert.equal(kit.store.getJob(job.id)!.next_run_at, null);
  proc.exit(0);
  await kit.scheduler.idle();
  kit.clock.set("2026-03-03T09:30:05Z");
  await kit.scheduler.tick();
  assert.equal(kit.store.listRuns(job.id).length, 1, "never again");
});

Deno.test("a schedule that cannot be computed disables the job with a reason and an alert", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput());
  // A row corrupted behind the validator's back (or a parser that stopped working).
  kit.store.updateJob(job.id, { schedule: { kind: "cron", expr: "not a cron", tz: "UTC" } });
  kit.clock.set("2026-03-02T10:00:00Z");
  await kit.scheduler.tick();
  const after = kit.store.getJob(job.id)!;
  assert.equal(after.enabled, false);
  assert.match(after.disabled_reason!, /^schedule error: schedule\.expr: .*re-enable/);
  assert.equal(kit.store.listRuns(job.id).length, 0);
  await kit.delivery.idle();
  const alert = kit.delivered.find((e) => e.kind === "alert");
  assert.ok(alert && alert.kind === "alert");
  assert.equal(alert.alert, "schedule_error");
  assert.equal(alert.job_id, job.id);
  assert.equal(kit.store.listAudit({ action: "schedule_error" }).length, 1);
});

Deno.test("a disabled job never fires; re-enabling sets next_run_at to the next slot after now", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput());
  kit.scheduler.setEnabled(job.id, false);
  kit.clock.set("2026-03-02T12:00:00Z");
  await kit.scheduler.tick();
  assert.equal(kit.store.listRuns(job.id).length, 0);
  assert.equal(kit.store.getJob(job.id)!.disabled_reason, "paused by operator");
  const enabled = kit.scheduler.setEnabled(job.id, true);
  assert.equal(enabled.next_run_at, "2026-03-02T13:00:00Z");
  assert.equal(enabled.disabled_reason, null);
});

Deno.test("pause then resume keeps an interval job's phase: the next fire is the next slot of the original series", async () => {
  await using kit = await makeKit({ start: "2026-03-02T05:06:58Z" });
  const job = kit.scheduler.createJob(jobInput({ schedule: { kind: "every", expr: "24h" } }));
  assert.equal(job.next_run_at, "2026-03-03T05:06:58Z");
  // Paused and resumed a few minutes later: the slot does not move to 05:14:38.
  kit.clock.set("2026-03-02T05:14:38Z");
  kit.scheduler.setEnabled(job.id, false);
  assert.equal(kit.scheduler.setEnabled(job.id, true).next_run_at, "2026-03-03T05:06:58Z");
  // Paused over several slots: the missed ones are not fired, the phase stays.
  kit.scheduler.setEnabled(job.id, false);
  kit.clock.set("2026-03-05T12:00:00Z");
  await kit.scheduler.tick();
  assert.equal(kit.store.listRuns(job.id).length, 0);
  assert.equal(kit.scheduler.setEnabled(job.id, true).next_run_at, "2026-03-06T05:06:58Z");
  // Resumed exactly on a slot: that slot has come, so the next one is a full interval later.
  kit.scheduler.setEnabled(job.id, false);
  kit.clock.set("2026-03-06T05:06:58Z");
  assert.equal(kit.scheduler.setEnabled(job.id, true).next_run_at, "2026-03-07T05:06:58Z");
  // The series goes on from there: the fire at the slot advances by one interval.
  kit.clock.set("2026-03-07T05:07:30Z");
  await tickAndSpawn(kit);
  assert.equal(kit.store.getJob(job.id)!.next_run_at, "2026-03-08T05:06:58Z");
});

Deno.test("manual trigger shares the single-flight guard", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  const spawned = kit.spawner.nextSpawn();
  const run = kit.scheduler.trigger(job.id);
  assert.equal(run.status, "queued");
  assert.throws(() => kit.scheduler.trigger(job.id), { name: "InFlightError" });
  await kit.scheduler.step();
  const proc = await spawned;
  assert.throws(() => kit.scheduler.trigger(job.id), { name: "InFlightError" });
  proc.exit(0);
  assert.equal(await kit.scheduler.whenSettled(run.id), "ok");
  assert.throws(() => kit.scheduler.trigger(999), { name: "NotFoundError" });
});

Deno.test("the loop ticks every 60 seconds on the injected clock and stops cleanly", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput({ schedule: { kind: "every", expr: "2m" } }));
  const first = kit.spawner.nextSpawn();
  await kit.scheduler.start();
  await kit.clock.advance(60_000); // tick at 09:01: nothing due
  assert.equal(kit.spawner.spawned.length, 0);
  await kit.clock.advance(60_000); // tick at 09:02: due
  const proc = await first;
  assert.equal(proc.req.env.AGENT_JOB_ID, String(job.id));
  proc.exit(0);
  await kit.scheduler.idle();
  await kit.scheduler.stop();
  await kit.clock.advance(10 * 60_000);
  assert.equal(kit.spawner.spawned.length, 1, "no fires after stop");
});

Deno.test("deleting a job kills its live run and removes its history", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set("2026-03-02T10:00:00Z");
  const proc = await tickAndSpawn(kit);
  const runId = kit.store.latestRun(job.id)!.id;
  assert.equal(kit.scheduler.deleteJob(job.id), true);
  assert.equal(proc.killed, true);
  assert.equal(await kit.scheduler.whenSettled(runId), null);
  assert.equal(kit.store.getJob(job.id), null);
  assert.equal(kit.store.getRun(runId), null);
  assert.equal(kit.scheduler.deleteJob(job.id), false);
});

Deno.test("bad job input is refused with the field named and nothing stored; the 101st job is JobLimitError", async () => {
  await using kit = await makeKit();
  assert.throws(
    () => kit.scheduler.createJob(jobInput({ timeout_s: 5 })),
    { name: "JobValidationError", field: "timeout_s" } as never,
  );
  assert.throws(
    () => kit.scheduler.createJob(jobInput({ schedule: { kind: "every", expr: "10s" } })),
    { name: "JobValidationError", field: "schedule.expr" } as never,
  );
  assert.equal(kit.store.countJobs(), 0);
  for (let i = 0; i < 100; i++) kit.scheduler.createJob(jobInput({ name: `j${i}` }));
  assert.throws(() => kit.scheduler.createJob(jobInput({ name: "101" })), {
    name: "JobLimitError",
  });
  assert.equal(kit.store.countJobs(), 100);
});

Deno.test("a schedule change recomputes next_run_at; other edits leave it alone", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const job = kit.scheduler.createJob(jobInput());
  const { job: renamed } = await kit.scheduler.updateJob(job.id, {
    name: "renamed",
    token_budget: 10,
  });
  assert.equal(renamed.next_run_at, job.next_run_at);
  assert.equal(renamed.token_budget, 10);
  const { job: moved } = await kit.scheduler.updateJob(job.id, {
    schedule: { kind: "cron", expr: "30 9 * * *", tz: "Europe/Paris" },
  });
  assert.equal(moved.next_run_at, "2026-03-03T08:30:00Z");
  await assert.rejects(() => kit.scheduler.updateJob(job.id, { mode: "plan" }), {
    name: "JobValidationError",
  });
  assert.equal(kit.store.getJob(job.id)!.mode, "auto", "a refused update changes nothing");
  await assert.rejects(() => kit.scheduler.updateJob(404, { name: "x" }), {
    name: "NotFoundError",
  });
});

Deno.test("a job whose fire fails is rolled back alone and logged; the others in the tick fire", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  const good = kit.scheduler.createJob(jobInput({ name: "good" }));
  const bad = kit.scheduler.createJob(jobInput({ name: "bad" }));
  const setNextRunAt = kit.store.setNextRunAt.bind(kit.store);
  kit.store.setNextRunAt = (id, next) => {
    if (id === bad.id) throw new Error("disk trouble");
    setNextRunAt(id, next);
  };
  kit.clock.set("2026-03-02T10:00:00Z");
  await tickAndSpawn(kit);
  assert.equal(kit.store.latestRun(good.id)!.status, "running");
  assert.equal(kit.store.getJob(good.id)!.next_run_at, "2026-03-02T11:00:00Z");
  assert.equal(kit.store.listRuns(bad.id).length, 0, "its run row was rolled back with it");
  assert.equal(kit.store.getJob(bad.id)!.next_run_at, "2026-03-02T10:00:00Z", "still due");
  assert.equal(kit.spawner.spawned.length, 1);
  assert.ok(
    kit.logger.entries.some((e) =>
      e.message === "firing a due job failed" && /disk trouble/.test(String(e.data?.error))
    ),
  );
  // Once the store recovers, the job fires at the next tick.
  kit.store.setNextRunAt = setNextRunAt;
  kit.clock.set("2026-03-02T10:01:00Z");
  await tickAndSpawn(kit);
  assert.equal(kit.store.latestRun(bad.id)!.status, "running");
});
