// Browser end-to-end: the memory pane, the GPU fairness levers, hostile content and the
// phone layout, in real Chromium against a real outpost running the fake agent.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { openDashboard } from "./dashboard_browser_kit.ts";

const MEMORY = {
  "facts/build.md": [
    "---",
    "category: project-fact",
    "workspace: global",
    "---",
    "# Build",
    "Run `deno task ok` before pushing.",
    '<script>window.__pwned = "memory"</script><img src=x onerror="window.__pwned=1">',
    "",
  ].join("\n"),
  "preferences/commits.md": [
    "---",
    "category: preference",
    "---",
    "Prefer small, focused commits with imperative subjects.",
    "",
  ].join("\n"),
};

peerTest("dashboard: list, search and open memory bodies as text", probes.chromium, async () => {
  await using d = await openDashboard({ memory: MEMORY });
  const { page } = d;
  await page.goto("/");
  const files = page.locator("#card-memory .memory-files [data-action='open-memory']");
  assert.equal(await files.count(), 2);
  assert.match(await page.locator('#card-memory [data-category="total"]').innerText(), /2\s+files/);

  await page.locator('#card-memory [data-path="/memories/facts/build.md"]').click();
  const body = page.locator("#memory-body-text");
  await body.waitFor();
  assert.equal(await page.locator("#memory-body-title").innerText(), "/memories/facts/build.md");
  const text = await body.innerText();
  assert.match(text, /Run `deno task ok` before pushing\./);
  // Markup in a body is shown literally, never run.
  assert.match(text, /<script>window.__pwned = "memory"<\/script>/);
  assert.equal(await page.locator("#memory-body script, #memory-body img").count(), 0);
  assert.equal(await page.evaluate("globalThis.__pwned ?? null"), null);
  // Every body read is audited (the API's body_read row).
  assert.ok(
    d.deps.store.listAudit({ action: "body_read" }).some((r) => r.target === "facts/build.md"),
  );
  await d.screenshot("landing_memory_body");

  await page.fill("#memory-q", "commits");
  await page.press("#memory-q", "Enter");
  const hit = page.locator("#memory-hits [data-action='open-memory']");
  await hit.first().waitFor();
  assert.equal(await hit.count(), 1);
  assert.equal(await hit.first().getAttribute("data-path"), "/memories/preferences/commits.md");
  await hit.first().click();
  await page.locator("#memory-body-title", { hasText: "commits.md" }).waitFor();
  assert.match(await body.innerText(), /Prefer small, focused commits/);
  assert.match(await page.locator("#memory-body-meta").innerText(), /preference/);

  await page.fill("#memory-q", "nothingmatchesthis");
  await page.press("#memory-q", "Enter");
  await page.locator("#memory-hits", { hasText: "No memory matches" }).waitFor();
  assert.deepEqual(d.pageErrors, []);
});

const CONFIRM_TAIL = "This applies to every job at once.";

