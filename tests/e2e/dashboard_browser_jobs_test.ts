// Browser end-to-end: the Jobs card in real Chromium against a real outpost running the
// fake agent. Create a job in the form (with its live schedule preview), see the API's
// field errors next to their fields, trigger it, watch the run reach ok live, read its
// report on the run page, and stop a long run.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { openDashboard } from "./dashboard_browser_kit.ts";

peerTest(
  "dashboard: create a job with its preview, trigger it, read the ok report",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    await page.goto("/");
    await page.locator("#card-jobs .empty").waitFor();
    // Live updates ride the server-sent events stream (polling is only the fallback).
    await page.locator('body[data-live="sse"]').waitFor({ state: "attached" });

    await page.click("#job-form-toggle");
    await page.fill("#f-name", "nightly digest");
    await page.fill("#f-prompt", "summarize the day tokens:300/40");
    await page.selectOption("#f-schedule-kind", "cron");
    await page.fill("#f-schedule-tz", "America/New_York");
    await page.fill("#f-schedule-expr", "30 2 * * *");
    await page.fill("#f-workdir", d.workdir);

    // The preview shows the next five fires from the API's preview route, in the job's zone.
    const fires = page.locator("#schedule-preview li[data-fire]");
    await fires.nth(4).waitFor();
    assert.equal(await fires.count(), 5);
    const firstFire = await fires.first().getAttribute("data-fire");
    assert.match(firstFire ?? "", /^\d{4}-\d{2}-\d{2}T(06|07):30:00Z$/);
    assert.match(await fires.first().innerText(), /America\/New_York/);

    // A bad expression shows the preview error, and the API's 400 lands next to the field.
    await page.fill("#f-schedule-expr", "61 * * * *");
    await page.locator("#schedule-preview .preview-error").waitFor();
    await page.click("#job-form-submit");
    const exprError = page.locator('[data-error-for="schedule.expr"]');
    await exprError.waitFor({ state: "visible" });
    // Named by the form's label, never the internal name (schedule.expr:).
    assert.match(await exprError.innerText(), /^Expression: /);
    assert.doesNotMatch(await exprError.innerText(), /schedule\.expr/);
    assert.equal(await page.getAttribute("#f-schedule-expr", "aria-invalid"), "true");
    await d.screenshot("landing_job_form_error");

    await page.fill("#f-schedule-expr", "30 2 * * *");
    await fires.nth(4).waitFor();
    await d.screenshot("landing_job_form_preview");
    await page.click("#job-form-submit");
    const row = page.locator("#card-jobs li.job", { hasText: "nightly digest" });
    await row.waitFor();
    const job = d.deps.store.listJobs().find((j) => j.name === "nightly digest");
    assert.ok(job, "the form created the job");
    assert.deepEqual(job.schedule, { kind: "cron", expr: "30 2 * * *", tz: "America/New_York" });
    assert.equal(job.prompt, "summarize the day tokens:300/40");

    // Trigger from the row; the badge goes live to ok without a reload.
    await row.locator('[data-action="trigger-job"]').click();
    await page.locator("#toast a", { hasText: "Open run" }).waitFor();
    const run = d.deps.store.latestRun(job.id);
    assert.ok(run);
    assert.equal(await d.runReaches(run.id, ["ok", "error"]), "ok");
    await row.locator('[data-status="ok"]').waitFor();
    await page.locator(`#card-runs #run-${run.id} [data-status="ok"]`).waitFor();
    await d.screenshot("landing");

    await page.locator(`#card-runs #run-${run.id} a`).click();
    await page.waitForURL(`**/runs/${job.id}/${run.id}`);
    assert.equal(await page.locator('[data-fact="status"]').innerText(), "ok");
    assert.equal(await page.locator('[data-fact="exit-code"]').innerText(), "0");
    assert.equal(await page.locator('[data-fact="attempt"]').innerText(), "1");
    const report = page.locator("#report");
    assert.equal(await report.locator("h1").innerText(), "fake agent report");
    assert.match(await report.innerText(), /prompt: summarize the day tokens:300\/40/);
    assert.equal(
      await page.locator('[data-action="stop-job"]').count(),
      0,
      "no Stop once finished",
    );
    await d.screenshot("run_ok");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest("dashboard: stop a long run from its run page", probes.chromium, async () => {
  await using d = await openDashboard();
  const { page } = d;
  const job = d.createJob({ name: "long haul", prompt: "hang" });
  const run = d.deps.scheduler.trigger(job.id);
  assert.equal(await d.runReaches(run.id, ["running"]), "running");

  await page.goto(`/runs/${job.id}/${run.id}`);
  await page.locator('.run-detail[data-run-status="running"]').waitFor();
  await d.screenshot("run_running");
  await page.click('[data-action="stop-job"]');
  // The page updates in place: cancelled badge, no Stop button.
  await page.locator('.run-detail[data-run-status="cancelled"]').waitFor();
  assert.equal(await page.locator('[data-action="stop-job"]').count(), 0);
  assert.equal(await d.runReaches(run.id, ["cancelled"]), "cancelled");
  await d.deps.scheduler.idle();
  const after = d.deps.store.getRun(run.id)!;
  assert.equal(after.status, "cancelled");
  assert.ok(after.cancelled_at);
  // Stop never changes a recurring job's schedule.
  assert.equal(d.deps.store.getJob(job.id)!.enabled, true);
  await d.screenshot("run_cancelled");
  assert.deepEqual(d.pageErrors, []);
});

peerTest("dashboard: disable, re-enable and edit a job from its row", probes.chromium, async () => {
  await using d = await openDashboard();
  const { page } = d;
  const job = d.createJob({ name: "toggle me", prompt: "x" });
  await page.goto("/");
  const row = page.locator(`#job-${job.id}`);
  await row.locator('[data-action="toggle-job"]').uncheck();
  await page.locator(`#job-${job.id}[data-enabled="false"]`).waitFor();
  assert.equal(d.deps.store.getJob(job.id)!.enabled, false);
  await page.locator(`#job-${job.id} [data-action="toggle-job"]`).check();
  await page.locator(`#job-${job.id}[data-enabled="true"]`).waitFor();
  assert.equal(d.deps.store.getJob(job.id)!.enabled, true);

  // Edit fetches the job (GET /api/jobs/<id>); the form switches to edit mode once it came.
  await page.locator(`#job-${job.id} [data-action="edit-job"]`).click();
  await page.locator("#job-form-title", { hasText: `Edit job ${job.id}` }).waitFor();
  assert.equal(await page.inputValue("#f-name"), "toggle me");
  assert.equal(await page.inputValue("#f-prompt"), "x");
  assert.equal(await page.innerText("#job-form-submit"), "Save changes");
  await page.fill("#f-name", "renamed");
  await page.fill("#f-priority", "7");
  await page.click("#job-form-submit");
  await page.locator(`#job-${job.id} .job-name`, { hasText: "renamed" }).waitFor();
  const saved = d.deps.store.getJob(job.id)!;
  assert.equal(saved.name, "renamed");
  assert.equal(saved.priority, 7);
  assert.deepEqual(d.pageErrors, []);
});

peerTest(
  "dashboard: editing a one-shot job that has fired shows no error before any input",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({
      name: "one shot",
      prompt: "ok",
      schedule: { kind: "at", expr: "2099-01-01T09:00", tz: "UTC" },
    });
    // As the scheduler leaves it once fired: its time passed, nothing next.
    d.deps.store.updateJob(job.id, {
      schedule: { kind: "at", expr: "2026-01-01T09:00", tz: "UTC" },
      next_run_at: null,
    });
    const failed: string[] = [];
    page.on("response", (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
    });
    for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
      await page.setViewportSize(viewport);
      await page.goto("/");
      await page.locator(`#job-${job.id} [data-action="edit-job"]`).click();
      await page.locator("#job-form-title", { hasText: `Edit job ${job.id}` }).waitFor();
      await page.locator('#schedule-preview[data-state="fired"]').waitFor();
      await new Promise((r) => setTimeout(r, 400)); // past the preview's debounce
      assert.equal(await page.locator("#schedule-preview .preview-error").count(), 0);
      assert.equal(await page.locator(".field-error:not([hidden])").count(), 0);
      // Typing a new time previews it as usual.
      await page.locator("#f-schedule-expr").fill("2099-06-01T09:00");
      await page.locator('#schedule-preview[data-state="ok"]').waitFor();
    }
    assert.deepEqual(failed, []);
    assert.deepEqual(d.pageErrors, []);
  },
);
