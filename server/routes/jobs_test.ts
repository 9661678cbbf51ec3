import assert from "node:assert/strict";
import { jobInput, TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf as json, makeTestOutpost } from "../../tests/fakes/test_outpost.ts";

Deno.test("POST /api/jobs creates a job (201) and GET /api/jobs lists it newest first with its latest run", async () => {
  await using t = await makeTestOutpost();
  const a = await t.request("POST", "/api/jobs", jobInput({ name: "first" }));
  assert.equal(a.status, 201);
  const created = (await json(a)).job;
  assert.equal(created.name, "first");
  assert.equal(created.next_run_at, "2026-03-02T10:00:00Z");
  await t.request("POST", "/api/jobs", jobInput({ name: "second" }));
  const list = await json(await t.app.request("/api/jobs"));
  assert.deepEqual(list.jobs.map((j: { name: string }) => j.name), ["second", "first"]);
  assert.equal(list.jobs[0].latest_run, null);
  const audit = t.store.listAudit({ action: "job_create" });
  assert.equal(audit.length, 2);
  assert.equal(audit[0]!.actor, "dashboard");
});

Deno.test("POST /api/jobs: every bad field is a 400 naming it, and nothing is stored", async () => {
  await using t = await makeTestOutpost();
  const cases: [Record<string, unknown>, string][] = [
    [jobInput({ name: undefined }), "name"],
    [jobInput({ name: "" }), "name"],
    [jobInput({ name: "a\nb" }), "name"],
    [jobInput({ prompt: undefined }), "prompt"],
    [jobInput({ prompt: 42 }), "prompt"],
    [jobInput({ prompt: "x".repeat(32_001) }), "prompt"],
    [jobInput({ schedule: undefined }), "schedule"],
    [jobInput({ schedule: "daily" }), "schedule"],
    [jobInput({ schedule: { kind: "weekly", expr: "1h" } }), "schedule.kind"],
    [jobInput({ schedule: { kind: "every", expr: "10s" } }), "schedule.expr"],
    [jobInput({ schedule: { kind: "cron", expr: "61 * * * *" } }), "schedule.expr"],
    [jobInput({ schedule: { kind: "at", expr: "2020-01-01T00:00:00Z" } }), "schedule.expr"],
    [jobInput({ schedule: { kind: "every", expr: "1h", tz: "Mars/Olympus" } }), "schedule.tz"],
    [jobInput({ schedule: { kind: "every", expr: "1h", when: 1 } }), "schedule.when"],
    [jobInput({ workdir: undefined }), "workdir"],
    [jobInput({ workdir: "relative/dir" }), "workdir"],
    [jobInput({ workdir: "/nonexistent/agent-workdir" }), "workdir"],
    [jobInput({ workdir: Deno.execPath() }), "workdir"], // a file, not a directory
    [jobInput({ mode: "yolo" }), "mode"],
    [jobInput({ timeout_s: 5 }), "timeout_s"],
    [jobInput({ timeout_s: "60" }), "timeout_s"],
    [jobInput({ max_retries: -1 }), "max_retries"],
    [jobInput({ max_retries: 1.5 }), "max_retries"],
    [jobInput({ token_budget: 0 }), "token_budget"],
    [jobInput({ priority: 0 }), "priority"],
    [jobInput({ priority: 101 }), "priority"],
    [jobInput({ output_surface: "email" }), "output_surface"],
    [jobInput({ base_url: "ftp://x" }), "base_url"],
    [jobInput({ model: 7 }), "model"],
    [jobInput({ enabled: "yes" }), "enabled"],
    [jobInput({ surprise: true }), "surprise"],
  ];
  for (const [body, field] of cases) {
    const res = await t.request("POST", "/api/jobs", body);
    assert.equal(res.status, 400, `${field}: ${res.status}`);
    const err = (await json(res)).error;
    assert.equal(err.code, "validation_failed");
    assert.equal(err.field, field, JSON.stringify(err));
    assert.match(err.message, new RegExp(field.replace(".", "\\.")));
  }
  for (
    const [raw, field] of [["{not json", "body"], ["[1,2]", "body"], ["", "body"], ["null", "body"]]
  ) {
    const res = await t.request("POST", "/api/jobs", raw);
    assert.equal(res.status, 400);
    assert.equal((await json(res)).error.field, field);
  }
  assert.equal(t.store.countJobs(), 0);
  assert.equal(t.store.listAudit().length, 0);
});

