import assert from "node:assert/strict";
import { jobInput, makeKit, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";

Deno.test("a recurring job that hits a lever records a skipped run with the reason; next_run_at advances", async () => {
  await using kit = await makeKit({ governor: { max_concurrent: { api: 2, scheduled: 1 } } });
  const a = kit.scheduler.createJob(jobInput({ name: "a", priority: 1 }));
  const b = kit.scheduler.createJob(jobInput({ name: "b" }));
  kit.clock.set(a.next_run_at!);
  await tickAndSpawn(kit);
  assert.equal(kit.store.latestRun(a.id)!.status, "running", "priority 1 admitted first");
  const skipped = kit.store.latestRun(b.id)!;
  assert.equal(skipped.status, "skipped");
  assert.equal(
    skipped.reason,
    "governor: 1 scheduled runs in flight reach max_concurrent.scheduled 1",
  );
  assert.equal(kit.store.getJob(b.id)!.next_run_at, "2026-03-02T11:00:00Z");
});

Deno.test("a one-shot that hits a lever is held and queued, next_run_at untouched, and runs once a slot frees", async () => {
  await using kit = await makeKit({ governor: { max_concurrent: { api: 2, scheduled: 1 } } });
  const busy = kit.scheduler.createJob(jobInput({ name: "busy", priority: 1 }));
  const once = kit.scheduler.createJob(
    jobInput({ name: "once", schedule: { kind: "at", expr: "2026-03-02T10:00:00Z" } }),
  );
  kit.clock.set("2026-03-02T10:00:00Z");
  const first = await tickAndSpawn(kit);
  assert.equal(first.req.env.AGENT_JOB_NAME, "busy");
  const held = kit.store.latestRun(once.id)!;
  assert.equal(held.status, "queued");
  assert.match(held.reason!, /^held: 1 scheduled runs in flight/);
  assert.equal(kit.store.getJob(once.id)!.next_run_at, "2026-03-02T10:00:00Z", "untouched");
  // Next tick: still busy, still one held run (the due `at` is not fired twice).
  kit.clock.set("2026-03-02T10:01:00Z");
  await kit.scheduler.tick();
  assert.equal(kit.store.listRuns(once.id).length, 1);
  const second = kit.spawner.nextSpawn();
  first.exit(0);
  await kit.scheduler.whenSettled(kit.store.latestRun(busy.id)!.id);
  kit.clock.set("2026-03-02T10:02:00Z");
  await kit.scheduler.tick();
  assert.equal((await second).req.env.AGENT_JOB_NAME, "once");
  assert.equal(kit.store.listRuns(once.id).length, 1, "the held run itself ran");
  assert.equal(kit.store.getJob(once.id)!.next_run_at, null, "consumed once it started");
});

Deno.test("queued runs are admitted in priority order, lower number first", async () => {
  await using kit = await makeKit({ governor: { max_concurrent: { api: 2, scheduled: 1 } } });
  const ids = [50, 1, 20].map((priority) =>
    kit.scheduler.createJob(jobInput({ name: `p${priority}`, priority })).id
  );
  for (const id of ids) kit.scheduler.trigger(id);
  const order: string[] = [];
  for (let i = 0; i < 3; i++) {
    const spawned = kit.spawner.nextSpawn();
    await kit.scheduler.step();
    const proc = await spawned;
    order.push(proc.req.env.AGENT_JOB_NAME!);
    assert.equal(kit.spawner.live().length, 1, "cap of one held");
    proc.exit(0);
    await kit.scheduler.idle();
  }
  assert.deepEqual(order, ["p1", "p20", "p50"]);
});

Deno.test("MAX_CONCURRENT_RUNS is a hard sum over the classes", async () => {
  await using kit = await makeKit({
    env: { MAX_CONCURRENT_RUNS: "3" },
    governor: { max_concurrent: { api: 2, scheduled: 2 } },
  });
  for (let i = 0; i < 2; i++) {
    kit.scheduler.trigger(kit.scheduler.createJob(jobInput({ name: `s${i}` })).id);
  }
  for (let i = 0; i < 2; i++) {
    kit.scheduler.submitOneShot({ name: `o${i}`, prompt: "p", workdir: "/tmp" });
  }
  await kit.scheduler.step();
  await kit.scheduler.step();
  const active = kit.scheduler.activeRuns();
  assert.equal(active.length, 3);
  const u = kit.scheduler.usage();
  assert.equal(u.total.running, 3);
  assert.equal(u.total.max, 3);
  // The one left waiting is a scheduled trigger (api runs first: priority 5): shown apart.
  assert.deepEqual(u.queue, { depth: 0, max: 16, other: 1 });
  const held = kit.store.queuedRuns().filter((r) => !active.some((a) => a.runId === r.id));
  assert.match(held[0]!.reason!, /reach the total cap of 3 \(MAX_CONCURRENT_RUNS\)/);
});

Deno.test("tokens_per_hour holds a class over a rolling 60-minute window of completed runs", async () => {
  await using kit = await makeKit({ governor: { tokens_per_hour: { api: 0, scheduled: 1000 } } });
  const job = kit.scheduler.createJob(jobInput({ schedule: { kind: "every", expr: "20m" } }));
  const statuses: string[] = [];
  for (let slot = 0; slot < 5; slot++) {
    kit.clock.set(kit.store.getJob(job.id)!.next_run_at!);
    const spawned = kit.spawner.nextSpawn();
    await kit.scheduler.tick();
    const run = kit.store.latestRun(job.id)!;
    statuses.push(run.status === "skipped" ? "skipped" : "admitted");
    if (run.status !== "skipped") {
      // Admitted: one run may exceed the budget (it is measured on completion).
      (await spawned).exit(0, { usage: { input_tokens: 1500, output_tokens: 100 } });
      await kit.scheduler.idle();
    }
    if (slot === 1) {
      assert.match(
        run.reason!,
        /1600 scheduled tokens in the last 60 minutes reach tokens_per_hour\.scheduled 1000/,
      );
      assert.equal(kit.scheduler.usage().classes.scheduled.tokens_last_hour, 1600);
    }
  }
  // Slots at +20, +40 and +60 min still see the run that finished at 0; +80 does not.
  assert.deepEqual(statuses, ["admitted", "skipped", "skipped", "skipped", "admitted"]);
});

Deno.test("defer_when_interactive holds background work while the server has waiting requests; fail-open", async () => {
  let waiting: number | null = 3;
  let reads = 0;
  await using kit = await makeKit({
    governor: { defer_when_interactive: true },
    waiting: () => {
      reads++;
      return Promise.resolve(waiting);
    },
  });
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  await kit.scheduler.tick();
  const skipped = kit.store.latestRun(job.id)!;
  assert.equal(skipped.status, "skipped");
  assert.equal(skipped.reason, "governor: model server has 3 waiting requests (defer threshold 2)");
  assert.equal(kit.scheduler.usage().defer.waiting, 3);
  waiting = null; // metrics unreachable: admit
  kit.clock.set(kit.store.getJob(job.id)!.next_run_at!);
  await tickAndSpawn(kit);
  assert.ok(reads >= 2);
});

Deno.test("a hung metrics endpoint counts as unreachable after the timeout", async () => {
  const asked = Promise.withResolvers<AbortSignal>();
  await using kit = await makeKit({
    governor: { defer_when_interactive: true },
    waiting: (signal) => {
      asked.resolve(signal);
      return new Promise((_, reject) =>
        signal.addEventListener("abort", () => reject(signal.reason))
      );
    },
  });
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  const spawned = kit.spawner.nextSpawn();
  const ticking = kit.scheduler.tick();
  const signal = await asked.promise; // the read (and its 2 s timer) has started
  assert.equal(signal.aborted, false);
  await kit.clock.advance(2000);
  await ticking;
  await spawned;
  // The hung read was cancelled, not left pending; its answer is unknown, not "0 waiting";
  // and unknown admits (fail-open).
  assert.equal(signal.aborted, true);
  assert.equal(kit.scheduler.usage().defer.waiting, null);
  assert.equal(kit.store.latestRun(job.id)!.status, "running");
});

Deno.test("defer off: the metrics reader is never called", async () => {
  let reads = 0;
  await using kit = await makeKit({
    waiting: () => {
      reads++;
      return Promise.resolve(99);
    },
  });
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  await tickAndSpawn(kit);
  assert.equal(reads, 0);
});

Deno.test("submitOneShot makes an api-class job and run; past queue_depth_max it is CapacityError", async () => {
  await using kit = await makeKit({
    governor: { queue_depth_max: 2, max_concurrent: { api: 0, scheduled: 2 } },
  });
  const { job, run } = kit.scheduler.submitOneShot({
    name: "chat run",
    prompt: "look at the logs",
    workdir: "/srv/ranger",
    output_surface: "messenger",
    meta: { room: "!r:example.org", sender: "@op:example.org" },
  });
  assert.equal(job.class, "api");
  assert.equal(job.next_run_at, null);
  assert.deepEqual(job.meta, { room: "!r:example.org", sender: "@op:example.org" });
  assert.equal(run.class, "api");
  assert.equal(run.priority, 5);
  assert.equal(run.status, "queued");
  kit.scheduler.submitOneShot({ name: "two", prompt: "p", workdir: "/tmp", priority: 2 });
  const before = kit.store.countJobs();
  assert.throws(
    () => kit.scheduler.submitOneShot({ name: "three", prompt: "p", workdir: "/tmp" }),
    { name: "CapacityError", message: /2 runs are already queued \(queue_depth_max 2\)/ },
  );
  assert.equal(kit.store.countJobs(), before, "nothing created for a refused submission");
  assert.throws(
    () =>
      kit.scheduler.submitOneShot({
        name: "x",
        prompt: "p",
        workdir: "/tmp",
        schedule: { kind: "every", expr: "1h" },
      }),
    { name: "JobValidationError", field: "schedule" } as never,
  );
  assert.equal(kit.store.getJob(job.id)!.next_run_at, null);
  await assert.rejects(
    () => kit.scheduler.updateJob(job.id, { schedule: { kind: "every", expr: "1h" } }),
    { name: "JobValidationError", field: "schedule" } as never,
  );
});

Deno.test("the queue gauge never passes queue_depth_max: retries, resumes, held fires and triggers are shown apart", async () => {
  await using kit = await makeKit({
    governor: { queue_depth_max: 2, max_concurrent: { api: 0, scheduled: 1 } },
  });
  // A run that fails (its retry is queued) and a run that halts (answering queues a resume).
  const failing = kit.scheduler.createJob(jobInput({ name: "failing", priority: 1 }));
  const halting = kit.scheduler.createJob(jobInput({ name: "halting", priority: 2 }));
  kit.clock.set(failing.next_run_at!);
  (await tickAndSpawn(kit)).exit(1);
  await kit.scheduler.whenSettled(kit.store.listRuns(failing.id).at(-1)!.id);
  kit.scheduler.trigger(halting.id);
  const haltRun = kit.store.latestRun(halting.id)!;
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.step();
  (await spawned).exit(2, {
    outcome: "needs_human",
    session_id: "sess-halt",
    questions: [{ kind: "question", text: "Which branch?" }],
  });
  await kit.scheduler.whenSettled(haltRun.id);
  // From here nothing starts: every new entry stays queued.
  await kit.governor.update({ max_concurrent: { api: 0, scheduled: 0 } });
  const item = kit.store.listInbox({ state: "open", limit: 1 })[0]!;
  assert.ok(kit.scheduler.resumeFromInbox(item.id, "main").run);
  const once = kit.scheduler.createJob(
    jobInput({ name: "once", schedule: { kind: "at", expr: "2026-03-02T10:30:00Z" } }),
  );
  kit.clock.set("2026-03-02T10:30:00Z");
  await kit.scheduler.tick();
  assert.match(kit.store.latestRun(once.id)!.reason!, /^held: /);
  kit.scheduler.trigger(kit.scheduler.createJob(jobInput({ name: "by hand" })).id);
  // Two submissions fill the queue; a third is refused; the rest are counted apart.
  kit.scheduler.submitOneShot({ name: "one", prompt: "p", workdir: "/tmp" });
  kit.scheduler.submitOneShot({ name: "two", prompt: "p", workdir: "/tmp" });
  assert.throws(
    () => kit.scheduler.submitOneShot({ name: "three", prompt: "p", workdir: "/tmp" }),
    { name: "CapacityError" },
  );
  assert.equal(kit.store.queuedRuns().length, 6);
  const { queue } = kit.scheduler.usage();
  assert.deepEqual(queue, { depth: 2, max: 2, other: 4 });
  // Running a finished one-shot again is a submission too: refused while the queue is full.
  const [oneShot] = kit.store.listJobs().filter((j) => j.class === "api");
  kit.scheduler.cancel(oneShot!.id);
  kit.scheduler.submitOneShot({ name: "four", prompt: "p", workdir: "/tmp" });
  assert.throws(() => kit.scheduler.trigger(oneShot!.id), { name: "CapacityError" });
  assert.deepEqual(kit.scheduler.usage().queue, { depth: 2, max: 2, other: 4 });
});

Deno.test("one-shot api jobs run once, never fire from the tick, and do not count toward the job cap", async () => {
  await using kit = await makeKit();
  const { job, run } = kit.scheduler.submitOneShot({ name: "one", prompt: "p", workdir: "/tmp" });
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.step();
  const proc = await spawned;
  assert.equal(proc.req.env.TZ, "UTC");
  proc.exit(0);
  assert.equal(await kit.scheduler.whenSettled(run.id), "ok");
  kit.clock.set("2026-04-01T00:00:00Z");
  await kit.scheduler.tick();
  assert.equal(kit.store.listRuns(job.id).length, 1);
  assert.equal(kit.store.countJobs("scheduled"), 0);
});

Deno.test("a held `at` run admitted at a tick is not fired a second time by that same tick", async () => {
  let reads = 0;
  let kitRef: Awaited<ReturnType<typeof makeKit>> | null = null;
  await using kit = await makeKit({
    governor: { max_concurrent: { api: 2, scheduled: 1 }, defer_when_interactive: true },
    // The second read of a tick (before firing) returns only once the admitted run has
    // spawned, i.e. after it consumed the `at` fire.
    waiting: async () => {
      reads++;
      if (reads % 2 === 0 && kitRef && kitRef.spawner.live().length === 0) {
        await kitRef.spawner.nextSpawn();
      }
      return 0;
    },
  });
  kitRef = kit;
  const busy = kit.scheduler.createJob(jobInput({ name: "busy", priority: 1, timeout_s: 86_400 }));
  kit.scheduler.trigger(busy.id);
  const first = kit.spawner.nextSpawn();
  await kit.scheduler.step();
  const busyProc = await first;
  const once = kit.scheduler.createJob(
    jobInput({ name: "once", schedule: { kind: "at", expr: "2026-03-02T10:00:00Z" } }),
  );
  kit.clock.set("2026-03-02T10:00:00Z");
  reads = 1; // next read is odd: the pump's
  await kit.scheduler.tick(); // held: the slot is taken
  assert.equal(kit.store.latestRun(once.id)!.status, "queued");
  busyProc.exit(0);
  await kit.scheduler.idle();
  reads = 0;
  kit.clock.set("2026-03-02T10:01:00Z");
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.tick();
  (await spawned).exit(0);
  await kit.scheduler.idle();
  assert.equal(reads, 2, "the tick read the metrics for admission and again before firing");
  assert.deepEqual(
    kit.store.listRuns(once.id).map((r) => r.status),
    ["ok"],
    "one fire, one record",
  );
});
