// Browser end-to-end for a job's fleet pin (docs/fleet.md, "Pinning"), in real Chromium against
// a real outpost whose store is a fresh PostgreSQL database (a fleet node): at 1280x900 and at
// 390x844 the job form's "Pin to node label" field refuses a bad label with one error next to
// it (nothing stored), creates a pinned job, shows the pin on the job page, fills the edit form
// with it, and moves and clears it through Save. Every state fits the viewport and passes
// axe-core with no serious or critical violation.

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { peerTest, probes } from "../peers.ts";
import { freshDatabaseUrl } from "../pg_cluster.ts";
import { type Dashboard, openDashboard } from "./dashboard_browser_kit.ts";
import { axeViolations, overflow, widest } from "./page_checks_kit.ts";

const VIEWPORTS = [{ width: 1280, height: 900 }, { width: 390, height: 844 }];

/** Overflow and axe problems of the page as it stands, each named with `where`. */
async function pageProblems(page: Page, where: string): Promise<string[]> {
  const problems: string[] = [];
  const wide = await overflow(page);
  if (wide > 0) problems.push(`${where}: ${wide}px too wide (${await widest(page)})`);
  for (const v of await axeViolations(page)) problems.push(`${where}: ${v}`);
  return problems;
}

async function fillNewJob(d: Dashboard, name: string, pin: string): Promise<void> {
  const { page } = d;
  await page.goto("/");
  await page.click("#job-form-toggle");
  await page.fill("#f-name", name);
  await page.fill("#f-prompt", "p");
  await page.fill("#f-schedule-expr", "1d");
  await page.fill("#f-workdir", d.workdir);
  await page.fill("#f-pin_label", pin);
}

async function saveEdit(d: Dashboard, jobId: number, pin: string): Promise<void> {
  const { page } = d;
  await page.goto("/");
  await page.locator(`#job-${jobId} [data-action="edit-job"]`).click();
  await page.locator("#job-form-title", { hasText: `Edit job ${jobId}` }).waitFor();
  await page.fill("#f-pin_label", pin);
  await page.click("#job-form-submit");
  await page.locator("#toast", { hasText: `Saved job ${jobId}.` }).waitFor();
}

const both = () => probes.chromium() ?? probes.postgres();

peerTest(
  "dashboard in a fleet: the pin field creates, shows, edits and clears a job's node label",
  both,
  async () => {
    await using d = await openDashboard({
      env: {
        AGENT_OUTPOST_DATABASE_URL: freshDatabaseUrl(),
        AGENT_OUTPOST_NODE_ID: "browser-node",
        AGENT_OUTPOST_NODE_LABELS: "gpu",
      },
    });
    const { page } = d;
    const problems: string[] = [];
    for (const viewport of VIEWPORTS) {
      const w = viewport.width;
      await page.setViewportSize(viewport);
      const name = `pinned at ${w}`;

      // A label no node could offer: one error next to the field, nothing stored.
      await fillNewJob(d, name, "gpu big");
      await page.click("#job-form-submit");
      const error = page.locator('[data-error-for="pin_label"]');
      await error.waitFor({ state: "visible" });
      assert.match(
        await error.innerText(),
        /^Pin to node label: a node label: 1 to 50 letters, digits, dots, dashes or underscores/,
      );
      assert.equal(await page.getAttribute("#f-pin_label", "aria-invalid"), "true");
      assert.equal(d.deps.store.listJobs().filter((j) => j.name === name).length, 0);
      problems.push(...await pageProblems(page, `${w}px form with pin error`));
      await d.screenshot(`pin_form_error_${w}`);

      await page.fill("#f-pin_label", "gpu");
      await page.click("#job-form-submit");
      await page.locator("#card-jobs li.job", { hasText: name }).waitFor();
      const job = d.deps.store.listJobs().find((j) => j.name === name);
      assert.ok(job, "the form created the job");
      assert.equal(job.meta.pin_label, "gpu");

      // The job page says where it runs.
      await page.goto(`/jobs/${job.id}`);
      assert.equal(
        await page.locator('[data-setting="pin_label"]').innerText(),
        "nodes labelled gpu",
      );
      problems.push(...await pageProblems(page, `${w}px job page`));
      await d.screenshot(`pin_job_page_${w}`);

      // The edit form comes filled with the pin; Save moves it, and an empty field unpins.
      await page.goto("/");
      await page.locator(`#job-${job.id} [data-action="edit-job"]`).click();
      await page.locator("#job-form-title", { hasText: `Edit job ${job.id}` }).waitFor();
      assert.equal(await page.inputValue("#f-pin_label"), "gpu");
      problems.push(...await pageProblems(page, `${w}px edit form`));
      await saveEdit(d, job.id, "big-disk");
      assert.equal(d.deps.store.getJob(job.id)!.meta.pin_label, "big-disk");
      await saveEdit(d, job.id, "");
      assert.equal(d.deps.store.getJob(job.id)!.meta.pin_label, undefined);
      await page.goto(`/jobs/${job.id}`);
      assert.equal(await page.locator('[data-setting="pin_label"]').count(), 0);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(d.pageErrors, []);
  },
);