Deno.test("POST /api/jobs: legacy zone aliases and non-string schedule fields are 400s naming the field", async () => {
  await using t = await makeTestOutpost();
  const cases: [Record<string, unknown>, string, RegExp][] = [
    [{ kind: "every", expr: "1h", tz: "EST" }, "schedule.tz", /"EST" is a legacy alias/],
    [{ kind: "every", expr: "1h", tz: "US/Eastern" }, "schedule.tz", /"America\/New_York"/],
    [{ kind: "every", expr: "1h", tz: 5 }, "schedule.tz", /must be a string/],
    [{ kind: "cron", expr: 1, tz: "UTC" }, "schedule.expr", /must be a string.*got number/],
    [{ kind: 1, expr: "1h" }, "schedule.kind", /must be a string/],
  ];
  for (const [schedule, field, message] of cases) {
    const res = await t.request("POST", "/api/jobs", jobInput({ schedule }));
    assert.equal(res.status, 400, JSON.stringify(schedule));
    const err = (await json(res)).error;
    assert.equal(err.field, field, JSON.stringify(err));
    assert.match(err.message, message);
  }
  assert.equal(t.store.countJobs(), 0);
  // The preview route applies the same rule.
  const preview = await t.app.request("/api/schedule/preview?kind=every&expr=1h&tz=EST");
  assert.equal(preview.status, 400);
  assert.equal((await json(preview)).error.field, "schedule.tz");
  // Letter case is not an alias: the zone is stored in the database's spelling.
  const utc = await t.request(
    "POST",
    "/api/jobs",
    jobInput({ schedule: { kind: "every", expr: "1h", tz: "utc" } }),
  );
  assert.equal(utc.status, 201);
  assert.equal((await json(utc)).job.schedule.tz, "UTC");
});

Deno.test("POST /api/jobs refuses the 101st job with 409", async () => {
  await using t = await makeTestOutpost();
  for (let i = 0; i < 100; i++) t.scheduler.createJob(jobInput({ name: `j${i}` }));
  const res = await t.request("POST", "/api/jobs", jobInput({ name: "one too many" }));
  assert.equal(res.status, 409);
  assert.equal((await json(res)).error.code, "job_limit");
  assert.equal(t.store.countJobs(), 100);
});

Deno.test("the job cap holds across both doors: a flood of dashboard and machine-door jobs stops at 100 with a true 409", async () => {
  // A queue deep enough that the job cap, not the governor, is what stops the flood.
  await using t = await makeTestOutpost({ governor: { queue_depth_max: 1000 } });
  const token = t.machineToken("flood");
  const machine = (i: number) =>
    t.app.request("/api/v1/jobs", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ prompt: `one-shot ${i}`, workdir: TEST_WORKDIR }),
    });
  const refused: Response[] = [];
  for (let i = 0; i < 80; i++) {
    const human = await t.request("POST", "/api/jobs", jobInput({ name: `flood ${i}` }));
    const bot = await machine(i);
    for (const res of [human, bot]) {
      if (res.status === 409) refused.push(res);
      else assert.ok(res.status === 201 || res.status === 202, `unexpected ${res.status}`);
    }
  }
  assert.equal(t.store.countJobs(), 100, "the store holds exactly the cap");
  assert.equal(refused.length, 60);
  for (const res of refused) {
    const err = (await json(res)).error;
    assert.equal(err.code, "job_limit");
    assert.match(err.message, /at most 100 jobs may exist, scheduled and one-shot together/);
  }
  assert.equal(t.store.countJobs("api"), 50);
  assert.equal(t.store.countJobs("scheduled"), 50);
});

Deno.test("GET /api/jobs/<id>: the job with its latest run; unknown and non-numeric ids are 404", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  const res = await t.app.request(`/api/jobs/${job.id}`);
  assert.equal(res.status, 200);
  assert.equal((await json(res)).job.id, job.id);
  for (const path of ["/api/jobs/999", "/api/jobs/abc", "/api/jobs/-1"]) {
    const r = await t.app.request(path);
    assert.equal(r.status, 404, path);
    assert.equal((await json(r)).error.code, "not_found");
  }
});

