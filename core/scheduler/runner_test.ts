import assert from "node:assert/strict";
import { gpuPriorityOn } from "./headless_command.ts";
import { jobInput, makeKit, tickAndSpawn } from "../../tests/fakes/scheduler_kit.ts";
import {
  fifoWithWriter,
  replaceWithSymlink,
  secretFile,
} from "../../tests/fakes/hostile_report.ts";

Deno.test("the child gets the spec 4.4 command line, with `--` before a dash-leading prompt", async () => {
  await using kit = await makeKit();
  kit.scheduler.ctx.agentCommand.args.push("run", "cli/main.ts");
  const job = kit.scheduler.createJob(jobInput({
    prompt: "--help is not an option here",
    workdir: "/srv/repo",
    mode: "strict",
    token_budget: 50_000,
  }));
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  const report = proc.arg("--output")!;
  assert.equal(proc.req.command, "agent");
  assert.deepEqual(proc.req.args, [
    "run",
    "cli/main.ts",
    "-p",
    "--workdir",
    "/srv/repo",
    "--mode",
    "strict",
    "--output",
    report,
    "--output-format",
    "json",
    "--token-budget",
    "50000",
    "--",
    "--help is not an option here",
  ]);
  assert.equal(proc.req.cwd, "/srv/repo");
  assert.equal(proc.req.logPath, report.replace(/\.md$/, ".log"), "stderr next to the report");
  assert.ok(proc.req.captureStdout! > 0);
});

Deno.test("no --token-budget flag when the budget is unlimited", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput({ token_budget: null }));
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  assert.ok(!proc.req.args.includes("--token-budget"));
});

Deno.test("the child's environment is stamped per spec 4.4 and never gains a key", async () => {
  await using kit = await makeKit({
    env: {
      AGENT_API_KEY: "operator-key",
      ANTHROPIC_API_KEY: "operator-key-2",
      OPENAI_API_KEY: "operator-key-3",
      MX_TOKEN: "bot-secret",
      HOME: "/home/op",
    },
  });
  const job = kit.scheduler.createJob(jobInput({
    name: "brief",
    schedule: { kind: "cron", expr: "0 9 * * *", tz: "Europe/Paris" },
    base_url: "http://gpu:8000/v1",
    model: "qwen3",
  }));
  kit.clock.set(job.next_run_at!);
  const env = (await tickAndSpawn(kit)).req.env;
  assert.equal(env.TZ, "Europe/Paris");
  assert.equal(env.AGENT_SANDBOX, "container");
  assert.equal(env.AGENT_COMPACT_THRESHOLD, "0.85");
  assert.equal(env.AGENT_JOB_ID, String(job.id));
  assert.equal(env.AGENT_JOB_NAME, "brief");
  assert.equal(env.AGENT_BASE_URL, "http://gpu:8000/v1");
  assert.equal(env.AGENT_MODEL, "qwen3");
  assert.equal(env.AGENT_PRESET, undefined, "the job names no preset");
  assert.equal(env.HOME, "/home/op", "operator env inherited");
  // The child resolves its key from the settings files (spec 2.3), never from its environment.
  for (const name of ["AGENT_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"]) {
    assert.equal(env[name], undefined, `${name} is not passed to the child`);
  }
  assert.equal(env.MX_TOKEN, undefined, "outpost-only secret withheld");
  assert.equal(env.AGENT_PROVIDER, undefined, "GPU priority dormant");
  assert.equal(env.AGENT_REQUEST_PRIORITY, undefined);
  const row = JSON.stringify(kit.store.getJob(job.id));
  assert.ok(!row.includes("operator-key"), "no key in the job store");
});

Deno.test("an operator AGENT_COMPACT_THRESHOLD wins; AGENT_GPU_PRIORITY stamps provider and priority", async () => {
  await using kit = await makeKit({
    env: { AGENT_COMPACT_THRESHOLD: "0.7", AGENT_GPU_PRIORITY: "yes" },
  });
  const job = kit.scheduler.createJob(jobInput({ priority: 3 }));
  kit.clock.set(job.next_run_at!);
  const env = (await tickAndSpawn(kit)).req.env;
  assert.equal(env.AGENT_COMPACT_THRESHOLD, "0.7");
  assert.equal(env.AGENT_PROVIDER, "chat_completions");
  assert.equal(env.AGENT_REQUEST_PRIORITY, "3");
});

Deno.test("AGENT_GPU_PRIORITY truthiness: 1, on, true, yes, positive integers", () => {
  for (const v of ["1", "on", "true", "yes", "YES", " 7 ", "12"]) {
    assert.equal(gpuPriorityOn(v), true, v);
  }
  for (const v of [undefined, "", "0", "off", "false", "no", "-1", "1.5", "maybe", "00"]) {
    assert.equal(gpuPriorityOn(v), false, String(v));
  }
});

