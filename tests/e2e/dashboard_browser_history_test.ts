// Browser end-to-end for the operator's history pages (issue 18), in real Chromium against a
// real outpost running the fake agent, each at desktop and phone width with screenshots in
// tests/output/screenshots/: /runs filters and cursor pages with the charts, /jobs/<id>, the
// run transcript with a tool call and a resume, the /audit filter, a memory reclassification
// and the job form's endpoint fields.

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { NewRun, RunStatus } from "../../core/store/store.ts";
import { peerTest, probes } from "../peers.ts";
import { type Dashboard, openDashboard } from "./dashboard_browser_kit.ts";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** Nothing on the page scrolls sideways (wide tables scroll inside their own box). */
async function assertNoOverflow(page: Page, what: string): Promise<void> {
  const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
  assert.ok(Number(overflow) <= 0, `${what} is ${overflow}px wider than the viewport`);
}

/** Shoots the current page at desktop and phone width (the phone one checked for overflow). */
async function bothWidths(d: Dashboard, name: string): Promise<void> {
  await d.page.setViewportSize(DESKTOP);
  await d.screenshot(`${name}_desktop`);
  await d.page.setViewportSize(PHONE);
  await assertNoOverflow(d.page, name);
  await d.screenshot(`${name}_phone`);
  await d.page.setViewportSize(DESKTOP);
}

function seedRuns(d: Dashboard, jobId: number, n: number, now = Date.now()): number[] {
  const statuses: RunStatus[] = ["ok", "ok", "error", "needs_human", "skipped"];
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const at = new Date(now - (n - i) * 20 * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const run: NewRun = {
      job_id: jobId,
      status: statuses[i % statuses.length]!,
      attempt: 1 + (i % 2),
      priority: 10,
      class: "scheduled",
      queued_at: at,
      started_at: at,
      finished_at: at,
      duration_ms: 40 + i,
      tokens_in: 1000 + i,
      tokens_out: 100,
      cost_usd: i % 3 === 0 ? null : 0.0021,
      model: "gpt-5-mini",
    };
    ids.push(d.deps.store.createRun(run).id);
  }
  return ids;
}

const rowStatuses = (page: Page) =>
  page.locator("table.history tbody tr").evaluateAll((rows) =>
    rows.map((r) => r.getAttribute("data-status") ?? "")
  );

