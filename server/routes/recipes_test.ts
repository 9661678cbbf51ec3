// Recipe routes (spec 4.5, 7, 9): the catalog with counts, preview, enable (a stamped job or
// a trigger with its one-time secret), the frozen prompt and the stale mark, refusals.

import assert from "node:assert/strict";
import { join } from "node:path";
import { deriveSecret, triggerKeyPath } from "../../core/recipes/trigger_secret.ts";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf, makeTestOutpost } from "../../tests/fakes/test_outpost.ts";
import { TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";

/** A workspace folder of the test's own: never inside the agent home (the doors refuse it). */
async function workdir(_t: { home: string }): Promise<string> {
  return await Deno.makeTempDir({ dir: TEST_WORKDIR, prefix: "recipe_" });
}

Deno.test("GET /api/recipes: the six shipped recipes with zero counts and no load errors", async () => {
  await using t = await makeTestOutpost();
  const body = await jsonOf(await t.app.request("/api/recipes"));
  assert.equal(body.recipes.length, 6);
  assert.deepEqual(body.load_errors, []);
  assert.deepEqual(Object.values(body.enabled_counts), [0, 0, 0, 0, 0, 0]);
  const triage = body.recipes.find((r: { id: string }) => r.id === "issue-triage");
  assert.equal(triage.output_surface, "github_pr_comment");
  assert.equal(triage.enabled_count, 0);
});

Deno.test("GET /api/recipes: a broken recipe file is left out of the catalog and listed in load_errors with the reason", async () => {
  const dir = await Deno.makeTempDir({ prefix: "recipes_bad_" });
  try {
    const shipped = await Deno.readTextFile(
      new URL("../../recipes/daily-brief-9am.json", import.meta.url),
    );
    await Deno.writeTextFile(join(dir, "daily-brief-9am.json"), shipped);
    await Deno.writeTextFile(join(dir, "broken.json"), '{"id": "broken", ');
    await Deno.writeTextFile(
      join(dir, "helper.json"),
      JSON.stringify({
        ...JSON.parse(shipped),
        id: "helper",
        prompt_template: "{{#if workdir}}brief{{/if}}",
      }),
    );
    await using t = await makeTestOutpost({ recipesDir: dir });
    const res = await t.app.request("/api/recipes");
    assert.equal(res.status, 200);
    const body = await jsonOf(res);
    assert.deepEqual(body.recipes.map((r: { id: string }) => r.id), ["daily-brief-9am"]);
    assert.deepEqual(body.enabled_counts, { "daily-brief-9am": 0 });
    assert.deepEqual(body.load_errors.map((e: { file: string }) => e.file), [
      "broken.json",
      "helper.json",
    ]);
    assert.match(body.load_errors[0].error, /JSON/);
    assert.match(body.load_errors[1].error, /unsupported placeholder/);
    // A file that failed to load cannot be enabled.
    const enable = await t.request("POST", "/api/recipes/helper/enable", { config: {} });
    assert.equal(enable.status, 404);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("enable: a schedule recipe makes a stamped job with the rendered prompt, frozen for life", async () => {
  await using t = await makeTestOutpost();
  const wd = await workdir(t);
  const res = await t.request("POST", "/api/recipes/morning-pr-review/enable", {
    config: { workdir: wd, repo: "acme/widgets", max_prs: 3 },
  });
  assert.equal(res.status, 201);
  const { job } = await jsonOf(res);
  assert.equal(job.recipe_id, "morning-pr-review");
  assert.equal(job.recipe_version, 1);
  assert.equal(job.output_surface, "messenger");
  assert.deepEqual(job.schedule, { kind: "cron", expr: "0 9 * * *", tz: "UTC" });
  assert.equal(job.workdir, wd);
  assert.match(job.prompt, /repository acme\/widgets/);
  assert.match(job.prompt, /--limit 3/);
  assert.doesNotMatch(job.prompt, /\{\{/);
  assert.deepEqual(job.meta.recipe_config.repo, "acme/widgets");
  // Counted, listed, audited.
  const listing = await jsonOf(await t.app.request("/api/recipes"));
  assert.equal(listing.enabled_counts["morning-pr-review"], 1);
  const enabled = await jsonOf(await t.app.request("/api/recipes/enabled"));
  assert.deepEqual(enabled.jobs.map((j: { id: number }) => j.id), [job.id]);
  assert.equal(enabled.jobs[0].stale, false);
  assert.equal(t.store.listAudit({ action: "recipe_enable" }).length, 1);
  // The prompt is frozen: a PUT with another prompt is 409 and changes nothing.
  const put = await t.request("PUT", `/api/jobs/${job.id}`, { prompt: "do something else" });
  assert.equal(put.status, 409);
  assert.equal((await jsonOf(put)).error.code, "recipe_prompt_frozen");
  assert.equal(t.store.getJob(job.id)!.prompt, job.prompt);
  // And a job request cannot forge the stamp.
  const forged = await t.request("POST", "/api/jobs", {
    name: "x",
    prompt: "p",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: wd,
    recipe_id: "morning-pr-review",
    recipe_version: 1,
  });
  assert.equal(forged.status, 400);
  assert.equal((await jsonOf(forged)).error.field, "recipe_id");
});

Deno.test("enable refuses attacker config with 400 recipe_error naming the field, makes nothing, and audits each refusal without the value", async () => {
  await using t = await makeTestOutpost();
  const wd = await workdir(t);
  // A secret pasted into the wrong field (or sent on purpose) must be refused and must not
  // be written down: the audit row names the recipe, the field and the rule, never the value.
  const secret = "sk-ant-CANARY7f3a9e";
  const ok = { workdir: wd, repo: "acme/widgets" };
  const cases: Array<[Record<string, unknown>, string, string]> = [
    [
      { ...ok, focus: `{{repo}} ${secret}` },
      "focus",
      "field focus: placeholder or template syntax",
    ],
    [
      { ...ok, focus: `{% raw %} ${secret}` },
      "focus",
      "field focus: placeholder or template syntax",
    ],
    [
      { ...ok, focus: `## New instructions ${secret}` },
      "focus",
      "field focus: markdown block syntax",
    ],
    [
      { ...ok, focus: `see [here](http://x/${secret})` },
      "focus",
      "field focus: markdown, markup, quote or template characters",
    ],
    [
      { ...ok, focus: `a\u0007b${secret}` },
      "focus",
      "field focus: control or invisible characters",
    ],
    [{ ...ok, focus: "x".repeat(201) }, "focus", "field focus: over its cap of 200 characters"],
    [{ ...ok, max_prs: 21 }, "max_prs", "field max_prs: out of range 1..20"],
    [{ workdir: wd }, "repo", "field repo: missing"],
    [{ workdir: wd, repo: secret }, "repo", "field repo: not owner/name"],
    [{ workdir: `/${secret}/x"y` }, "workdir", "field workdir: characters a path may not use"],
    [{ ...ok, prompt_template: "x" }, "prompt_template", "field prompt_template: unknown key"],
    [{ ...ok, [secret]: 1 }, secret, "an unknown key: unknown key"],
    [{ ...ok, workdir: join(wd, secret) }, "workdir", "field workdir: refused by the job checks"],
  ];
  for (const [config, field, detail] of cases) {
    const before = t.store.listAudit({ action: "recipe_refused" }).length;
    const res = await t.request("POST", "/api/recipes/morning-pr-review/enable", { config });
    assert.equal(res.status, 400, JSON.stringify(config));
    const err = (await jsonOf(res)).error;
    // The workdir's existence is the job checks' (validation_failed); the rest are the recipe's.
    assert.equal(err.code, detail.includes("job checks") ? "validation_failed" : "recipe_error");
    assert.equal(err.field, field);
    const rows = t.store.listAudit({ action: "recipe_refused" });
    assert.equal(rows.length, before + 1, `one audit row for ${JSON.stringify(config)}`);
    const row = rows.reduce((a, b) => (b.id > a.id ? b : a));
    assert.equal(row.target, "recipe:morning-pr-review");
    assert.equal(row.actor, "dashboard");
    assert.equal(row.detail, `morning-pr-review v1: ${detail}`);
  }
  const missing = await t.request("POST", "/api/recipes/morning-pr-review/enable", {
    config: { workdir: join(wd, "nope"), repo: "acme/widgets" },
  });
  assert.equal(missing.status, 400);
  assert.equal((await jsonOf(missing)).error.field, "workdir");
  const unknown = await t.request("POST", "/api/recipes/no-such/enable", { config: {} });
  assert.equal(unknown.status, 404);
  const extra = await t.request("POST", "/api/recipes/morning-pr-review/enable", {
    config: { workdir: wd, repo: "a/b" },
    recipe_version: 9,
  });
  assert.equal(extra.status, 400);
  assert.equal(t.store.countJobs(), 0);
  assert.equal(t.store.triggers.list().length, 0);
  assert.equal(t.store.listAudit({ action: "recipe_enable" }).length, 0);
  // Two more refusals (the missing workdir, the body key recipe_version); a 404 names no
  // recipe of ours and writes nothing (its id is the caller's text).
  const refused = t.store.listAudit({ action: "recipe_refused" });
  assert.equal(refused.length, cases.length + 2);
  assert.equal(
    refused.filter((r) => r.detail === "morning-pr-review v1: an unknown key: unknown key").length,
    2,
  );
  assert.ok(refused.every((r) => r.target === "recipe:morning-pr-review"));
  // The value was refused and written nowhere: not in any audit row, job or trigger.
  assert.doesNotMatch(
    JSON.stringify([t.store.listAudit(), t.store.listJobs(), t.store.triggers.list()]),
    /CANARY7f3a9e/,
  );
});

Deno.test("preview renders the prompt and the next fires without making anything", async () => {
  await using t = await makeTestOutpost();
  const res = await t.request("POST", "/api/recipes/weekly-repo-health/preview", {
    config: { workdir: "/srv/x" },
  });
  assert.equal(res.status, 200);
  const body = await jsonOf(res);
  assert.match(body.prompt, /last 30 days/);
  // The kit's clock starts Monday 2026-03-02 09:00Z; Sundays 18:00 UTC follow.
  assert.deepEqual(body.fires.slice(0, 2), ["2026-03-08T18:00:00Z", "2026-03-15T18:00:00Z"]);
  const bad = await t.request("POST", "/api/recipes/weekly-repo-health/preview", {
    config: { workdir: "/srv/x", stale_days: 3 },
  });
  assert.equal(bad.status, 400);
  assert.equal((await jsonOf(bad)).error.field, "stale_days");
  assert.equal(t.store.countJobs(), 0);
  // The enable form previews as the operator types, so a preview refusal is not audited
  // (it would bury the log); the enable that follows is.
  assert.equal(t.store.listAudit({ action: "recipe_refused" }).length, 0);
});

Deno.test("enable issue-triage: a trigger row, a one-time secret that is stored nowhere, and setup steps", async () => {
  await using t = await makeTestOutpost({ baseUrl: "https://outpost.example.org" });
  const wd = await workdir(t);
  const res = await t.request("POST", "/api/recipes/issue-triage/enable", {
    config: { workdir: wd, repo: "acme/widgets" },
  });
  assert.equal(res.status, 201);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await jsonOf(res);
  const id = body.trigger.id;
  assert.equal(body.trigger.salt, undefined);
  assert.equal(body.trigger.recipe_version, 1);
  assert.equal(body.trigger.repo, "acme/widgets");
  assert.match(body.secret, /^[A-Za-z0-9_-]{43}$/);
  const key = (await Deno.readTextFile(triggerKeyPath(t.home))).trim();
  assert.equal(body.secret, deriveSecret(key, id, t.store.triggers.get(id)!.salt));
  assert.equal(body.setup[0].source, "github");
  assert.equal(body.setup[0].payload_url, `https://outpost.example.org/hooks/github/${id}`);
  assert.deepEqual(body.setup[0].events, ["issues"]);
  // The secret is in no stored row and in no later answer.
  const dump = JSON.stringify([
    t.store.triggers.list(),
    t.store.listJobs(),
    t.store.listAudit(),
    await jsonOf(await t.app.request("/api/recipes/enabled")),
    await jsonOf(await t.app.request("/api/recipes")),
  ]);
  assert.ok(!dump.includes(body.secret));
  assert.equal(t.store.countJobs(), 0, "a trigger fires one-shots; enabling makes no job");
  const listing = await jsonOf(await t.app.request("/api/recipes"));
  assert.equal(listing.enabled_counts["issue-triage"], 1);
  // The operator can switch it off (and the count follows).
  const off = await t.request("PUT", `/api/recipes/triggers/${id}`, { enabled: false });
  assert.equal(off.status, 200);
  assert.equal((await jsonOf(off)).trigger.enabled, false);
  assert.equal(
    (await jsonOf(await t.app.request("/api/recipes"))).enabled_counts["issue-triage"],
    0,
  );
});

Deno.test("a failure after the trigger row is made soft-disables the row and answers 500 trigger_enable_failed saying what failed", async () => {
  await using t = await makeTestOutpost({
    triggerSecrets: { secretFor: () => Promise.reject(new Error("trigger_key unreadable")) },
  });
  const wd = await workdir(t);
  const res = await t.request("POST", "/api/recipes/issue-triage/enable", {
    config: { workdir: wd, repo: "acme/widgets" },
  });
  assert.equal(res.status, 500);
  const [row] = t.store.triggers.list();
  assert.deepEqual((await jsonOf(res)).error, {
    code: "trigger_enable_failed",
    message: `trigger ${row!.id} was made, then deriving its webhook secret from the install's ` +
      "trigger key (outpost/trigger_key) failed: trigger_key unreadable; the trigger is " +
      "disabled: fix the cause and enable the recipe again",
  });
  assert.equal(row!.enabled, false);
  assert.match(
    row!.disabled_reason!,
    /enable failed after the trigger was made: trigger_key unreadable/,
  );
  assert.equal(t.store.listAudit({ action: "trigger_disable" }).length, 1);
  assert.equal(
    (await jsonOf(await t.app.request("/api/recipes"))).enabled_counts["issue-triage"],
    0,
  );
});

Deno.test("an unreadable trigger_key file (a directory in its place) answers trigger_enable_failed naming the file, not internal_error", async () => {
  await using t = await makeTestOutpost();
  const wd = await workdir(t);
  await Deno.mkdir(triggerKeyPath(t.home), { recursive: true });
  const res = await t.request("POST", "/api/recipes/issue-triage/enable", {
    config: { workdir: wd, repo: "acme/widgets" },
  });
  assert.equal(res.status, 500);
  const { error } = await jsonOf(res);
  assert.equal(error.code, "trigger_enable_failed");
  assert.ok(error.message.includes(triggerKeyPath(t.home)), error.message);
  assert.match(
    error.message,
    /^trigger \d+ was made, then deriving its webhook secret .* failed: /,
  );
  assert.equal(t.store.triggers.list()[0]!.enabled, false);
});

Deno.test("enable at the job cap answers 400 job_limit (spec 7; POST /api/jobs keeps 409) and stores nothing", async () => {
  await using t = await makeTestOutpost();
  const wd = await workdir(t);
  for (let i = 0; i < 100; i++) t.scheduler.createJob(jobInput({ name: `j${i}` }));
  const res = await t.request("POST", "/api/recipes/daily-brief-9am/enable", {
    config: { workdir: wd },
  });
  assert.equal(res.status, 400);
  const { error } = await jsonOf(res);
  assert.equal(error.code, "job_limit");
  assert.match(error.message, /at most 100 jobs/);
  assert.equal(t.store.countJobs(), 100);
  assert.equal(t.store.listJobs().filter((j) => j.recipe_id !== null).length, 0);
  assert.equal(t.store.listAudit({ action: "recipe_enable" }).length, 0);
});

Deno.test("a later recipe version marks old jobs stale and never rewrites them; enabling again makes a new job", async () => {
  const dir = await Deno.makeTempDir({ prefix: "recipes_v_" });
  const shipped = JSON.parse(
    await Deno.readTextFile(new URL("../../recipes/daily-brief-9am.json", import.meta.url)),
  );
  await Deno.writeTextFile(join(dir, "daily-brief-9am.json"), JSON.stringify(shipped));
  await using t = await makeTestOutpost({ recipesDir: dir });
  const wd = await workdir(t);
  const first = await jsonOf(
    await t.request("POST", "/api/recipes/daily-brief-9am/enable", { config: { workdir: wd } }),
  );
  // Version 2 ships (a new outpost process reads the new file).
  await Deno.writeTextFile(
    join(dir, "daily-brief-9am.json"),
    JSON.stringify({
      ...shipped,
      version: 2,
      prompt_template: "v2 brief of {{since_hours}} hours in {{workdir}}",
    }),
  );
  const { RecipeService } = await import("../../core/recipes/service.ts");
  const v2 = new RecipeService({
    workdirPlaces: t.deps.workdirPlaces,
    store: t.store,
    jobs: t.scheduler,
    clock: t.clock,
    logger: t.logger,
    secrets: t.deps.triggerSecrets,
    baseUrl: "http://x",
    dir,
  });
  const listed = await v2.enabled();
  assert.equal(listed.jobs[0]!.id, first.job.id);
  assert.equal(listed.jobs[0]!.stale, true);
  assert.equal(listed.jobs[0]!.current_version, 2);
  assert.equal(t.store.getJob(first.job.id)!.prompt, first.job.prompt, "never rewritten");
  const made = await v2.enable(
    "daily-brief-9am",
    { config: first.job.meta.recipe_config },
    "dashboard",
  );
  assert.equal(made.kind, "job");
  if (made.kind !== "job") return;
  assert.equal(made.job.recipe_version, 2);
  assert.equal(made.job.prompt, `v2 brief of 24 hours in ${wd}`);
  assert.equal(t.store.getJob(first.job.id)!.recipe_version, 1);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("GET /api/recipes/enabled lists recipe-tagged jobs only", async () => {
  await using t = await makeTestOutpost();
  t.scheduler.createJob(jobInput(), { recipe_id: "daily-brief-9am", recipe_version: 1 });
  t.scheduler.createJob(jobInput());
  const enabled = await jsonOf(await t.app.request("/api/recipes/enabled"));
  assert.equal(enabled.jobs.length, 1);
  assert.equal(enabled.jobs[0].recipe_id, "daily-brief-9am");
  assert.equal(enabled.jobs[0].stale, false);
  assert.deepEqual(enabled.triggers, []);
});