Deno.test("provider pin: a positive mismatch is skipped_drift with an alert; no answer runs", async () => {
  let served: string[] | null = ["llama-4"];
  const asked: string[] = [];
  await using kit = await makeKit({
    pinResolver: (url) => {
      asked.push(url);
      return Promise.resolve(served);
    },
  });
  const job = kit.scheduler.createJob(jobInput({ base_url: "http://gpu:8000/v1", model: "qwen3" }));
  kit.clock.set(job.next_run_at!);
  await kit.scheduler.tick();
  await kit.scheduler.idle();
  const drift = kit.store.latestRun(job.id)!;
  assert.equal(drift.status, "skipped_drift");
  assert.match(
    drift.reason!,
    /pinned model qwen3 is not served at http:\/\/gpu:8000\/v1 \(serving: llama-4\)/,
  );
  assert.deepEqual(asked, ["http://gpu:8000/v1"]);
  assert.equal(kit.spawner.spawned.length, 0);
  await kit.delivery.idle();
  const alert = kit.delivered.find((e) => e.kind === "alert");
  assert.ok(alert?.kind === "alert" && alert.alert === "drift" && alert.run_id === drift.id);
  assert.equal(kit.store.getJob(job.id)!.failure_count, 0, "drift is not a failure");

  served = null; // the server does not answer: not a mismatch
  kit.clock.set(kit.store.getJob(job.id)!.next_run_at!);
  await tickAndSpawn(kit);
  assert.equal(kit.store.latestRun(job.id)!.status, "running");
});

Deno.test("provider pin: the default sentinel and a served model run; a throwing resolver counts as no answer", async () => {
  let calls = 0;
  await using kit = await makeKit({
    pinResolver: () => {
      calls++;
      return Promise.reject(new Error("connection refused"));
    },
  });
  const d = kit.scheduler.createJob(
    jobInput({ name: "d", base_url: "http://x/v1", model: "default" }),
  );
  kit.clock.set(d.next_run_at!);
  await tickAndSpawn(kit);
  assert.equal(calls, 0, "default matches anything: no need to ask");
  const e = kit.scheduler.createJob(
    jobInput({
      name: "e",
      base_url: "http://x/v1",
      model: "m",
      schedule: { kind: "every", expr: "2h" },
    }),
  );
  kit.clock.set(e.next_run_at!);
  await tickAndSpawn(kit);
  assert.equal(calls, 1);
  assert.equal(kit.store.latestRun(e.id)!.status, "running");
});

Deno.test("repin stores the served model when the pinned one is gone", async () => {
  let served: string[] | null = ["qwen3", "llama"];
  await using kit = await makeKit({ pinResolver: () => Promise.resolve(served) });
  const job = kit.scheduler.createJob(jobInput({ base_url: "http://gpu/v1", model: "qwen3" }));
  assert.equal((await kit.scheduler.repin(job.id)).changed, false);
  served = ["qwen3.5"];
  const r = await kit.scheduler.repin(job.id);
  assert.equal(r.changed, true);
  assert.equal(r.previous_model, "qwen3");
  assert.equal(kit.store.getJob(job.id)!.model, "qwen3.5");
  served = null;
  const none = await kit.scheduler.repin(job.id);
  assert.equal(none.changed, false);
  assert.equal(none.served, null);
  assert.equal(kit.store.getJob(job.id)!.model, "qwen3.5");
  const { repin } = await kit.scheduler.updateJob(job.id, { repin: true });
  assert.equal(repin?.changed, false);
});

Deno.test("answering an inbox item resumes the halted session with the answer as the prompt", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput({ mode: "strict" }));
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  const halted = kit.store.latestRun(job.id)!;
  proc.exit(2, { session_id: "sess-9", questions: [{ kind: "question", text: "Which tag?" }] });
  await kit.scheduler.idle();
  const [item] = kit.store.listInbox({ state: "open" });
  const spawned = kit.spawner.nextSpawn();
  const { item: answered, run } = kit.scheduler.resumeFromInbox(item!.id, "-v2.1 please", "chat");
  assert.equal(answered.state, "answered");
  assert.equal(answered.answer, "-v2.1 please");
  assert.equal(answered.answered_via, "chat");
  assert.ok(run);
  assert.equal(run.resume_of_run, halted.id);
  await kit.scheduler.step();
  const resumed = await spawned;
  const a = resumed.req.args;
  assert.deepEqual(a.slice(0, 3), ["-p", "--resume", "sess-9"]);
  assert.deepEqual(a.slice(-2), ["--", "-v2.1 please"]);
  assert.equal(resumed.arg("--mode"), "strict");
  resumed.exit(0);
  assert.equal(await kit.scheduler.whenSettled(run.id), "ok");
  assert.throws(() => kit.scheduler.resumeFromInbox(item!.id, "again"), {
    name: "InboxStateError",
  });
  assert.throws(() => kit.scheduler.resumeFromInbox(9999, "x"), { name: "NotFoundError" });
});