Deno.test("PUT /api/jobs/<id>: partial update, schedule change recomputes next_run_at, null clears priority", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput({ priority: 7, token_budget: 5000 }));
  const res = await t.request("PUT", `/api/jobs/${job.id}`, {
    name: "renamed",
    schedule: { kind: "cron", expr: "30 9 * * *", tz: "Europe/Berlin" },
    priority: null,
    token_budget: null,
  });
  assert.equal(res.status, 200);
  const updated = (await json(res)).job;
  assert.equal(updated.name, "renamed");
  assert.equal(updated.prompt, job.prompt);
  assert.equal(updated.priority, null);
  assert.equal(updated.token_budget, null);
  assert.equal(updated.next_run_at, "2026-03-03T08:30:00Z");
  assert.equal(t.store.listAudit({ action: "job_update" }).length, 1);
});

Deno.test("a naive at inside a DST gap is stored at the gap's end, and POST and PUT say which instant (schedule_note)", async () => {
  await using t = await makeTestOutpost();
  const gap = { kind: "at", expr: "2026-03-08T02:30", tz: "America/New_York" };
  const note = "2026-03-08T02:30 does not exist in America/New_York (clocks jump from 02:00 " +
    "to 03:00): passed over to the next valid instant, 2026-03-08T03:00 America/New_York " +
    "(2026-03-08T07:00:00Z)";
  const res = await t.request("POST", "/api/jobs", jobInput({ schedule: gap }));
  assert.equal(res.status, 201);
  const body = await json(res);
  assert.equal(body.job.schedule.expr, "2026-03-08T07:00:00Z");
  assert.equal(body.job.next_run_at, "2026-03-08T07:00:00Z");
  assert.equal(body.schedule_note, note);
  assert.equal(t.store.getJob(body.job.id)!.next_run_at, "2026-03-08T07:00:00Z");
  // A PUT moving another job into the gap says the same; a time that exists gets no note.
  const other = t.scheduler.createJob(jobInput({}));
  const put = await json(await t.request("PUT", `/api/jobs/${other.id}`, { schedule: gap }));
  assert.equal(put.job.next_run_at, "2026-03-08T07:00:00Z");
  assert.equal(put.schedule_note, note);
  const plain = await json(
    await t.request("PUT", `/api/jobs/${other.id}`, {
      schedule: { ...gap, expr: "2026-03-08T04:00" },
    }),
  );
  assert.equal(plain.job.next_run_at, "2026-03-08T08:00:00Z");
  assert.equal("schedule_note" in plain, false);
});

Deno.test("PUT /api/jobs/<id>: bad fields are 400 naming the field and change nothing; unknown id 404", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  const before = t.store.getJob(job.id);
  const cases: [unknown, string][] = [
    [{}, "job"],
    [{ name: "" }, "name"],
    [{ schedule: { kind: "every", expr: "5s" } }, "schedule.expr"],
    [{ timeout_s: 10 }, "timeout_s"],
    [{ priority: 0 }, "priority"],
    [{ enabled: 1 }, "enabled"],
    [{ repin: false }, "repin"],
    [{ id: 5 }, "id"],
    [{ name: "fine", mode: "bad" }, "mode"],
    [{ prompt: "" }, "prompt"],
    [{ workdir: "rel" }, "workdir"],
    [{ workdir: "/nonexistent/agent-workdir" }, "workdir"],
    [{ max_retries: 11 }, "max_retries"],
    [{ token_budget: "lots" }, "token_budget"],
    [{ output_surface: "sms" }, "output_surface"],
    [{ base_url: "not a url" }, "base_url"],
    [{ model: "a\u0000b" }, "model"],
    [{ meta: [] }, "meta"],
    [{ schedule: { kind: "cron", expr: "* * *" } }, "schedule.expr"],
    [{ schedule: { kind: "every", expr: "1h", tz: "Moon/Base" } }, "schedule.tz"],
  ];
  for (const [body, field] of cases) {
    const res = await t.request("PUT", `/api/jobs/${job.id}`, body);
    assert.equal(res.status, 400, field);
    assert.equal((await json(res)).error.field, field);
  }
  assert.deepEqual(t.store.getJob(job.id), before);
  const missing = await t.request("PUT", "/api/jobs/999", { name: "x" });
  assert.equal(missing.status, 404);
});