peerTest(
  "dashboard: /runs filters, pages by cursor and charts the last 24 h",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const nightly = d.createJob({ name: "nightly build", prompt: "ok" });
    const triage = d.createJob({ name: "issue triage", prompt: "ok" });
    const ids = seedRuns(d, nightly.id, 60);
    seedRuns(d, triage.id, 5);

    await page.goto("/runs");
    assert.equal(await page.locator("table.history tbody tr").count(), 50);
    assert.match(
      await page.locator("#chart-runs figcaption").innerText(),
      /Runs per hour by status/,
    );
    assert.ok(Number(await page.locator("#chart-runs").getAttribute("data-total")) > 0);
    assert.ok((await page.locator("#chart-tokens rect").count()) > 0);
    // Durations below a second read in milliseconds, cost is blank (never $0) when unpriced.
    const newest = page.locator(`tr[data-run-id="${ids.at(-1)}"]`);
    assert.equal(await newest.locator('[data-col="duration"]').innerText(), `${40 + 59} ms`);
    await bothWidths(d, "runs");

    // Filter by job and status through the form.
    await page.selectOption("#f-job", String(nightly.id));
    await page.selectOption("#f-status", "error");
    await Promise.all([
      page.waitForURL(/status=error/),
      page.click('#runs-filter button[type="submit"]'),
    ]);
    const statuses = await rowStatuses(page);
    assert.equal(statuses.length, 12);
    assert.ok(statuses.every((s) => s === "error"));
    await d.screenshot("runs_filtered");

    // Cursor pages: 50 of the job's 60, then the 10 older ones.
    await page.goto(`/runs?job=${nightly.id}`);
    await Promise.all([page.waitForURL(/before=/), page.click('[data-testid="older-runs"]')]);
    const older = await page.locator("table.history tbody tr").evaluateAll((rows) =>
      rows.map((r) => Number(r.getAttribute("data-run-id")))
    );
    assert.deepEqual(older, ids.slice(0, 10).reverse());

    // A bad date is a 400 that names the field's label.
    const res = await page.goto("/runs?from=last+tuesday");
    assert.equal(res?.status(), 400);
    assert.match(await page.locator('[data-error-for="from"]').innerText(), /^From: /);
    await page.goto("/runs?from=2001-01-01&to=2001-01-02");
    await page.locator('[data-testid="runs-empty"]', { hasText: "No runs match" }).waitFor();
    await page.goto("/runs?span=7d");
    assert.equal(
      await page.locator('.span-switch a[aria-current="true"]').getAttribute("data-span"),
      "7d",
    );
    await d.screenshot("runs_7d");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: /jobs/<id> shows settings, next fires, the history strip and stats",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({
      name: "weekly report",
      prompt: "ok",
      schedule: { kind: "cron", expr: "0 9 * * 1", tz: "UTC" },
      base_url: "http://127.0.0.1:8000/v1",
      model: "qwen3",
    });
    seedRuns(d, job.id, 55);
    await page.goto(`/jobs/${job.id}`);
    assert.equal(await page.locator(".strip-cell").count(), 50);
    assert.equal(await page.locator('[data-testid="next-fires"] li').count(), 5);
    assert.equal(
      await page.locator('[data-setting="base_url"]').innerText(),
      "http://127.0.0.1:8000/v1",
    );
    assert.equal(await page.locator('[data-setting="model"]').innerText(), "qwen3");
    assert.match(
      await page.locator('[data-setting="success-rate"]').innerText(),
      /^\d+% \(\d+ of \d+\)$/,
    );
    assert.match(await page.locator('[data-setting="median-duration"]').innerText(), / ms$/);
    await bothWidths(d, "job_page");
    // The job list's older pages keep their own address.
    await page.goto(`/jobs?before=${job.id + 1}`);
    assert.equal(await page.locator("body").getAttribute("data-page"), "jobs");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: the run transcript shows a tool call, the question, the answer and the resumed leg",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({ name: "release", prompt: "journal exit:2" });
    const first = d.deps.scheduler.trigger(job.id);
    assert.equal(await d.runReaches(first.id, ["needs_human", "error"]), "needs_human");

    // Answer from the run page, as an operator would.
    await page.goto(`/runs/${job.id}/${first.id}`);
    assert.equal(await page.locator("#card-transcript .leg").count(), 1);
    assert.match(
      await page.locator('#card-transcript [data-item="stop"]').innerText(),
      /Which branch\?/,
    );
    await page.fill(".run-question textarea[name=answer]", "main");
    await page.click('.run-question form[data-action="answer"] button[type="submit"]');
    const resumed = await new Promise<number>((resolve) => {
      const check = () => {
        const r = d.deps.store.listRunHistory({ job_id: job.id }).find((x) =>
          x.resume_of_run === first.id
        );
        if (r) resolve(r.id);
        return Boolean(r);
      };
      if (!check()) {
        const off = d.deps.scheduler.on(() => {
          if (check()) off();
        });
      }
    });
    assert.equal(await d.runReaches(resumed, ["ok", "error"]), "ok");

    await page.goto(`/runs/${job.id}/${first.id}`);
    const card = page.locator("#card-transcript");
    assert.equal(await card.locator(".leg").count(), 2);
    assert.match(await card.locator('[data-item="prompt"]').innerText(), /journal exit:2/);
    // Reasoning and tool calls start collapsed and open on a click.
    const call = card.locator('details.tool-call[data-tool="view"]');
    assert.equal(await call.getAttribute("open"), null);
    assert.equal(await card.locator("details.reasoning").first().getAttribute("open"), null);
    await call.locator("summary").click();
    assert.match(await call.locator('[data-part="arguments"]').innerText(), /"path": "README.md"/);
    assert.match(await call.locator('[data-part="result"]').innerText(), /Release from main\./);
    assert.match(
      await card.locator('[data-item="answer"]').innerText(),
      /The operator answered: main/,
    );
    assert.match(await card.locator('[data-leg="2"]').innerText(), /Merged into main\./);
    assert.match(
      await card.locator('[data-leg="2"] .leg-head').innerText(),
      new RegExp(`run ${resumed}`),
    );
    await bothWidths(d, "run_transcript");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: /audit filters by action, channel, actor and target",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    for (let i = 0; i < 60; i++) {
      d.deps.store.appendAudit({
        action: i % 4 === 0 ? "job_delete" : "job_update",
        target: `job:${i % 5}`,
        actor: i % 2 ? "user:ann" : "dashboard",
        channel: "dashboard",
        detail: `change ${i}`,
      });
    }
    await page.goto("/audit");
    assert.equal(await page.locator("table.history tbody tr").count(), 50);
    await bothWidths(d, "audit");
    await page.selectOption("#f-action", "job_delete");
    await page.fill("#f-actor", "dashboard");
    await Promise.all([
      page.waitForURL(/action=job_delete/),
      page.click('#audit-filter button[type="submit"]'),
    ]);
    const rows = await page.locator("table.history tbody tr").evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? ""))
    );
    assert.equal(rows.length, 15);
    // Columns: when, action, channel, actor, target, detail.
    assert.ok(
      rows.every((r) => r[1] === "job_delete" && r[2] === "dashboard" && r[3] === "dashboard"),
    );
    await page.fill("#f-target", "job:0");
    await Promise.all([
      page.waitForURL(/target=job/),
      page.click('#audit-filter button[type="submit"]'),
    ]);
    assert.ok((await page.locator("table.history tbody tr").count()) > 0);
    await d.screenshot("audit_filtered");
    // The channel select: the one chat row.
    d.deps.store.appendAudit({
      action: "approve",
      target: "inbox:1",
      actor: "@ann:hs",
      channel: "chat",
      detail: "via chat",
    });
    await page.goto("/audit");
    await page.selectOption("#f-channel", "chat");
    await Promise.all([
      page.waitForURL(/channel=chat/),
      page.click('#audit-filter button[type="submit"]'),
    ]);
    const chat = await page.locator("table.history tbody tr").evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll("td")].map((td) => td.textContent ?? ""))
    );
    assert.deepEqual(chat.map((r) => r.slice(1, 4)), [["approve", "chat", "@ann:hs"]]);
    await page.goto("/audit?actor=nobody");
    await page.locator('[data-testid="audit-empty"]', { hasText: "No audit rows match" }).waitFor();
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: the operator reclassifies an episodic memory file and deletes one",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const memory = await d.deps.memory();
    // What the agent saves under preferences/ without a category: episodic by rule 2.
    memory.create("/memories/preferences/style.md", "- Prefer **small** commits\n");
    memory.create(
      "/memories/facts/old.md",
      "---\ncategory: project-fact\ntitle: Old build notes\n---\nx\n",
    );
    await page.goto("/#card-memory");
    const style = page.locator('#card-memory [data-path="/memories/preferences/style.md"]');
    assert.equal(await style.locator(".badge").innerText(), "episodic");
    assert.match(await style.innerText(), /Prefer small commits/, "title without markdown");
    await style.click();
    await page.locator("#memory-body-title", { hasText: "style.md" }).waitFor();
    assert.equal(await page.inputValue("#memory-category"), "episodic");
    await page.selectOption("#memory-category", "preference");
    await d.screenshot("memory_reclassify");
    await Promise.all([
      page.waitForEvent("load"),
      page.click('#memory-admin button[type="submit"]'),
    ]);
    await page.locator('#card-memory [data-path="/memories/preferences/style.md"] .badge', {
      hasText: "preference",
    })
      .waitFor();
    assert.equal(memory.readBody("/memories/preferences/style.md").category, "preference");
    const [row] = d.deps.store.listAudit({ action: "memory_reclassify" });
    assert.equal(row?.target, "preferences/style.md");

    await page.locator('#card-memory [data-path="/memories/facts/old.md"]').click();
    await page.locator("#memory-body-title", { hasText: "old.md" }).waitFor();
    await Promise.all([page.waitForEvent("load"), page.click("#memory-delete")]);
    // The delete asked first (the kit accepts), naming the file.
    assert.deepEqual(d.dialogs.map((x) => [x.type, x.message]), [
      ["confirm", "Delete /memories/facts/old.md? The agent will no longer remember it."],
    ]);
    assert.equal(
      await page.locator('#card-memory [data-path="/memories/facts/old.md"]').count(),
      0,
    );
    assert.equal(d.deps.store.listAudit({ action: "memory_delete" })[0]?.target, "facts/old.md");
    await page.setViewportSize(PHONE);
    await assertNoOverflow(page, "landing with memory");
    await d.screenshot("memory_after_phone");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: the job form prefills the current endpoint and names fields by label",
  probes.chromium,
  async () => {
    await using d = await openDashboard({
      jobDefaults: { base_url: "http://127.0.0.1:8000/v1", model: "qwen3-32b" },
    });
    const { page } = d;
    await page.goto("/");
    // Inbox items are titled from their first question; the favicon is linked.
    assert.equal(await page.locator('link[rel="icon"]').count(), 1);
    assert.match(
      await page.locator("#card-inbox .empty").innerText(),
      /Runs that stop on a question/,
    );
    await page.click("#job-form-toggle");
    assert.equal(await page.inputValue("#f-base_url"), "http://127.0.0.1:8000/v1");
    assert.equal(await page.inputValue("#f-model"), "qwen3-32b");
    await page.fill("#f-name", "endpoint check");
    await page.fill("#f-prompt", "ok");
    await page.fill("#f-schedule-expr", "1h");
    await page.fill("#f-workdir", d.workdir);
    await page.fill("#f-base_url", "ftp://nope");
    await page.click("#job-form-submit");
    const err = page.locator('[data-error-for="base_url"]');
    await err.waitFor({ state: "visible" });
    assert.match(await err.innerText(), /^Base URL: must be an http or https URL/);
    await d.screenshot("job_form_endpoint_error");
    await page.fill("#f-base_url", "http://10.0.0.5:8000/v1");
    await page.click("#job-form-submit");
    await page.locator("#card-jobs li.job", { hasText: "endpoint check" }).waitFor();
    const job = d.deps.store.listJobs().find((j) => j.name === "endpoint check")!;
    assert.equal(job.base_url, "http://10.0.0.5:8000/v1");
    assert.equal(job.model, "qwen3-32b");

    const asked = d.createJob({ name: "asks", prompt: "exit:2" });
    const run = d.deps.scheduler.trigger(asked.id);
    assert.equal(await d.runReaches(run.id, ["needs_human"]), "needs_human");
    await page.goto("/");
    assert.equal(
      await page.locator("#card-inbox .item-title").first().innerText(),
      "Which branch?",
    );
    assert.deepEqual(d.pageErrors, []);
  },
);
