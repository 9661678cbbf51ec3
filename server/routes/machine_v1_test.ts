import assert from "node:assert/strict";
import { TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import { hashMachineToken } from "../http/machine_tokens.ts";
import {
  jsonOf as json,
  makeTestOutpost,
  type TestOutpost,
} from "../../tests/fakes/test_outpost.ts";

function v1(t: TestOutpost, token: string | null, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (token !== null) headers.Authorization = `Bearer ${token}`;
  return t.app.request(path, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
}

const SUBMIT = { prompt: "summarize the open issues", workdir: TEST_WORKDIR };

Deno.test("machine door: missing, malformed, unknown and revoked tokens are all 401", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken("ci");
  const revoked = t.machineToken("old");
  const old = t.store.listMachineTokens().find((r) => r.name === "old")!;
  t.store.revokeMachineToken(old.id);
  const attempts: [string, Record<string, string>][] = [
    ["none", {}],
    ["basic", { Authorization: "Basic dXNlcjpwYXNz" }],
    ["empty bearer", { Authorization: "Bearer " }],
    ["junk", { Authorization: "Bearer not-a-token" }],
    ["unknown", { Authorization: `Bearer aop_${"A".repeat(43)}` }],
    ["revoked", { Authorization: `Bearer ${revoked}` }],
    ["hash instead of token", { Authorization: `Bearer ${hashMachineToken(token)}` }],
  ];
  for (const [label, headers] of attempts) {
    for (
      const [method, path] of [
        ["POST", "/api/v1/jobs"],
        ["GET", "/api/v1/jobs/1/runs/1"],
        ["POST", "/api/v1/jobs/1/cancel"],
        ["GET", "/api/v1/nothing-here"],
      ] as const
    ) {
      const res = await t.app.request(path, {
        method,
        headers: { ...headers, "Content-Type": "application/json" },
        ...(method === "POST" ? { body: JSON.stringify(SUBMIT) } : {}),
      });
      assert.equal(res.status, 401, `${label} ${method} ${path}`);
      assert.match(res.headers.get("www-authenticate")!, /^Bearer/);
      assert.equal((await json(res)).error.code, "unauthorized");
    }
  }
  assert.equal(t.store.countJobs(), 0);
  const ok = await v1(t, token, "GET", "/api/v1/nothing-here");
  assert.equal(ok.status, 404, "an authenticated unknown route is a JSON 404");
  assert.equal((await json(ok)).error.code, "not_found");
});

Deno.test("POST /api/v1/jobs submits a one-shot api job: 202 with job and run ids", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken("ci");
  const res = await v1(t, token, "POST", "/api/v1/jobs", {
    ...SUBMIT,
    mode: "strict",
    timeout_s: 600,
    token_budget: 20_000,
    priority: 3,
    meta: { room: "!r:hs" },
  });
  assert.equal(res.status, 202);
  const body = await json(res);
  assert.equal(body.status, "queued");
  assert.equal(body.status_url, `/api/v1/jobs/${body.job_id}/runs/${body.run_id}`);
  const job = t.store.getJob(body.job_id)!;
  assert.equal(job.class, "api");
  assert.equal(job.name, "api: summarize the open issues");
  assert.equal(job.next_run_at, null);
  assert.equal(job.mode, "strict");
  assert.equal(job.meta.room, "!r:hs");
  const tokenRow = t.store.listMachineTokens()[0]!;
  assert.equal(job.meta.submitted_by, `token:${tokenRow.id}:ci`);
  assert.ok(tokenRow.last_used_at, "use is stamped");
  const run = t.store.getRun(body.run_id)!;
  assert.equal(run.class, "api");
  assert.equal(run.priority, 3);
  const [row] = t.store.listAudit({ action: "api_submit" });
  assert.equal(row!.actor, `token:${tokenRow.id}:ci`);
  // The queued run starts like any other and its child gets the prompt.
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  assert.equal((await spawned).prompt, "summarize the open issues");
});