Deno.test("PUT {enabled: true} re-enables a dead-lettered job and clears its failure state", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  t.store.updateJob(job.id, {
    enabled: false,
    failure_count: 4,
    dead_letter_reason: "4 consecutive failed attempts",
    disabled_reason: "dead-letter: 4 consecutive failed attempts",
    next_run_at: null,
  });
  const res = await t.request("PUT", `/api/jobs/${job.id}`, { enabled: true });
  assert.equal(res.status, 200);
  const j = (await json(res)).job;
  assert.equal(j.enabled, true);
  assert.equal(j.failure_count, 0);
  assert.equal(j.dead_letter_reason, null);
  assert.equal(j.disabled_reason, null);
  assert.ok(j.next_run_at);
  assert.equal(t.store.listAudit({ action: "job_enable" }).length, 1);
  const off = await t.request("PUT", `/api/jobs/${job.id}`, { enabled: false });
  assert.equal((await json(off)).job.enabled, false);
});

Deno.test("PUT {repin: true} re-resolves the model pin and reports it", async () => {
  await using t = await makeTestOutpost({ pinResolver: () => Promise.resolve(["model-b"]) });
  const job = t.scheduler.createJob(
    jobInput({ base_url: "http://127.0.0.1:9/v1", model: "model-a" }),
  );
  const res = await t.request("PUT", `/api/jobs/${job.id}`, { repin: true });
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.job.model, "model-b");
  assert.equal(body.repin.changed, true);
  assert.equal(body.repin.previous_model, "model-a");
});

Deno.test("DELETE /api/jobs/<id> cascades the run history, keeps the report on disk, 404 after", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  const trig = await t.request("POST", `/api/jobs/${job.id}/trigger`);
  assert.equal(trig.status, 202);
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const proc = await spawned;
  const report = proc.arg("--output")!;
  await Deno.writeTextFile(report, "# report\n");
  proc.exit(0, { session_id: "s1" });
  await t.scheduler.idle();
  const runId = t.store.latestRun(job.id)!.id;
  const res = await t.request("DELETE", `/api/jobs/${job.id}`);
  assert.equal(res.status, 200);
  assert.deepEqual(await json(res), { deleted: true, job_id: job.id });
  assert.equal(t.store.getJob(job.id), null);
  assert.equal(t.store.getRun(runId), null);
  assert.equal(await Deno.readTextFile(report), "# report\n");
  assert.equal((await t.request("DELETE", `/api/jobs/${job.id}`)).status, 404);
  assert.equal(t.store.listAudit({ action: "job_delete" }).length, 1);
});

Deno.test("trigger: 202 with a queued run, 409 while one is in flight, 404 for an unknown job", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  const res = await t.request("POST", `/api/jobs/${job.id}/trigger`);
  assert.equal(res.status, 202);
  const run = (await json(res)).run;
  assert.equal(run.status, "queued");
  const again = await t.request("POST", `/api/jobs/${job.id}/trigger`);
  assert.equal(again.status, 409);
  assert.equal((await json(again)).error.code, "run_in_flight");
  assert.equal((await t.request("POST", "/api/jobs/999/trigger")).status, 404);
  assert.equal(t.store.listRuns(job.id).length, 1);
});

