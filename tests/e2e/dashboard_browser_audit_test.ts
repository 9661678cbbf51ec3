// Browser end-to-end for the audit trail (issue 30), in real Chromium at 1280x900 and 390x844
// against a real outpost behind a stand-in SSO proxy header: an answer given on the dashboard
// is audited under the signed-in user, with its answer text and a link to the item; a
// machine-door token shows by its name; times carry seconds (local, UTC on hover); a date
// range keeps only the rows inside it.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { openDashboard } from "./dashboard_browser_kit.ts";

const VIEWPORTS = [{ width: 1280, height: 900 }, { width: 390, height: 844 }];

peerTest(
  "dashboard: /audit names who acted, links targets, shows answers and seconds, filters by date",
  probes.chromium,
  async () => {
    await using d = await openDashboard({
      env: { AGENT_OUTPOST_TRUSTED_USER_HEADER: "X-Test-User" },
    });
    const { page } = d;
    // The proxy in front of the outpost names the signed-in user on every request.
    await d.context.setExtraHTTPHeaders({ "X-Test-User": "ann" });
    const job = d.createJob({ name: "branch picker", prompt: "exit:2" });
    const run = d.deps.scheduler.trigger(job.id);
    assert.equal(await d.runReaches(run.id, ["needs_human", "ok", "error"]), "needs_human");
    const item = d.deps.store.listInbox({ state: "open" }).find((i) => i.run_id === run.id)!;
    await page.goto(`/inbox/${item.id}`);
    await page.locator("textarea").fill("use main");
    await page.locator('button[type="submit"]').click();
    await page.locator(".closed-note").waitFor();
    await d.deps.scheduler.idle();
    d.deps.store.appendAudit({
      action: "api_submit",
      target: `job:${job.id}`,
      actor: "token:7:ci-bot",
      channel: "machine",
      detail: "submitted by CI",
    });
    d.deps.store.appendAudit({
      action: "job_update",
      target: `job:${job.id}`,
      actor: "dashboard",
      channel: "dashboard",
      detail: "long ago",
      at: "2026-01-05T10:20:30Z",
    });

    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto("/audit");
      const answered = page.locator('tr[data-action="answer"]');
      assert.equal(await answered.locator('[data-col="actor"]').innerText(), "ann");
      assert.equal(
        await answered.locator('[data-col="target"] a').getAttribute("href"),
        `/inbox/${item.id}`,
      );
      assert.match(await answered.locator('[data-col="answer"]').innerText(), /answer: use main$/);
      const token = page.locator('tr[data-action="api_submit"]');
      assert.equal(await token.locator('[data-col="actor"]').innerText(), "token “ci-bot” (#7)");
      assert.equal(
        await token.locator('[data-col="target"] a').getAttribute("href"),
        `/jobs/${job.id}`,
      );
      // Seconds, in local time, with the UTC time on hover.
      const old = page.locator('tr[data-action="job_update"] time');
      assert.equal(await old.getAttribute("title"), "2026-01-05 10:20:30 UTC");
      assert.match(await old.innerText(), /^2026-01-05 \d\d:20:30/);
      await d.screenshot(`audit_${viewport.width}`);

      // A date range from the form keeps only the rows inside it.
      await page.locator("#f-from").fill("2026-01-05");
      await page.locator("#f-to").fill("2026-01-05");
      await page.locator('#audit-filter button[type="submit"]').click();
      await page.waitForURL(/from=2026-01-05/);
      const actions = await page.locator("tbody tr").evaluateAll((rows) =>
        rows.map((r) => r.getAttribute("data-action"))
      );
      assert.deepEqual(actions, ["job_update"]);
    }
    assert.deepEqual(d.pageErrors, []);
  },
);
