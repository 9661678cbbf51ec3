// app.request() tests of the server-rendered pages, partials and static files (no browser):
// statuses, the CSP and CSRF meta tag, escaping of every user-controlled string, the Stop
// button rules, friendly 404s, and the model name the job form and job pages show when the
// endpoint picks the model. The inbox item page: pages_inbox_test.ts; empty lists:
// pages_empty_test.ts; their fixtures: tests/fakes/page_fixtures.ts.

import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryLogger } from "../../core/logger.ts";
import { envFrom } from "../../core/ports.ts";
import { outpostSettings } from "../commands/serve.ts";
import { createApp } from "../app.ts";
import { makeTestOutpost, TEST_CSRF_TOKEN } from "../../tests/fakes/test_outpost.ts";
import {
  assertEscaped,
  finishedRun,
  get,
  HOSTILE,
  inboxItem,
  job,
} from "../../tests/fakes/page_fixtures.ts";
import { STATIC_ASSETS } from "../static/assets.ts";
import { PAGE_CSP } from "./pages.ts";

Deno.test("GET / renders every card with the CSRF meta tag, CSP and phone viewport", async () => {
  await using t = await makeTestOutpost();
  job(t);
  const { status, html, res } = await get(t, "/");
  assert.equal(status, 200);
  assert.match(res.headers.get("Content-Type") ?? "", /^text\/html/);
  assert.equal(res.headers.get("Content-Security-Policy"), PAGE_CSP);
  assert.match(PAGE_CSP, /script-src 'self'/);
  assert.doesNotMatch(PAGE_CSP, /unsafe-inline|unsafe-eval/);
  assert.equal(res.headers.get("Cache-Control"), "no-store");
  assert.match(res.headers.get("Set-Cookie") ?? "", /outpost_csrf=.*HttpOnly; SameSite=Strict/);
  assert.ok(html.startsWith("<!DOCTYPE html>"));
  assert.ok(html.includes(`<meta name="csrf-token" content="${TEST_CSRF_TOKEN}">`));
  assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1/);
  for (const id of ["card-inbox", "card-runs", "card-jobs", "card-governor", "card-memory"]) {
    assert.ok(html.includes(`id="${id}"`), `missing ${id}`);
  }
  // Dormant messenger: a quiet dot with the missing names in its tooltip and, for screen
  // readers, as hidden text (an aria-label on a plain span is not announced).
  assert.match(
    html,
    /class="pill pill-dormant pill-quiet" id="messenger-pill" data-state="dormant" title="Messenger dormant: missing MX_HOMESERVER, MX_TOKEN, MX_ROOM, MX_ALLOWLIST"[^>]*><span class="dot" aria-hidden="true"><\/span><span class="sr-only">Messenger dormant: missing MX_HOMESERVER, MX_TOKEN, MX_ROOM, MX_ALLOWLIST<\/span><\/span>/,
  );
  // ... and the job form greys out the messenger surface, saying why.
  assert.match(
    html,
    /<option value="messenger" disabled>messenger \(messenger not configured: set MX_HOMESERVER, MX_TOKEN, MX_ROOM, MX_ALLOWLIST\)<\/option>/,
  );
  assert.match(html, /id="push-badge" data-state="dormant" data-devices="0"/);
  assert.match(html, /<form id="job-form"/);
  assert.match(html, /data-lever="max_concurrent.scheduled" value="2"/);
  // No inline script or style anywhere: the CSP would block them.
  assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]|<style|\sstyle="|\son[a-z]+="/);
  assert.match(html, /<script type="module" src="\/static\/app.js\?v=[0-9a-f]{12}"><\/script>/);
  for (const css of ["base", "controls", "cards"]) {
    assert.match(
      html,
      new RegExp(`<link rel="stylesheet" href="/static/${css}.css\\?v=[0-9a-f]{12}">`),
    );
  }
});

Deno.test("GET / escapes job names, prompts, reasons, questions and answers", async () => {
  await using t = await makeTestOutpost();
  const j = job(t, { name: HOSTILE, prompt: HOSTILE });
  t.store.updateJob(j.id, { enabled: false, dead_letter_reason: HOSTILE });
  const run = await finishedRun(t, j.id, "needs_human");
  inboxItem(t, j.id, run.id, [{ kind: "question", text: HOSTILE, options: [HOSTILE] }]);
  const { html } = await get(t, "/");
  assertEscaped(html);
  assert.ok(html.includes("&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;&quot;&#39;"));
  assert.match(html, /Dead-letter:<\/strong>/);
  // The edit button carries only the id; the page script fetches the job when it is clicked.
  assert.match(html, new RegExp(`data-action="edit-job" data-id="${j.id}"`));
  assert.doesNotMatch(html, /data-job=/);
});