Deno.test("POST /api/v1/jobs: bad fields are 400 naming the field and store nothing", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  const cases: [unknown, string][] = [
    [{ workdir: TEST_WORKDIR }, "prompt"],
    [{ prompt: "", workdir: TEST_WORKDIR }, "prompt"],
    [{ prompt: "x" }, "workdir"],
    [{ prompt: "x", workdir: "tmp" }, "workdir"],
    [{ prompt: "x", workdir: "/nonexistent/agent-workdir" }, "workdir"],
    [{ ...SUBMIT, schedule: { kind: "every", expr: "1h" } }, "schedule"],
    [{ ...SUBMIT, base_url: "http://x" }, "base_url"],
    [{ ...SUBMIT, max_retries: 1 }, "max_retries"],
    [{ ...SUBMIT, mode: "plan" }, "mode"],
    [{ ...SUBMIT, timeout_s: 1 }, "timeout_s"],
    [{ ...SUBMIT, token_budget: -5 }, "token_budget"],
    [{ ...SUBMIT, priority: 0 }, "priority"],
    [{ ...SUBMIT, output_surface: "pager" }, "output_surface"],
    [{ ...SUBMIT, meta: [1] }, "meta"],
    [{ ...SUBMIT, name: "a\nb" }, "name"],
    // Only the recipe route stamps a job (spec 4.5): the machine door cannot claim to be a
    // recipe (which would make a github_pr_comment run trust its meta) nor choose enabled.
    [{ ...SUBMIT, recipe_id: "issue-triage" }, "recipe_id"],
    [{ ...SUBMIT, recipe_version: 1 }, "recipe_version"],
    [{ ...SUBMIT, enabled: false }, "enabled"],
    ["{bad", "body"],
    ["[]", "body"],
  ];
  for (const [body, field] of cases) {
    const res = await v1(t, token, "POST", "/api/v1/jobs", body);
    assert.equal(res.status, 400, field);
    assert.equal((await json(res)).error.field, field);
  }
  assert.equal(t.store.countJobs(), 0);
  assert.equal(t.store.countQueued(), 0);
  assert.equal(t.store.listAudit({ action: "api_submit" }).length, 0);
});

Deno.test("POST /api/v1/jobs answers 503 capacity-exceeded once queue_depth_max runs are queued", async () => {
  await using t = await makeTestOutpost({ governor: { queue_depth_max: 2 } });
  const token = t.machineToken();
  assert.equal((await v1(t, token, "POST", "/api/v1/jobs", SUBMIT)).status, 202);
  assert.equal((await v1(t, token, "POST", "/api/v1/jobs", SUBMIT)).status, 202);
  const full = await v1(t, token, "POST", "/api/v1/jobs", SUBMIT);
  assert.equal(full.status, 503);
  assert.equal(full.headers.get("retry-after"), "30");
  const body = await json(full);
  assert.equal(body.error.code, "capacity-exceeded");
  assert.match(body.error.message, /queue_depth_max 2/);
  assert.equal(t.store.countJobs(), 2);
});

Deno.test("GET run status and output through the machine door", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  const { job_id, run_id } = await json(await v1(t, token, "POST", "/api/v1/jobs", SUBMIT));
  const queued = await json(await v1(t, token, "GET", `/api/v1/jobs/${job_id}/runs/${run_id}`));
  assert.deepEqual(Object.keys(queued).sort(), [
    "attempt",
    "cancelled_at",
    "cost_usd",
    "exit_code",
    "finished_at",
    "job_id",
    "output_url",
    "queued_at",
    "reason",
    "run_id",
    "started_at",
    "status",
    "tokens_in",
    "tokens_out",
  ]);
  assert.equal(queued.status, "queued");
  assert.equal(
    (await v1(t, token, "GET", `/api/v1/jobs/${job_id}/runs/${run_id}/output`)).status,
    404,
  );
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  await Deno.writeTextFile(child.arg("--output")!, "# Issues\n\n3 open.\n");
  child.exit(0, { session_id: "s", usage: { input_tokens: 100, output_tokens: 20 } });
  await t.scheduler.idle();
  const done = await json(await v1(t, token, "GET", `/api/v1/jobs/${job_id}/runs/${run_id}`));
  assert.equal(done.status, "ok");
  assert.equal(done.exit_code, 0);
  assert.equal(done.tokens_in, 100);
  const out = await v1(t, token, "GET", done.output_url);
  assert.equal(out.status, 200);
  assert.equal(await out.text(), "# Issues\n\n3 open.\n");
  assert.equal((await v1(t, token, "GET", `/api/v1/jobs/${job_id}/runs/999`)).status, 404);
  assert.equal((await v1(t, token, "GET", `/api/v1/jobs/999/runs/${run_id}`)).status, 404);
});