peerTest(
  "dashboard: governor levers ask first, then save live and refuse bad values",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    await page.goto("/#card-governor");
    // The card is collapsed by default.
    assert.equal(await page.locator("#governor-box").getAttribute("open"), null);
    await page.click("#governor-box > summary");
    await page.fill("#lever-max_concurrent\\.scheduled", "3");
    await page.press("#lever-max_concurrent\\.scheduled", "Tab");
    // Every change asks first, naming the lever by its label (the kit accepts).
    assert.deepEqual(await d.waitForDialogs(1), [{
      type: "confirm",
      message: `Change “Scheduled slots” to 3? ${CONFIRM_TAIL}`,
      answer: "accept",
    }]);
    await page.locator("#governor-status", { hasText: "Saved max_concurrent.scheduled" }).waitFor();
    assert.equal(d.deps.governor.config.max_concurrent.scheduled, 3);
    await page.locator('#card-governor tr[data-class="scheduled"]', { hasText: "0 / 3" }).waitFor();
    const saved = JSON.parse(await Deno.readTextFile(`${d.home}/outpost/governor.json`));
    assert.equal(saved.max_concurrent.scheduled, 3);

    await page.fill("#lever-queue_depth_max", "0");
    await page.press("#lever-queue_depth_max", "Tab");
    const err = page.locator('[data-error-for="queue_depth_max"]');
    await err.waitFor({ state: "visible" });
    assert.equal(d.dialogs[1]?.message, `Change “Queue depth” to 0? ${CONFIRM_TAIL}`);
    // The error names the lever's label, not its internal name.
    assert.match(await err.innerText(), /^Queue depth: /);
    assert.equal(
      await page.inputValue("#lever-queue_depth_max"),
      "16",
      "the bad value is reverted",
    );
    assert.equal(d.deps.governor.config.queue_depth_max, 16);

    await page.check('[data-lever="defer_when_interactive"]');
    await page.locator("#governor-status", { hasText: "Saved defer_when_interactive" }).waitFor();
    assert.match(d.dialogs[2]?.message ?? "", /^Change “Defer background runs .*” to true\? /);
    assert.equal(d.deps.governor.config.defer_when_interactive, true);
    assert.equal(d.dialogs.length, 3, "one confirm per change");
    await d.screenshot("landing_governor");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: a governor change the operator declines puts the old value back and saves nothing",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const file = `${d.home}/outpost/governor.json`;
    const fileBefore = await Deno.readTextFile(file).catch((e) => {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    });
    const before = structuredClone(d.deps.governor.config);
    const puts: string[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET") puts.push(`${r.method()} ${r.url()}`);
    });
    await page.goto("/#card-governor");
    await page.click("#governor-box > summary");
    d.confirmAnswer = "dismiss";

    const slots = "#lever-max_concurrent\\.scheduled";
    const old = await page.inputValue(slots);
    await page.fill(slots, "7");
    await page.press(slots, "Tab");
    assert.deepEqual(await d.waitForDialogs(1), [{
      type: "confirm",
      message: `Change “Scheduled slots” to 7? ${CONFIRM_TAIL}`,
      answer: "dismiss",
    }]);
    // The page puts the old value back as soon as the confirm is declined (same task, so
    // this read, sent after the dismissal, already sees it).
    assert.equal(await page.inputValue(slots), old, "the old value is put back");

    const box = page.locator('[data-lever="defer_when_interactive"]');
    const wasChecked = await box.isChecked();
    // A plain click: page.check would insist the box ends up checked.
    await box.click();
    await d.waitForDialogs(2);
    assert.equal(d.dialogs[1]?.answer, "dismiss");
    assert.equal(await box.isChecked(), wasChecked, "the checkbox is put back");

    // Nothing changed anywhere: no write went out, the live config and the file are as before.
    assert.deepEqual(puts, []);
    assert.deepEqual(d.deps.governor.config, before);
    const fileAfter = await Deno.readTextFile(file).catch((e) => {
      if (e instanceof Deno.errors.NotFound) return null;
      throw e;
    });
    assert.equal(fileAfter, fileBefore);
    assert.match(await page.locator("#governor-status").innerText(), /asks for confirmation/);
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: hostile job names, prompts and reports stay inert",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({
      name: `<img src=x onerror="window.__pwned='name'">`,
      prompt:
        `<script>window.__pwned='report'</script> [click](javascript:window.__pwned='link') ` +
        `![i](data:text/html,x) tokens:1/1`,
    });
    const run = d.deps.scheduler.trigger(job.id);
    assert.equal(await d.runReaches(run.id, ["ok", "error"]), "ok");

    await page.goto("/");
    const name = page.locator(`#job-${job.id} .job-name`);
    assert.equal(await name.innerText(), job.name);
    assert.equal(await page.locator(`#job-${job.id} img`).count(), 0);

    await page.goto(`/runs/${job.id}/${run.id}`);
    const report = page.locator("#report");
    assert.match(await report.innerText(), /<script>window.__pwned='report'<\/script>/);
    assert.equal(await report.locator("script, img, iframe").count(), 0);
    assert.equal(await report.locator('a[href^="javascript"], a[href^="data"]').count(), 0);
    assert.equal(await report.locator(".md-unsafe-link").count(), 2);
    assert.equal(await page.evaluate("globalThis.__pwned ?? null"), null);
    await d.screenshot("run_hostile_report");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest("dashboard: the landing page on a phone", probes.chromium, async () => {
  await using d = await openDashboard({ memory: MEMORY, viewport: { width: 390, height: 844 } });
  const { page } = d;
  const job = d.createJob({ name: "standup notes", prompt: "exit:2" });
  d.createJob({
    name: "weekly repo health",
    prompt: "ok",
    schedule: { kind: "cron", expr: "0 18 * * 0", tz: "UTC" },
  });
  const run = d.deps.scheduler.trigger(job.id);
  assert.equal(await d.runReaches(run.id, ["needs_human"]), "needs_human");
  await page.goto("/");
  await page.locator("#card-inbox article.inbox-item").waitFor();
  // Nothing overflows sideways on a narrow screen.
  const overflow = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth");
  assert.ok(Number(overflow) <= 0, `page is ${overflow}px wider than the phone`);
  // Tap targets: the primary buttons are at least 40 px tall.
  const box = await page.locator(`#job-${job.id} [data-action="trigger-job"]`).boundingBox();
  assert.ok(box && box.height >= 40, `Run now is ${box?.height}px tall`);
  await d.screenshot("landing_phone");
  await page.goto(`/runs/${job.id}/${run.id}`);
  await d.screenshot("run_phone");
  assert.deepEqual(d.pageErrors, []);
});