Deno.test("GET /runs/<job>/<run>: facts, sanitized report, no Stop once finished", async () => {
  await using t = await makeTestOutpost();
  const j = job(t);
  const report = `# Done\n\n${HOSTILE}\n\n<script>alert(2)</script>\n\n[x](javascript:alert(3))\n`;
  const run = await finishedRun(t, j.id, "ok", report);
  const { status, html, res } = await get(t, `/runs/${j.id}/${run.id}`);
  assert.equal(status, 200);
  assert.equal(res.headers.get("Content-Security-Policy"), PAGE_CSP);
  assert.match(html, /<dd data-fact="status">ok<\/dd>/);
  assert.match(html, /<dd data-fact="attempt">1<\/dd>/);
  assert.match(html, /<dd data-fact="exit-code">0<\/dd>/);
  assert.match(html, /1 min 5 s/);
  assert.match(html, /<article class="md" id="report"><h1>Done<\/h1>/);
  assertEscaped(html);
  assert.ok(!html.includes("<script>alert(2)"));
  assert.ok(!html.includes('href="javascript'));
  assert.doesNotMatch(html, /data-action="stop-job"/);
  assert.doesNotMatch(html, /data-done-reason|data-fact="stop-reason"/, "nothing reported");
  assert.match(html, /id="card-memory"/);
  assert.match(html, /data-live="run" data-src="\/partials\/run\/1\/1"/);
});

Deno.test("GET /runs/<job>/<run>: an answer cut off by max_tokens shows truncated and the stop reason", async () => {
  await using t = await makeTestOutpost();
  const j = job(t);
  const spawned = t.spawner.nextSpawn();
  const queued = t.scheduler.trigger(j.id);
  await t.scheduler.step();
  const child = await spawned;
  await Deno.writeTextFile(child.arg("--output")!, "# Report\n\nHello from a\n");
  // What `agent -p --output-format json` prints for a truncated answer (exit 1).
  child.exit(1, {
    outcome: "error",
    exit_code: 1,
    done_reason: "truncated",
    stop_reason: "max_tokens",
    final_text: "Hello from a",
    error: "the answer was cut off by max_tokens (3 tokens); raise AGENT_MAX_TOKENS",
  });
  await t.scheduler.idle();
  const run = t.store.getRun(queued.id)!;
  assert.equal(run.status, "error");
  assert.equal(run.done_reason, "truncated");
  assert.equal(run.stop_reason, "max_tokens");
  const { html } = await get(t, `/runs/${j.id}/${queued.id}`);
  assert.match(
    html,
    /<span class="badge badge-kind" data-done-reason="truncated">truncated<\/span>/,
  );
  assert.match(html, /<dd data-fact="done-reason">truncated<\/dd>/);
  assert.match(html, /<dd data-fact="stop-reason">max_tokens<\/dd>/);
  assert.match(html, /<dd data-fact="exit-code">1<\/dd>/);
  // The live region (partial) carries the same facts.
  const partial = await get(t, `/partials/run/${j.id}/${queued.id}`);
  assert.match(partial.html, /data-done-reason="truncated"/);
  // The dashboard API's run object carries them too.
  const api = await (await t.app.request(`/api/jobs/${j.id}/runs/${queued.id}`)).json();
  assert.equal(api.run.done_reason, "truncated");
  assert.equal(api.run.stop_reason, "max_tokens");
});

Deno.test("GET /runs/<job>/<run>: Stop while queued or running; report pending note", async () => {
  await using t = await makeTestOutpost();
  const j = job(t);
  const queued = t.scheduler.trigger(j.id);
  let page = await get(t, `/runs/${j.id}/${queued.id}`);
  assert.match(page.html, /data-action="stop-job" data-id="1"/);
  assert.match(page.html, /The report appears when the run finishes/);

  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  assert.equal(t.store.getRun(queued.id)!.status, "running");
  page = await get(t, `/runs/${j.id}/${queued.id}`);
  assert.match(page.html, /data-run-status="running"/);
  assert.match(page.html, /data-action="stop-job"/);

  child.exit(0, { session_id: "s" });
  await t.scheduler.whenSettled(queued.id);
  page = await get(t, `/runs/${j.id}/${queued.id}`);
  assert.match(page.html, /data-run-status="ok"/);
  assert.doesNotMatch(page.html, /data-action="stop-job"/);
  assert.match(page.html, /This run left no report/);
});

