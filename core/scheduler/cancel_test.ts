import assert from "node:assert/strict";
import { jobInput, makeKit, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";

Deno.test("cancel of a running run kills its process group and records cancelled, without retry", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  const run = kit.store.latestRun(job.id)!;
  const nextBefore = kit.store.getJob(job.id)!.next_run_at;
  kit.clock.set(new Date(kit.clock.now().getTime() + 5000));
  const result = kit.scheduler.cancel(job.id);
  assert.deepEqual(result, {
    status: "cancelled",
    job_id: job.id,
    run_id: run.id,
    cancelled_at: "2026-03-02T10:00:05Z",
    was: "running",
    repeated: false,
  });
  assert.equal(proc.killed, true);
  assert.equal(await kit.scheduler.whenSettled(run.id), "cancelled");
  const done = kit.store.getRun(run.id)!;
  assert.equal(done.status, "cancelled");
  assert.equal(done.exit_code, 137);
  assert.equal(done.cancelled_at, "2026-03-02T10:00:05Z");
  assert.equal(kit.store.listRuns(job.id).length, 1, "no retry");
  const after = kit.store.getJob(job.id)!;
  assert.equal(after.enabled, true, "a running cancel does not disable");
  assert.equal(after.failure_count, 0, "not counted as a failure");
  assert.equal(after.next_run_at, nextBefore, "schedule untouched");
  assert.equal(after.schedule.expr, job.schedule.expr);
});

Deno.test("cancel is idempotent: a repeat echoes the original cancelled_at", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  await tickAndSpawn(kit);
  const first = kit.scheduler.cancel(job.id);
  await kit.scheduler.idle();
  kit.clock.set(new Date(kit.clock.now().getTime() + 60_000));
  const again = kit.scheduler.cancel(job.id);
  assert.equal(again.status, "cancelled");
  assert.ok(first.status === "cancelled" && again.status === "cancelled");
  assert.equal(again.cancelled_at, first.cancelled_at);
  assert.equal(again.run_id, first.run_id);
  assert.equal(again.repeated, true);
});

Deno.test("cancel of a queued run marks it cancelled and disables the job, schedule untouched", async () => {
  await using kit = await makeKit({ governor: { max_concurrent: { api: 2, scheduled: 0 } } });
  const job = kit.scheduler.createJob(jobInput());
  const queued = kit.scheduler.trigger(job.id);
  await kit.scheduler.step(); // held: scheduled class admits nothing
  assert.equal(kit.store.getRun(queued.id)!.status, "queued");
  const before = kit.store.getJob(job.id)!;
  const result = kit.scheduler.cancel(job.id);
  assert.equal(result.status, "cancelled");
  assert.ok(result.status === "cancelled" && result.was === "queued");
  assert.equal(kit.store.getRun(queued.id)!.status, "cancelled");
  const after = kit.store.getJob(job.id)!;
  assert.equal(after.enabled, false);
  assert.match(after.disabled_reason!, /cancelled while queued/);
  assert.equal(after.next_run_at, before.next_run_at);
  assert.deepEqual(after.schedule, before.schedule);
  assert.equal(kit.spawner.spawned.length, 0);
});

Deno.test("cancel during the pin check stops the run before it spawns", async () => {
  let release!: (ids: string[] | null) => void;
  const pinAsked = Promise.withResolvers<void>();
  await using kit = await makeKit({
    pinResolver: () => {
      pinAsked.resolve();
      return new Promise((r) => (release = r));
    },
  });
  const job = kit.scheduler.createJob(
    jobInput({ base_url: "http://127.0.0.1:9/v1", model: "qwen3" }),
  );
  kit.clock.set(job.next_run_at!);
  await kit.scheduler.tick();
  await pinAsked.promise;
  const run = kit.store.latestRun(job.id)!;
  assert.equal(kit.scheduler.cancel(job.id).status, "cancelled");
  release(["qwen3"]);
  assert.equal(await kit.scheduler.whenSettled(run.id), null);
  assert.equal(kit.spawner.spawned.length, 0);
  assert.equal(kit.store.getRun(run.id)!.status, "cancelled");
});

Deno.test("cancel with nothing in flight is a distinct result; unknown job is NotFoundError", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  assert.deepEqual(kit.scheduler.cancel(job.id), { status: "nothing_in_flight", job_id: job.id });
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  proc.exit(0);
  await kit.scheduler.idle();
  assert.equal(kit.scheduler.cancel(job.id).status, "nothing_in_flight");
  assert.throws(() => kit.scheduler.cancel(12345), { name: "NotFoundError" });
});

Deno.test("cancel after a restart kills by pid only when the process identity still matches", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  // A run another outpost process started (no live handle here).
  const run = kit.store.createRun({
    job_id: job.id,
    status: "running",
    attempt: 1,
    priority: 10,
    class: "scheduled",
    pid: 777,
    pid_start: "boot:A",
  });
  kit.processes.identities.set(777, "boot:B"); // PID reused by someone else
  kit.scheduler.cancel(job.id);
  assert.deepEqual(kit.processes.killed, []);
  assert.equal(kit.store.getRun(run.id)!.status, "cancelled");

  const run2 = kit.store.createRun({
    job_id: job.id,
    status: "running",
    attempt: 1,
    priority: 10,
    class: "scheduled",
    pid: 778,
    pid_start: "boot:C",
  });
  kit.processes.identities.set(778, "boot:C");
  kit.scheduler.cancel(job.id);
  assert.deepEqual(kit.processes.killed, [778]);
  assert.equal(kit.store.getRun(run2.id)!.status, "cancelled");
});

Deno.test("a repeated cancel echoes the original cancelled_at even after later skip rows", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  await tickAndSpawn(kit);
  const first = kit.scheduler.cancel(job.id);
  await kit.scheduler.idle();
  // Fires that never ran leave skip rows after the cancelled run (as the tick records them).
  for (const status of ["skipped", "skipped_drift"] as const) {
    kit.store.createRun({
      job_id: job.id,
      status,
      attempt: 1,
      priority: 10,
      class: "scheduled",
      reason: "fire skipped",
    });
  }
  kit.clock.set(new Date(kit.clock.now().getTime() + 60_000));
  const again = kit.scheduler.cancel(job.id);
  assert.ok(first.status === "cancelled" && again.status === "cancelled");
  assert.equal(again.cancelled_at, first.cancelled_at);
  assert.equal(again.run_id, first.run_id);
  assert.equal(again.repeated, true);
});

Deno.test("a cancel after a later real attempt is not an echo of the old cancel", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  await tickAndSpawn(kit);
  kit.scheduler.cancel(job.id);
  await kit.scheduler.idle();
  kit.store.createRun({
    job_id: job.id,
    status: "ok",
    attempt: 1,
    priority: 10,
    class: "scheduled",
  });
  assert.equal(kit.scheduler.cancel(job.id).status, "nothing_in_flight");
});

Deno.test("a run cancelled through another node's store is killed by its own node's next reap", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  const run = kit.store.latestRun(job.id)!;
  assert.deepEqual(kit.scheduler.reapCancelled(), [], "nothing cancelled yet");
  assert.equal(proc.killed, false);
  // What another node's cancel leaves in the shared store: the row, not a signal.
  kit.store.updateRun(run.id, { status: "cancelled", cancelled_at: "2026-03-02T10:00:05Z" });
  assert.deepEqual(kit.scheduler.reapCancelled(), [run.id]);
  assert.equal(proc.killed, true);
  assert.equal(await kit.scheduler.whenSettled(run.id), "cancelled");
});
