// Browser end-to-end for the landing page's hierarchy and the money (issue 30), in real
// Chromium at 1280x900 and 390x844 against a real outpost: the summary line, the inbox folded
// to three items and "N more", the nav link to /jobs; cost and token totals on /jobs/<id>, the
// jobs list and /runs checked against sums computed from the store's own runs, unpriced runs
// shown as unpriced, and chart bars linking to their hour's runs.

import assert from "node:assert/strict";
import type { NewRun, Run, RunStatus } from "../../core/store/store.ts";
import { costText, tokenTotal, windowStarts } from "../../server/views/usage.tsx";
import type { UsageTotals } from "../../core/store/store.ts";
import { peerTest, probes } from "../peers.ts";
import { sumOfRuns } from "../usage_oracle.ts";
import { type Dashboard, openDashboard } from "./dashboard_browser_kit.ts";

const VIEWPORTS = [{ width: 1280, height: 900 }, { width: 390, height: 844 }];
const HOUR = 3_600_000;

/** Runs over the last 40 days for two jobs: priced, unpriced, and some with no model use. */
function seedRuns(d: Dashboard, jobs: number[]): void {
  const statuses: RunStatus[] = ["ok", "error", "ok", "killed", "skipped", "needs_human"];
  const now = Date.now();
  for (let i = 0; i < 240; i++) {
    const at = new Date(now - i * 4 * HOUR - 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const status = statuses[i % statuses.length]!;
    const used = status !== "skipped";
    const run: NewRun = {
      job_id: jobs[i % jobs.length]!,
      status,
      attempt: 1,
      priority: 10,
      class: "scheduled",
      queued_at: at,
      started_at: at,
      finished_at: at,
      duration_ms: used ? 1000 + i * 37 : null,
      tokens_in: used ? 2000 + i : null,
      tokens_out: used ? 300 : null,
      cache_read_tokens: used && i % 2 ? 5000 : null,
      cache_write_tokens: used && i % 3 === 0 ? 700 : null,
      cost_usd: used && i % 5 !== 0 ? 0.0031 * (1 + (i % 7)) : null,
      model: "gpt-5-mini",
    };
    d.deps.store.createRun(run);
  }
}

/** What the rollup must say, computed the slow way from the store's runs. */
function sumSince(runs: Run[], since: string, jobId?: number): UsageTotals {
  return sumOfRuns(
    runs.filter((r) =>
      r.queued_at.slice(0, 13) >= since.slice(0, 13) && (jobId === undefined || r.job_id === jobId)
    ),
  );
}

const grouped = (n: number) => new Intl.NumberFormat("en-US").format(n);

peerTest(
  "dashboard: the landing page opens on a summary line, three inbox items and N more",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const job = d.createJob({ name: "triage", prompt: "ok" });
    seedRuns(d, [job.id]);
    const last = d.deps.store.latestRun(job.id)!;
    for (let i = 0; i < 21; i++) {
      d.deps.store.createInboxItem({
        job_id: job.id,
        run_id: last.id,
        questions: [{ kind: "question", text: `Question ${i}?`, options: ["dismiss", "keep"] }],
        meta: { risk: "low" },
      });
    }
    const runs = d.deps.store.listRunHistory({}, { limit: 10_000 });
    const today = sumSince(runs, windowStarts(new Date()).today);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto("/");
      const line = page.locator("#summary-line");
      assert.match(await line.locator('[data-summary="inbox"]').innerText(), /^21 waiting for you/);
      assert.match(await line.locator('[data-summary="running"]').innerText(), /^0 running now/);
      assert.equal(
        await line.locator('[data-summary="failed"]').innerText(),
        `${today.failed} failed today`,
      );
      assert.equal(
        await line.locator('[data-summary="spent"]').innerText(),
        `${costText(today)} spent today`,
      );
      assert.ok(today.unpriced_runs > 0 && /unpriced/.test(costText(today)));
      assert.equal(await page.locator("#card-inbox article.inbox-item").count(), 3);
      assert.equal(await page.locator("#inbox-more > summary").innerText(), "18 more");
      // The jobs are within two screens of the top, not ten.
      const jobsTop = Number(
        await page.evaluate(
          'document.getElementById("card-jobs").getBoundingClientRect().top + window.scrollY',
        ),
      );
      await d.screenshot(`landing_summary_${viewport.width}`);
      assert.ok(jobsTop < viewport.height * 2.5, `jobs start at ${jobsTop}px`);
      // An agent's "dismiss" answer and the closing button cannot be mistaken for each other.
      const first = page.locator("#card-inbox article.inbox-item").first();
      assert.equal(await first.locator(".chip").first().innerText(), "“dismiss”");
      assert.equal(
        await first.locator('[data-action="dismiss"]').innerText(),
        "Close without answering",
      );
    }
    await page.locator('.topnav a[href="/jobs"]').click();
    await page.waitForURL("**/jobs");
    assert.equal(await page.locator("h1").innerText(), "Jobs");
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: cost and token totals per job and per day equal the store's sums",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { page } = d;
    const a = d.createJob({ name: "nightly build", prompt: "ok" });
    const b = d.createJob({ name: "issue triage", prompt: "ok" });
    seedRuns(d, [a.id, b.id]);
    const runs = d.deps.store.listRunHistory({}, { limit: 10_000 });
    const w = windowStarts(new Date());
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto(`/jobs/${a.id}`);
      for (const [key, since] of [["today", w.today], ["week", w.week], ["month", w.month]]) {
        const want = sumSince(runs, since!, a.id);
        const row = page.locator(`tr[data-window="${key}"]`);
        assert.equal(await row.locator(`[data-usage="cost-${key}"]`).innerText(), costText(want));
        assert.equal(
          await row.locator(`[data-usage="tokens-${key}"]`).innerText(),
          grouped(tokenTotal(want)),
          `${key} tokens`,
        );
      }
      assert.match(
        await page.locator('[data-usage="cost-month"]').innerText(),
        /\+ \d+ unpriced runs$/,
      );

      await page.goto("/");
      const month = sumSince(runs, w.month, b.id);
      assert.match(
        await page.locator(`#job-${b.id} [data-usage="job-line"]`).innerText(),
        new RegExp(`30 d ${costText(month).replace(/[$+]/g, "\\$&")} ·`),
      );

      // A run written now shows on the next load (the list's totals are cached until a commit).
      const before = await page.locator(`#job-${b.id} [data-usage="job-line"]`).innerText();
      const at = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
      runs.push(d.deps.store.createRun({
        job_id: b.id,
        status: "ok",
        attempt: 1,
        priority: 10,
        class: "scheduled",
        queued_at: at,
        tokens_in: 10,
        tokens_out: 1,
        cost_usd: 1.5,
      }));
      await page.goto("/");
      const after = await page.locator(`#job-${b.id} [data-usage="job-line"]`).innerText();
      assert.notEqual(after, before);
      assert.match(
        after,
        new RegExp(
          `^cost today ${costText(sumSince(runs, w.today, b.id)).replace(/[$+]/g, "\\$&")} ·`,
        ),
      );

      await page.goto("/runs");
      const days = page.locator("#usage-per-day tbody tr");
      assert.ok((await days.count()) >= 30);
      for (const i of [0, 5, 29]) {
        const row = days.nth(i);
        const day = (await row.getAttribute("data-day"))!;
        const want = sumSince(runs.filter((r) => r.queued_at.startsWith(day)), `${day}T00`);
        assert.equal(await row.locator('[data-usage="cost-day"]').innerText(), costText(want));
        assert.equal(
          await row.locator('[data-usage="tokens-day"]').innerText(),
          grouped(tokenTotal(want)),
        );
      }
      // Cost and duration charts beside runs and tokens, ticks from 0 up to the top.
      for (const id of ["chart-runs", "chart-tokens", "chart-cost", "chart-duration"]) {
        const ticks = await page.locator(`#${id} text.tick-y`).allTextContents();
        // From 0 to the top (counts tick at whole numbers only, so 1 run a hour gives 0 and 1).
        assert.ok(ticks.length >= (id === "chart-runs" ? 2 : 3), `${id} ticks: ${ticks}`);
        assert.match(ticks[0]!, /^\$?0/);
      }
      await d.screenshot(`runs_money_${viewport.width}`);
    }
    // A bar opens that hour's runs.
    const bar = page.locator("#chart-runs svg a").last();
    const href = (await bar.getAttribute("href"))!;
    assert.match(href, /^\/runs\?from=\d{4}-\d\d-\d\dT\d\d:00&to=/);
    await page.goto(href);
    const hour = new URL(href, d.base).searchParams.get("from")!.slice(0, 13);
    const shown = await page.locator("table.history tbody tr[data-run-id]").count();
    assert.equal(shown, runs.filter((r) => r.queued_at.startsWith(hour)).length);
    assert.ok(shown > 0);
    assert.deepEqual(d.pageErrors, []);
  },
);