Deno.test("an unknown path answers the friendly 404 page; an unknown /api/ path keeps the JSON body", async () => {
  await using t = await makeTestOutpost();
  for (const path of ["/no/such/page", "/runs/1/2/3", "/%3Cscript%3E"]) {
    const { status, html, res } = await get(t, path);
    assert.equal(status, 404, path);
    assert.match(html, /^<!DOCTYPE html><html lang="en">/, path);
    assert.match(html, /<title>Not found · outpost<\/title>/, path);
    assert.match(html, /<h1 id="nf-title">Not found<\/h1>/, path);
    assert.equal(res.headers.get("Content-Security-Policy"), PAGE_CSP, path);
    assert.ok(!html.includes("<script>"), path);
  }
  const api = await t.app.request("/api/no-such-route");
  assert.equal(api.status, 404);
  assert.equal((await api.json()).error.code, "not_found");
});

Deno.test("GET /runs and /inbox: unknown, mismatched or malformed ids give the friendly 404", async () => {
  await using t = await makeTestOutpost();
  const a = job(t);
  const b = job(t, { name: "other" });
  const run = await finishedRun(t, a.id, "ok");
  const paths = [
    `/runs/${b.id}/${run.id}`, // run of another job
    `/runs/${a.id}/999`,
    "/runs/999/1",
    "/runs/0/1",
    "/runs/abc/1",
    "/runs/1/1e3",
    "/runs/1/99999999999999999999",
    "/runs/%3Cscript%3E/1",
    "/inbox/42",
    "/inbox/-1",
    "/inbox/%3Cimg%20src=x%3E",
  ];
  for (const path of paths) {
    const { status, html, res } = await get(t, path);
    assert.equal(status, 404, path);
    assert.match(html, /<h1 id="nf-title">Not found<\/h1>/, path);
    assert.equal(res.headers.get("Content-Security-Policy"), PAGE_CSP, path);
    assert.ok(!html.includes("<script>") && !html.includes("<img src"), path);
  }
});

Deno.test("partials render each live region; unknown names and ids answer 404", async () => {
  await using t = await makeTestOutpost();
  const j = job(t, { name: HOSTILE });
  const run = await finishedRun(t, j.id, "needs_human");
  const item = inboxItem(t, j.id, run.id, [{ kind: "question", text: HOSTILE }]);
  const expect: Record<string, RegExp> = {
    "/partials/status": /id="inbox-counter"[\s\S]*data-open-inbox="1"/,
    "/partials/jobs": /data-status="needs_human"/,
    "/partials/runs": new RegExp(`id="run-${run.id}"`),
    "/partials/inbox": new RegExp(`id="inbox-${item.id}"`),
    "/partials/governor": /data-class="scheduled"/,
    [`/partials/run/${j.id}/${run.id}`]: /data-run-status="needs_human"/,
    // Titled from its first question (escaped), not "Item 1".
    [`/partials/inbox-item/${item.id}`]:
      /class="item-title">&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt;&amp;&quot;&#39;</,
  };
  for (const [path, re] of Object.entries(expect)) {
    const res = await t.app.request(path);
    const html = await res.text();
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get("Content-Security-Policy"), PAGE_CSP, path);
    assert.match(html, re, path);
    assert.ok(!html.startsWith("<!DOCTYPE"), `${path} is a fragment`);
    assertEscaped(html);
  }
  for (
    const path of [
      "/partials/nope",
      "/partials/run/1/999",
      "/partials/run/x/1",
      "/partials/inbox-item/77",
    ]
  ) {
    assert.equal((await t.app.request(path)).status, 404, path);
  }
});