Deno.test("cancel: kills the running run (200 cancelled + cancelled_at), a repeat echoes it, then 409", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  assert.equal((await t.request("POST", `/api/jobs/${job.id}/cancel`)).status, 409);
  await t.request("POST", `/api/jobs/${job.id}/trigger`);
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const proc = await spawned;
  t.clock.set("2026-03-02T09:00:30Z");
  const res = await t.request("POST", `/api/jobs/${job.id}/cancel`);
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.status, "cancelled");
  assert.equal(body.cancelled_at, "2026-03-02T09:00:30Z");
  assert.equal(body.was, "running");
  assert.equal(proc.killed, true);
  await t.scheduler.idle();
  t.clock.set("2026-03-02T09:05:00Z");
  const repeat = await json(await t.request("POST", `/api/jobs/${job.id}/cancel`));
  assert.equal(repeat.status, "cancelled");
  assert.equal(repeat.cancelled_at, "2026-03-02T09:00:30Z");
  assert.equal(t.store.listAudit({ action: "job_cancel" }).length, 1);
  assert.equal(t.store.getJob(job.id)!.schedule.expr, "1h");
  // A fresh trigger then finishing leaves nothing in flight: 409 again.
  await t.request("POST", `/api/jobs/${job.id}/trigger`);
  const next = t.spawner.nextSpawn();
  await t.scheduler.step();
  (await next).exit(0);
  await t.scheduler.idle();
  const none = await t.request("POST", `/api/jobs/${job.id}/cancel`);
  assert.equal(none.status, 409);
  assert.equal((await json(none)).error.code, "nothing_in_flight");
  assert.equal((await t.request("POST", "/api/jobs/999/cancel")).status, 404);
});

Deno.test("cancel of a queued run disables the job and keeps its schedule", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  await t.request("POST", `/api/jobs/${job.id}/trigger`);
  const res = await t.request("POST", `/api/jobs/${job.id}/cancel`);
  assert.equal(res.status, 200);
  assert.equal((await json(res)).was, "queued");
  const after = t.store.getJob(job.id)!;
  assert.equal(after.enabled, false);
  assert.equal(after.schedule.expr, "1h");
});

Deno.test("runs list, one run and its report output; bad paging and missing reports are clear errors", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  await t.request("POST", `/api/jobs/${job.id}/trigger`);
  const queued = t.store.latestRun(job.id)!;
  const early = await t.app.request(`/api/jobs/${job.id}/runs/${queued.id}/output`);
  assert.equal(early.status, 404);
  assert.equal((await json(early)).error.code, "no_report");
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const proc = await spawned;
  await Deno.writeTextFile(proc.arg("--output")!, "# Done\n\n<script>alert(1)</script>\n");
  proc.exit(1, { error: "boom" });
  await t.scheduler.idle();
  const runs = (await json(await t.app.request(`/api/jobs/${job.id}/runs`))).runs;
  assert.equal(runs.length, 2); // the failed attempt and its queued retry
  assert.equal(runs[1].status, "error");
  assert.equal(runs[1].exit_code, 1);
  assert.equal(runs[1].attempt, 1);
  assert.equal(runs[0].attempt, 2);
  const limited = (await json(await t.app.request(`/api/jobs/${job.id}/runs?limit=1`))).runs;
  assert.equal(limited.length, 1);
  const older = await json(await t.app.request(`/api/jobs/${job.id}/runs?before=${runs[0].id}`));
  assert.equal(older.runs[0].id, runs[1].id);
  for (const q of ["limit=0", "limit=abc", "limit=501", "before=0"]) {
    const r = await t.app.request(`/api/jobs/${job.id}/runs?${q}`);
    assert.equal(r.status, 400, q);
  }
  const one = await json(await t.app.request(`/api/jobs/${job.id}/runs/${runs[1].id}`));
  assert.equal(one.run.status, "error");
  const out = await t.app.request(`/api/jobs/${job.id}/runs/${runs[1].id}/output`);
  assert.equal(out.status, 200);
  assert.match(out.headers.get("content-type")!, /^text\/markdown/);
  assert.equal(out.headers.get("x-content-type-options"), "nosniff");
  assert.equal(await out.text(), "# Done\n\n<script>alert(1)</script>\n");
  assert.equal((await t.app.request(`/api/jobs/${job.id}/runs/9999`)).status, 404);
  assert.equal((await t.app.request(`/api/jobs/999/runs`)).status, 404);
  const other = t.scheduler.createJob(jobInput({ name: "other" }));
  assert.equal(
    (await t.app.request(`/api/jobs/${other.id}/runs/${runs[1].id}/output`)).status,
    404,
  );
});