Deno.test("POST /api/v1/jobs/<id>/cancel shares the cancel core with the dashboard route", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  const { job_id } = await json(await v1(t, token, "POST", "/api/v1/jobs", SUBMIT));
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  t.clock.set("2026-03-02T09:01:00Z");
  const res = await v1(t, token, "POST", `/api/v1/jobs/${job_id}/cancel`);
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.deepEqual(Object.keys(body).sort(), ["cancelled_at", "job_id", "run_id", "status"]);
  assert.equal(body.status, "cancelled");
  assert.equal(body.cancelled_at, "2026-03-02T09:01:00Z");
  assert.equal(child.killed, true);
  await t.scheduler.idle();
  // The dashboard's cancel sees the same cancellation and echoes its timestamp.
  const human = await json(await t.request("POST", `/api/jobs/${job_id}/cancel`));
  assert.equal(human.cancelled_at, "2026-03-02T09:01:00Z");
  const repeat = await json(await v1(t, token, "POST", `/api/v1/jobs/${job_id}/cancel`));
  assert.equal(repeat.cancelled_at, "2026-03-02T09:01:00Z");
  assert.equal(t.store.listAudit({ action: "job_cancel" }).length, 1);
  assert.equal((await v1(t, token, "POST", "/api/v1/jobs/999/cancel")).status, 404);
});

Deno.test("the machine door answers 409 when nothing is in flight", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  const { job_id } = await json(await v1(t, token, "POST", "/api/v1/jobs", SUBMIT));
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  (await spawned).exit(0);
  await t.scheduler.idle();
  const res = await v1(t, token, "POST", `/api/v1/jobs/${job_id}/cancel`);
  assert.equal(res.status, 409);
  assert.equal((await json(res)).error.code, "nothing_in_flight");
});

Deno.test("GET /api/v1/jobs/<id> follows a submission across retries to its newest run", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  const { job_id, run_id } = await json(await v1(t, token, "POST", "/api/v1/jobs", SUBMIT));
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  (await spawned).exit(1, { error: "model unreachable" });
  await t.scheduler.idle();
  const job = await json(await v1(t, token, "GET", `/api/v1/jobs/${job_id}`));
  assert.equal(job.job_id, job_id);
  assert.equal(job.latest_run.attempt, 2);
  assert.equal(job.latest_run.status, "queued");
  assert.notEqual(job.latest_run.run_id, run_id);
  const first = await json(await v1(t, token, "GET", `/api/v1/jobs/${job_id}/runs/${run_id}`));
  assert.equal(first.status, "error");
  assert.equal(first.reason, "model unreachable");
  assert.equal((await v1(t, token, "GET", "/api/v1/jobs/999")).status, 404);
});

Deno.test("GET output answers 404 no_report while the run is in flight, even when a report file is there", async () => {
  await using t = await makeTestOutpost();
  const token = t.machineToken();
  const { job_id, run_id } = await json(await v1(t, token, "POST", "/api/v1/jobs", SUBMIT));
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  // The child writes its report before its reflection pass, then rewrites it: what is on
  // disk while the run is going is not the report the run ends with.
  await Deno.writeTextFile(child.arg("--output")!, "# Partial\n");
  for (
    const path of [
      `/api/v1/jobs/${job_id}/runs/${run_id}/output`,
      `/api/jobs/${job_id}/runs/${run_id}/output`,
    ]
  ) {
    const res = path.startsWith("/api/v1/")
      ? await v1(t, token, "GET", path)
      : await t.app.request(path);
    assert.equal(res.status, 404, path);
    const body = await json(res);
    assert.equal(body.error.code, "no_report");
    assert.match(body.error.message, /still running/);
  }
  await Deno.writeTextFile(child.arg("--output")!, "# Final\n");
  child.exit(0);
  await t.scheduler.idle();
  const out = await v1(t, token, "GET", `/api/v1/jobs/${job_id}/runs/${run_id}/output`);
  assert.equal(out.status, 200);
  assert.equal(await out.text(), "# Final\n");
});
