// Browser end-to-end for runs that show their work (issue 30), in real Chromium at 1280x900
// and 390x844 against a real outpost running the fake agent: a run stopped after its first
// turn (it never printed its JSON result) still has its session, so its page shows the
// transcript; a run that crashed shows the end of its process log (stderr).

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { openDashboard } from "./dashboard_browser_kit.ts";

const VIEWPORTS = [{ width: 1280, height: 900 }, { width: 390, height: 844 }];

/** Resolves once `path` exists (the child's journal), checking every 50 ms. */
async function fileAppears(path: string): Promise<void> {
  for (;;) {
    try {
      await Deno.lstat(path);
      return;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

peerTest(
  "dashboard: a run stopped after its first turn shows its transcript and its log",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({ name: "long haul", prompt: "hang journal" });
    const run = d.deps.scheduler.trigger(job.id);
    await d.runReaches(run.id, ["running"]);
    const pid = await (async () => {
      for (;;) {
        const p = d.deps.store.getRun(run.id)?.pid;
        if (p) return p;
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    await fileAppears(`${d.home}/sessions/sess-${pid}.jsonl`);
    d.deps.scheduler.cancel(job.id);
    const status = await d.runReaches(run.id, ["killed", "cancelled", "error"]);
    await d.deps.scheduler.idle(); // the child has exited and its run is written
    const stored = d.deps.store.getRun(run.id)!;
    assert.equal(stored.session_id, `sess-${pid}`, `a ${status} run keeps its session`);

    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto(`/runs/${job.id}/${run.id}`);
      assert.equal(await page.locator('[data-testid="transcript-none"]').count(), 0);
      assert.ok((await page.locator("#card-transcript .leg").count()) >= 1);
      assert.match(await page.locator("#run-log pre").innerText(), /agent: session sess-\d+/);
      await d.screenshot(`run_stopped_transcript_${viewport.width}`);
    }
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: a crashed run's page shows the end of its process log",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({ name: "fragile", prompt: "crash" });
    const run = d.deps.scheduler.trigger(job.id);
    assert.equal(await d.runReaches(run.id, ["ok", "error"]), "error");
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto(`/runs/${job.id}/${run.id}`);
      const log = await page.locator("#run-log pre").innerText();
      assert.match(log, /Uncaught Error: the disk is on fire/);
      assert.ok(!log.includes("\x1b["), "colour codes are stripped");
    }
    // An ok run shows no log card.
    const okJob = d.createJob({ name: "fine", prompt: "ok" });
    const okRun = d.deps.scheduler.trigger(okJob.id);
    assert.equal(await d.runReaches(okRun.id, ["ok", "error"]), "ok");
    await page.goto(`/runs/${okJob.id}/${okRun.id}`);
    assert.equal(await page.locator("#run-log").count(), 0);
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: /runs and /jobs/<id> show a new run live, with elapsed time, tokens and tool",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({ name: "long haul", prompt: "hang journal" });
    const visits = [
      { viewport: VIEWPORTS[0]!, path: "/runs" },
      { viewport: VIEWPORTS[1]!, path: `/jobs/${job.id}` },
    ];
    for (const { viewport, path } of visits) {
      await page.setViewportSize(viewport);
      await page.goto(path);
      await page.locator('[data-testid="runs-empty"], table.history').first().waitFor();
      const run = d.deps.scheduler.trigger(job.id);
      // No reload: the row arrives through the event stream and its partial.
      const row = page.locator(`tr[data-run-id="${run.id}"][data-status="running"]`);
      await row.waitFor({ timeout: 15_000 });
      // Tokens so far and the current tool come from the child's log, re-read while running.
      await row.locator('[data-col="tool"]', { hasText: "shell" }).waitFor({ timeout: 15_000 });
      assert.equal(await row.locator('[data-col="tokens"]').innerText(), "4,280 so far");
      const first = await row.locator("[data-elapsed-from]").innerText();
      // The elapsed time ticks on in the page (the CSP forbids waitForFunction's eval).
      const ticking = row.locator("[data-elapsed-from]").filter({ hasNotText: first });
      await ticking.waitFor({ timeout: 5_000 });
      await d.screenshot(`live_running_${viewport.width}`);
      d.deps.scheduler.cancel(job.id);
      await page.locator(`tr[data-run-id="${run.id}"]:not([data-status="running"])`).waitFor({
        timeout: 15_000,
      });
      await d.deps.scheduler.idle();
    }
    assert.deepEqual(d.pageErrors, []);
  },
);