Deno.test("run output refuses a report path outside the runs directory", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  const secret = `${t.home}/secret.md`;
  await Deno.writeTextFile(secret, "secret");
  const run = t.store.createRun({
    job_id: job.id,
    status: "ok",
    attempt: 1,
    priority: 10,
    class: "scheduled",
    report_path: `${t.home}/outpost/runs/${job.id}/../../../secret.md`,
  });
  const res = await t.app.request(`/api/jobs/${job.id}/runs/${run.id}/output`);
  assert.equal(res.status, 404);
  assert.doesNotMatch(await res.text(), /secret"?$/);
});

Deno.test("POST /api/jobs refuses the server-side stamp: recipe_id, recipe_version, meta and enabled are 400 naming the field", async () => {
  await using t = await makeTestOutpost();
  const forged: Record<string, unknown>[] = [
    { recipe_id: "daily-brief-9am", recipe_version: 1 },
    { recipe_version: 3 },
    { meta: { room: "!forged:example.org" } },
    { enabled: false },
  ];
  for (const extra of forged) {
    const res = await t.request("POST", "/api/jobs", jobInput(extra));
    assert.equal(res.status, 400, JSON.stringify(extra));
    const err = (await json(res)).error;
    assert.equal(err.code, "validation_failed");
    assert.equal(err.field, Object.keys(extra)[0]);
  }
  assert.equal(t.store.countJobs(), 0);
});

Deno.test("PUT refuses a new prompt on a recipe-made job with 409 recipe_prompt_frozen; other fields and the same prompt pass", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput(), {
    recipe_id: "daily-brief-9am",
    recipe_version: 2,
  });
  const res = await t.request("PUT", `/api/jobs/${job.id}`, { prompt: "do something else" });
  assert.equal(res.status, 409);
  const err = (await json(res)).error;
  assert.equal(err.code, "recipe_prompt_frozen");
  assert.equal(err.field, "prompt");
  assert.match(err.message, /recipe daily-brief-9am.*frozen/);
  assert.equal(t.store.getJob(job.id)!.prompt, job.prompt);
  const same = await t.request("PUT", `/api/jobs/${job.id}`, { prompt: job.prompt, name: "brief" });
  assert.equal(same.status, 200, "the edit form sends the unchanged prompt back");
  assert.equal((await json(same)).job.name, "brief");
  // A PUT cannot rewrite the stamp either.
  for (const body of [{ recipe_id: "other" }, { recipe_version: 9 }, { meta: { room: "!x" } }]) {
    assert.equal((await t.request("PUT", `/api/jobs/${job.id}`, body)).status, 400);
  }
  const plain = t.scheduler.createJob(jobInput({ name: "hand-made" }));
  assert.equal((await t.request("PUT", `/api/jobs/${plain.id}`, { prompt: "new" })).status, 200);
});

Deno.test("re-enabling a one-shot cancelled while queued is refused with 409 one_shot_finished, saying why", async () => {
  // The api class admits nothing, so the submission stays queued until it is cancelled.
  await using t = await makeTestOutpost({ governor: { max_concurrent: { api: 0, scheduled: 2 } } });
  const token = t.machineToken("ci");
  const submit = await t.app.request("/api/v1/jobs", {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({ prompt: "once", workdir: TEST_WORKDIR }),
  });
  const { job_id } = await json(submit);
  await t.scheduler.step();
  assert.equal((await t.request("POST", `/api/jobs/${job_id}/cancel`)).status, 200);
  assert.equal(t.store.getJob(job_id)!.enabled, false);
  const res = await t.request("PUT", `/api/jobs/${job_id}`, { enabled: true });
  assert.equal(res.status, 409);
  const err = (await json(res)).error;
  assert.equal(err.code, "one_shot_finished");
  assert.match(err.message, /one-shot with nothing queued or running.*trigger/);
  assert.equal(t.store.getJob(job_id)!.enabled, false, "nothing changed");
  assert.equal(t.store.listAudit({ action: "job_enable" }).length, 0);
  // Run now still works, and a paused one-shot whose run still waits can be re-enabled.
  assert.equal((await t.request("POST", `/api/jobs/${job_id}/trigger`)).status, 202);
  assert.equal((await t.request("PUT", `/api/jobs/${job_id}`, { enabled: true })).status, 200);
});