Deno.test("resume input is validated before anything changes", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  proc.exit(2, { session_id: "s" });
  await kit.scheduler.idle();
  const [item] = kit.store.listInbox();
  for (const bad of ["", "   ", "a\u0000b", "x".repeat(40_000)]) {
    assert.throws(
      () => kit.scheduler.resumeFromInbox(item!.id, bad),
      { name: "JobValidationError", field: "answer" } as never,
    );
  }
  assert.equal(kit.store.getInboxItem(item!.id)!.state, "open");
});

Deno.test("a halted run without a session id is answered but not resumed", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput());
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  proc.exit(2, "garbage");
  await kit.scheduler.idle();
  const [item] = kit.store.listInbox();
  const { item: answered, run } = kit.scheduler.resumeFromInbox(item!.id, "ok");
  assert.equal(answered.state, "answered");
  assert.equal(run, null);
});

Deno.test("a child whose start identity cannot be read is killed and its run errors, never left running untracked", async () => {
  await using kit = await makeKit({ start: "2026-03-02T09:00:00Z" });
  kit.processes.identity = () => {
    throw new Error("cannot read the process table (/proc/7/stat): Permission denied");
  };
  const job = kit.scheduler.createJob(jobInput({ max_retries: 0 }));
  kit.clock.set(kit.store.getJob(job.id)!.next_run_at!);
  const proc = await tickAndSpawn(kit);
  await kit.scheduler.idle();
  assert.equal(proc.killed, true, "the untracked child's group was killed");
  const run = kit.store.latestRun(job.id)!;
  assert.equal(run.status, "error");
  assert.match(run.reason!, /cannot read the process table/);
});

Deno.test("a child without a result gets its last log line as the reason, never from a symlink or FIFO it left in place of the log", async () => {
  await using kit = await makeKit();
  const job = kit.scheduler.createJob(jobInput({ max_retries: 5 }));
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  const log = proc.req.logPath!;
  await Deno.writeTextFile(log, "starting\nerror: Uncaught Error: the disk is on fire\n  at x\n");
  proc.exit(1, "");
  await kit.scheduler.idle();
  const [, first] = kit.store.listRuns(job.id);
  assert.equal(
    first!.reason,
    "agent exited with code 1 and printed no result: error: Uncaught Error: the disk is on fire",
  );
  // The retry's child swaps its log for a FIFO whose writer hands SECRET to any reader.
  kit.clock.set(new Date(kit.clock.now().getTime() + 61_000));
  const retry = await tickAndSpawn(kit);
  await Deno.remove(retry.req.logPath!).catch(() => {});
  await using _fifo = await fifoWithWriter(retry.req.logPath!);
  retry.exit(1, "");
  await kit.scheduler.idle();
  const [, second] = kit.store.listRuns(job.id);
  assert.equal(second!.attempt, 2);
  assert.equal(second!.reason, "agent exited with code 1 and printed no result");
  // The next one swaps it for a symlink to a file outside: its last line is not the reason.
  kit.clock.set(new Date(kit.clock.now().getTime() + 121_000));
  const third = await tickAndSpawn(kit);
  await replaceWithSymlink(third.req.logPath!, await secretFile(kit.home));
  third.exit(1, "");
  await kit.scheduler.idle();
  const [, thirdRun] = kit.store.listRuns(job.id);
  assert.equal(thirdRun!.attempt, 3);
  assert.equal(thirdRun!.reason, "agent exited with code 1 and printed no result");
});

Deno.test("a job that names a provider preset hands it to the child as AGENT_PRESET", async () => {
  await using kit = await makeKit({ env: { AGENT_PRESET: "operator-choice" } });
  await Deno.writeTextFile(
    `${kit.home}/settings.toml`,
    `[[providers]]\nid = "gpu"\nbase_url = "http://gpu:8000/v1"\n[provider_keys]\ngpu = "k"\n`,
  );
  const job = kit.scheduler.createJob(jobInput({
    base_url: "http://gpu:8000/v1",
    provider_preset: "gpu",
  }));
  assert.equal(job.provider_preset, "gpu");
  kit.clock.set(job.next_run_at!);
  const env = (await tickAndSpawn(kit)).req.env;
  assert.equal(env.AGENT_PRESET, "gpu");
  assert.equal(env.AGENT_BASE_URL, "http://gpu:8000/v1");
});
