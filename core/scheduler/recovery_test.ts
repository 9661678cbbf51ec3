import assert from "node:assert/strict";
import { jobInput, makeKit } from "../../tests/fakes/scheduler_kit.ts";

Deno.test("startup recovery: a live orphan is killed, a vanished one is lost, schedules resume", async () => {
  await using kit = await makeKit();
  const a = kit.scheduler.createJob(jobInput({ name: "a" }));
  const b = kit.scheduler.createJob(jobInput({ name: "b" }));
  const c = kit.scheduler.createJob(jobInput({ name: "c" }));
  const base = {
    attempt: 1,
    priority: 10,
    class: "scheduled" as const,
    status: "running" as const,
  };
  const alive = kit.store.createRun({ ...base, job_id: a.id, pid: 501, pid_start: "boot:501" });
  const gone = kit.store.createRun({ ...base, job_id: b.id, pid: 502, pid_start: "boot:502" });
  const reused = kit.store.createRun({ ...base, job_id: c.id, pid: 503, pid_start: "boot:503" });
  const queued = kit.store.createRun({ ...base, job_id: c.id, status: "queued" });
  kit.processes.identities.set(501, "boot:501");
  kit.processes.identities.set(503, "boot:other"); // PID 503 now belongs to another process

  const report = kit.scheduler.recover();
  assert.deepEqual(report, { killed: [alive.id], lost: [gone.id, reused.id] });
  assert.deepEqual(kit.processes.killed, [501], "only the verified group is killed");
  assert.equal(kit.store.getRun(alive.id)!.status, "killed");
  assert.equal(kit.store.getRun(gone.id)!.status, "lost");
  assert.equal(kit.store.getRun(reused.id)!.status, "lost");
  assert.match(kit.store.getRun(alive.id)!.reason!, /process group was killed/);
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
