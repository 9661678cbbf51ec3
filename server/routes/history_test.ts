// The history pages in process: /runs filters, cursor pages, cost and duration cells and the
// charts; /jobs/<id> (strip, success rate, median, next fires) beside the job list's
// /jobs?before=<id>; /audit filters; bad filters answer 400 with the form's labels.

import assert from "node:assert/strict";
import { TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import type { NewRun, RunStatus } from "../../core/store/store.ts";
import { makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";

function seed(t: TestOutpost) {
  const a = t.scheduler.createJob({
    name: "nightly build",
    prompt: "build",
    schedule: { kind: "cron", expr: "0 2 * * *", tz: "UTC" },
    workdir: TEST_WORKDIR,
  });
  const b = t.scheduler.createJob({
    name: "api triage",
    prompt: "triage",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: TEST_WORKDIR,
  });
  const run = (jobId: number, status: RunStatus, extra: Partial<NewRun> = {}) =>
    t.store.createRun({
      job_id: jobId,
      status,
      attempt: 1,
      priority: 10,
      class: "scheduled",
      queued_at: "2026-03-02T08:10:00Z",
      started_at: "2026-03-02T08:10:00Z",
      finished_at: "2026-03-02T08:10:00Z",
      ...extra,
    });
  return { a, b, run };
}

const rowIds = (html: string) =>
  [...html.matchAll(/<tr data-run-id="(\d+)"/g)].map((m) => Number(m[1]));

Deno.test("/runs lists every run newest first with duration, tokens, cost, model and attempt; blank cost is never $0", async () => {
  await using t = await makeTestOutpost();
  const { a, b, run } = seed(t);
  const fast = run(a.id, "ok", {
    duration_ms: 40,
    tokens_in: 1200,
    tokens_out: 80,
    cost_usd: 0.0042,
    model: "gpt-5",
  });
  const unpriced = run(b.id, "error", {
    tokens_in: 10,
    tokens_out: 2,
    cost_usd: null,
    model: "local-qwen",
    attempt: 3,
  });
  const res = await t.app.request("/runs");
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.deepEqual(rowIds(html), [unpriced.id, fast.id]);
  const row = (id: number) =>
    html.slice(
      html.indexOf(`data-run-id="${id}"`),
      html.indexOf("</tr>", html.indexOf(`data-run-id="${id}"`)),
    );
  assert.match(row(fast.id), /data-col="duration">40 ms</);
  assert.match(row(fast.id), /1,200 \/ 80/);
  assert.match(row(fast.id), /data-col="cost">\$0\.0042</);
  assert.match(row(fast.id), /data-col="model">gpt-5</);
  assert.match(row(fast.id), /data-col="attempt">1</);
  // A retried run says which attempt it was.
  assert.match(row(unpriced.id), /data-col="attempt">3</);
  assert.match(row(unpriced.id), /data-col="cost"><\/td>/, "unknown model: blank, not $0");
  assert.match(
    row(unpriced.id),
    /data-col="duration">&lt; 1 s</,
    "whole-second timestamps never read 0 s",
  );
  assert.match(html, /id="chart-runs" data-total="2"/);
  assert.match(html, /id="chart-tokens" data-total="1292"/);
});

Deno.test("/runs filters by job, status, class and date and pages by cursor", async () => {
  await using t = await makeTestOutpost();
  const { a, b, run } = seed(t);
  const ids: number[] = [];
  for (let i = 0; i < 60; i++) ids.push(run(a.id, i % 2 ? "ok" : "error").id);
  const other = run(b.id, "ok", { class: "api", queued_at: "2026-03-01T12:00:00Z" });

  const jobOnly = await (await t.app.request(`/runs?job=${a.id}`)).text();
  assert.equal(rowIds(jobOnly).length, 50);
  const older = /href="(\/runs\?job=\d+&amp;before=\d+)" rel="next"/.exec(jobOnly);
  assert.ok(older, "an Older runs link");
  const page2 = await (await t.app.request(older[1]!.replaceAll("&amp;", "&"))).text();
  assert.deepEqual(rowIds(page2), ids.slice(0, 10).reverse());
  assert.match(page2, /Newest runs/);

  const errors = rowIds(await (await t.app.request(`/runs?status=error&job=${a.id}`)).text());
  assert.equal(errors.length, 30);
  assert.ok(errors.every((id) => t.store.getRun(id)!.status === "error"));
  assert.deepEqual(rowIds(await (await t.app.request("/runs?class=api")).text()), [other.id]);
  assert.deepEqual(
    rowIds(await (await t.app.request("/runs?from=2026-03-01&to=2026-03-01")).text()),
    [other.id],
  );
  const none = await (await t.app.request("/runs?from=2030-01-01")).text();
  assert.match(none, /No runs match these filters/);
});

Deno.test("/runs refuses bad filters with 400 naming the form's label", async () => {
  await using t = await makeTestOutpost();
  const res = await t.app.request("/runs?status=exploded&from=yesterday");
  assert.equal(res.status, 400);
  const html = await res.text();
  assert.match(html, /data-error-for="status"><strong>Status:<\/strong> unknown status/);
  assert.match(html, /data-error-for="from"><strong>From:<\/strong> use a UTC date/);
});

Deno.test("/jobs/<id> shows settings, next fires, a strip of the last 50 runs, success rate and median; /jobs?before= still lists jobs", async () => {
  await using t = await makeTestOutpost();
  const { a, b, run } = seed(t);
  for (let i = 0; i < 55; i++) run(a.id, i % 5 === 0 ? "error" : "ok", { duration_ms: 1000 + i });
  run(b.id, "ok");
  const res = await t.app.request(`/jobs/${a.id}`);
  assert.equal(res.status, 200);
  const html = await res.text();
  assert.equal([...html.matchAll(/class="strip-cell /g)].length, 50);
  // The last 50 runs are i = 5..54: 10 errors (i % 5 === 0), 40 ok.
  assert.match(html, /data-setting="success-rate">80% \(40 of 50\)/);
  assert.match(html, /data-setting="median-duration">1 s</);
  assert.equal([...html.matchAll(/<li><time datetime="2026-03-0/g)].length, 5, "five next fires");
  assert.match(html, /<time datetime="2026-03-03T02:00:00.000Z">/);
  assert.equal(rowIds(html).length, 50);
  assert.ok(rowIds(html).every((id) => t.store.getRun(id)!.job_id === a.id));

  assert.equal((await t.app.request("/jobs/999")).status, 404);
  assert.equal((await t.app.request("/jobs/abc")).status, 404);
  const list = await t.app.request(`/jobs?before=${b.id}`);
  assert.equal(list.status, 200);
  assert.match(await list.text(), /<body data-page="jobs">/);
});

Deno.test("/audit filters by action, actor and target and pages by cursor", async () => {
  await using t = await makeTestOutpost();
  for (let i = 0; i < 55; i++) {
    t.store.appendAudit({
      action: "job_update",
      target: `job:${i % 3}`,
      actor: i % 2 ? "user:ann" : "dashboard",
      channel: "dashboard",
      detail: `change ${i}`,
    });
  }
  t.store.appendAudit({
    action: "job_delete",
    target: "job:9",
    actor: "user:bob",
    channel: "dashboard",
    detail: "gone",
  });
  const ids = (html: string) =>
    [...html.matchAll(/<tr data-audit-id="(\d+)"/g)].map((m) => Number(m[1]));
  const all = await (await t.app.request("/audit")).text();
  assert.equal(ids(all).length, 50);
  assert.match(all, /Older rows/);
  assert.deepEqual(ids(await (await t.app.request("/audit?action=job_delete")).text()).length, 1);
  const ann = ids(await (await t.app.request("/audit?actor=user:ann&target=job:1")).text());
  assert.ok(ann.length > 0);
  for (const id of ann) {
    const row = t.store.listAudit({ before_id: id + 1, limit: 1 })[0]!;
    assert.equal(row.actor, "user:ann");
    assert.equal(row.target, "job:1");
  }
  assert.match(await (await t.app.request("/audit?actor=nobody")).text(), /No audit rows match/);
});

Deno.test("a run's prompt-cache counts reach the store, the run page and the runs table", async () => {
  await using t = await makeTestOutpost();
  const { a } = seed(t);
  const spawned = t.spawner.nextSpawn();
  const queued = t.scheduler.trigger(a.id);
  await t.scheduler.step();
  const child = await spawned;
  await Deno.writeTextFile(child.arg("--output")!, "# Report\n");
  // What `agent -p --output-format json` prints: tokens_in leaves the cached prompt out.
  child.exit(0, {
    outcome: "ok",
    exit_code: 0,
    done_reason: "stop",
    usage: {
      input_tokens: 1000,
      output_tokens: 80,
      cache_read_tokens: 18_000,
      cache_write_tokens: 1000,
    },
    cost_usd: 0.0123,
    final_text: "done",
  });
  await t.scheduler.idle();
  const run = t.store.getRun(queued.id)!;
  assert.deepEqual(
    [run.tokens_in, run.cache_read_tokens, run.cache_write_tokens],
    [1000, 18_000, 1000],
  );
  const page = await (await t.app.request(`/runs/${a.id}/${queued.id}`)).text();
  assert.match(
    page,
    /<dd data-fact="prompt-cache">18,000 read \/ 1,000 written \(90% cached\)<\/dd>/,
  );
  const list = await (await t.app.request("/runs")).text();
  const row = list.slice(list.indexOf(`data-run-id="${queued.id}"`));
  assert.match(
    row.slice(0, row.indexOf("</tr>")),
    /1,000 \/ 80<span class="muted" data-col="cached"> · 90% cached</,
  );

  // A run from a child that reported no cache use shows no cache figures.
  const plain = t.store.createRun({
    job_id: a.id,
    status: "ok",
    attempt: 1,
    priority: 10,
    class: "scheduled",
    queued_at: "2026-03-02T08:10:00Z",
    tokens_in: 5,
    tokens_out: 1,
  });
  const plainPage = await (await t.app.request(`/runs/${a.id}/${plain.id}`)).text();
  assert.doesNotMatch(plainPage, /data-fact="prompt-cache"/);
});

Deno.test("/audit filters by channel: a Channel select and column; an unknown channel is a 400 under its label", async () => {
  await using t = await makeTestOutpost();
  const row = (action: string, actor: string, channel: string) =>
    t.store.appendAudit({ action, target: "inbox:1", actor, channel, detail: "" });
  row("approve", "@ann:hs", "chat");
  row("answer", "dashboard", "dashboard");
  row("answer", "@ann:hs", "chat");
  row("push_approve", "dashboard", "push");
  const rows = (html: string) =>
    [...html.matchAll(/<tr data-audit-id="\d+" data-action="([^"]+)" data-channel="([^"]+)"/g)]
      .map((m) => `${m[1]}/${m[2]}`);
  const page = await (await t.app.request("/audit")).text();
  assert.match(page, /<select id="f-channel" name="channel">/);
  for (const channel of ["dashboard", "chat", "push", "machine", "webhook", "cli", "outpost"]) {
    assert.match(page, new RegExp(`<option key="${channel}" value="${channel}" >${channel}<`));
  }
  assert.match(page, /<th scope="col">Channel<\/th>/);
  const chat = await (await t.app.request("/audit?channel=chat")).text();
  assert.deepEqual(rows(chat), ["answer/chat", "approve/chat"]);
  assert.match(chat, /<option key="chat" value="chat" selected[^>]*>chat</);
  assert.deepEqual(rows(await (await t.app.request("/audit?action=answer")).text()), [
    "answer/chat",
    "answer/dashboard",
  ]);
  assert.deepEqual(
    rows(await (await t.app.request("/audit?action=answer&channel=dashboard")).text()),
    ["answer/dashboard"],
  );
  const bad = await t.app.request("/audit?channel=fax");
  assert.equal(bad.status, 400);
  assert.match(await bad.text(), /Channel[\s\S]*unknown channel; use one of dashboard, chat, push/);
});
