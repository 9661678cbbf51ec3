// Browser end-to-end, issue 37 §1: the job form says which stored key a job's runs send. A
// base_url of another origin than the stored key's gets none, and the form says so when the
// job is saved; naming a preset stored for another origin is refused next to its field; the
// job page shows the note too.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { openDashboard } from "./dashboard_browser_kit.ts";

const CANARY = "sk-canary-form-note-61d0";

peerTest(
  "job form: a base_url of another origin is told it gets no stored key; a preset stored elsewhere is refused",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    await Deno.writeTextFile(
      `${d.home}/settings.toml`,
      `provider_preset = "hosted-messages"\n[provider_keys]\nhosted-messages = "${CANARY}"\n`,
    );
    const { page } = d;
    await page.goto("/");
    await page.click("#job-form-toggle");
    await page.fill("#f-name", "pointed elsewhere");
    await page.fill("#f-prompt", "hello");
    await page.fill("#f-schedule-expr", "1h");
    await page.fill("#f-workdir", d.workdir);
    await page.fill("#f-base_url", "http://127.0.0.1:9/v1");
    await page.fill("#f-provider_preset", "hosted-messages");
    await page.click("#job-form-submit");
    const err = page.locator('[data-error-for="provider_preset"]');
    await err.waitFor({ state: "visible" });
    assert.match(
      await err.innerText(),
      /^Provider preset: .*stored for https:\/\/api\.anthropic\.com/,
    );
    assert.equal(d.deps.store.countJobs(), 0);

    await page.fill("#f-provider_preset", "");
    await page.click("#job-form-submit");
    const toast = page.locator("#toast", { hasText: "Created job" });
    await toast.waitFor();
    const text = await toast.innerText();
    assert.match(text, /runs send no stored key to http:\/\/127\.0\.0\.1:9/);
    assert.ok(!text.includes(CANARY));
    const job = d.deps.store.listJobs()[0]!;
    assert.equal(job.base_url, "http://127.0.0.1:9/v1");

    await page.goto(`/jobs/${job.id}`);
    const note = await page.locator('[data-setting="stored_key"]').innerText();
    assert.match(note, /runs send no stored key to http:\/\/127\.0\.0\.1:9/);
    assert.deepEqual(d.pageErrors, []);
  },
);