Deno.test("static files: types, hashes, ETag revalidation, no other files", async () => {
  await using t = await makeTestOutpost();
  for (const [name, asset] of STATIC_ASSETS) {
    const res = await t.app.request(`/static/${name}?v=${asset.hash}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("Content-Type"), asset.type);
    assert.equal(res.headers.get("Cache-Control"), "public, max-age=31536000, immutable");
    assert.equal(await res.text(), asset.body);
    const bare = await t.app.request(`/static/${name}`);
    assert.equal(bare.headers.get("Cache-Control"), "no-cache");
    await bare.body?.cancel();
    const again = await t.app.request(`/static/${name}`, {
      headers: { "If-None-Match": `"${asset.hash}"` },
    });
    assert.equal(again.status, 304);
  }
  for (const path of ["/static/deps.ts", "/static/..%2Fdeps.ts", "/static/", "/static/assets.ts"]) {
    const res = await t.app.request(path);
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
});

Deno.test("the memory pane lists files and stats, and degrades when memory cannot open", async () => {
  await using t = await makeTestOutpost();
  await Deno.mkdir(join(t.memoryRoot, "facts"), { recursive: true });
  await Deno.writeTextFile(
    join(t.memoryRoot, "facts", "a.md"),
    `---\ncategory: project-fact\nworkspace: global\n---\n${HOSTILE}\n`,
  );
  const { html } = await get(t, "/");
  assert.match(html, /data-path="\/memories\/facts\/a.md"/);
  assert.match(html, /data-category="project-fact"[\s\S]*?<span class="num">1<\/span>/);
  assertEscaped(html);

  const broken = createApp({
    ...t.deps,
    memory: () => Promise.reject(new Error("root is unreadable")),
  });
  const res = await broken.request("/");
  assert.equal(res.status, 200);
  assert.match(await res.text(), /Memory is unavailable: root is unreadable/);
});

/** The HTML of one card (`<section id="…">` up to its close); cards do not nest. */
Deno.test("mutations from a page still need the CSRF header (the pages add no bypass)", async () => {
  await using t = await makeTestOutpost();
  const j = job(t);
  const res = await t.app.request(`/api/jobs/${j.id}/trigger`, {
    method: "POST",
    headers: { Cookie: `outpost_csrf=${TEST_CSRF_TOKEN}` },
  });
  assert.equal(res.status, 403);
  await res.body?.cancel();
  for (const path of ["/", `/runs/${j.id}/1`, "/partials/jobs"]) {
    const r = await t.app.request(path, { method: "POST" });
    assert.notEqual(r.status, 200, path);
    await r.body?.cancel();
  }
});

Deno.test("the messenger pill: amber with the last error and next retry, green when ok", async () => {
  await using t = await makeTestOutpost();
  t.deps.messengerStatus = () => ({
    state: "error",
    missing: [],
    allowlist_size: 2,
    detail: "fetch failed: connection refused",
    next_retry_at: "2026-03-02T09:00:04Z",
  });
  let html = await (await t.request("GET", "/partials/status")).text();
  assert.match(html, /class="pill pill-error" id="messenger-pill" data-state="error"/);
  assert.match(
    html,
    /<span class="pill-extra">fetch failed: connection refused; next retry 09:00:04 UTC<\/span>/,
  );
  t.deps.messengerStatus = () => ({ state: "ok", missing: [], allowlist_size: 2 });
  html = await (await t.request("GET", "/partials/status")).text();
  assert.match(
    html,
    /class="pill pill-ok" id="messenger-pill" data-state="ok" title="2 allowlisted operators"/,
  );
  assert.doesNotMatch(html, /pill-extra/);
  // A configured messenger is offered by the job form.
  t.deps.messengerStatus = () => ({ state: "error", missing: [], allowlist_size: 2 });
  assert.match(
    await (await t.request("GET", "/")).text(),
    /<option value="messenger">messenger<\/option>/,
  );
});

Deno.test("a base_url with no model: the form leaves the model empty and jobs show the endpoint's default, never `default`", async () => {
  // What serve.ts gives the scheduler for an outpost whose settings name only an endpoint.
  const home = await Deno.makeTempDir({ prefix: "outpost_settings_" });
  try {
    const env = envFrom({ HOME: home, AGENT_BASE_URL: "http://127.0.0.1:9/v1" });
    const { jobDefaults } = await outpostSettings(env, home, new MemoryLogger());
    assert.deepEqual(jobDefaults, { base_url: "http://127.0.0.1:9/v1" });
    // A model the settings do name is still the default of new jobs.
    const named = envFrom({ HOME: home, AGENT_BASE_URL: "http://x/v1", AGENT_MODEL: "qwen3" });
    assert.equal(
      (await outpostSettings(named, home, new MemoryLogger())).jobDefaults.model,
      "qwen3",
    );

    await using t = await makeTestOutpost({ defaults: jobDefaults });
    const landing = await (await t.app.request("/")).text();
    const input = /<input id="f-model"[^>]*>/.exec(landing)?.[0] ?? "";
    assert.match(input, /value=""/);
    assert.match(input, /placeholder="the endpoint&#39;s default"/);
    // A job created without a model (as from the form or the API) records none.
    const j = job(t);
    assert.equal(j.model, "");
    const page = await (await t.app.request(`/jobs/${j.id}`)).text();
    assert.match(page, /data-setting="model">the endpoint&#39;s default</);
    // A job saved earlier with the sentinel reads the same, not "default".
    const old = job(t, { name: "older", model: "default" });
    const older = await (await t.app.request(`/jobs/${old.id}`)).text();
    assert.match(older, /data-setting="model">the endpoint&#39;s default</);
    assert.doesNotMatch(older, />default</);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
