// Browser end-to-end for the dashboard on a phone (issue 30), in real Chromium against a real
// outpost: every page, seeded with hostile long content (a long shell command in an approval,
// unbroken words in names and prompts, wide tables), at 1280x900 and 390x844. Each page must
// fit the viewport (wide content scrolls inside its own box), offer tap targets of at least
// 44 px at phone width, draw chart text at a readable size, and pass axe-core (loaded from the
// project's own npm dependency) with no serious or critical violation.

import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import type { NewRun, RunStatus } from "../../core/store/store.ts";
import { peerTest, probes } from "../peers.ts";
import { type Dashboard, openDashboard } from "./dashboard_browser_kit.ts";
import { axeViolations, overflow, widest } from "./page_checks_kit.ts";

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };
const LONG_WORD = "supercalifragilistic".repeat(8);
const LONG_COMMAND = `rsync -avz --delete --exclude=node_modules ${
  "/srv/very/deep/path/".repeat(12)
}release-candidate/ deploy@production-host-number-one.example.internal:/var/www/app`;

interface Seeded {
  paths: string[];
}

/** Jobs, runs, an inbox item and audit rows whose text is as long as an operator's can be. */
function seedHostile(d: Dashboard): Seeded {
  const job = d.createJob({ name: `deploy-${LONG_WORD}`, prompt: `Run ${LONG_COMMAND}` });
  const other = d.createJob({
    name: "nightly build",
    prompt: "ok",
    schedule: { kind: "cron", expr: "0 9 * * 1-5", tz: "America/New_York" },
  });
  const statuses: RunStatus[] = ["ok", "error", "needs_human", "skipped", "cancelled"];
  const now = Date.now();
  let lastRun = 0;
  for (let i = 0; i < 30; i++) {
    const at = new Date(now - (30 - i) * 40 * 60_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const run: NewRun = {
      job_id: i % 2 ? job.id : other.id,
      status: statuses[i % statuses.length]!,
      attempt: 1,
      priority: 10,
      class: "scheduled",
      queued_at: at,
      started_at: at,
      finished_at: at,
      duration_ms: 4000 + i * 100,
      tokens_in: 12000 + i,
      tokens_out: 900,
      cost_usd: i % 4 === 0 ? null : 0.0123,
      model: `model-${LONG_WORD}`,
      reason: i % 5 === 1 ? `failed: ${LONG_COMMAND}` : null,
    };
    lastRun = d.deps.store.createRun(run).id;
  }
  const item = d.deps.store.createInboxItem({
    job_id: job.id,
    run_id: lastRun,
    questions: [{
      kind: "approval",
      text: `May I run this? ${LONG_WORD}`,
      detail: LONG_COMMAND,
      options: ["approve", "deny", "dismiss"],
    }],
    meta: { risk: "medium" },
  });
  for (let i = 0; i < 3; i++) {
    d.deps.store.createInboxItem({
      job_id: other.id,
      run_id: lastRun,
      questions: [{ kind: "question", text: `Which branch, ${i}?` }],
      meta: { risk: "low" },
    });
  }
  d.deps.store.appendAudit({
    action: "job.update",
    target: `job:${job.id}`,
    actor: `someone-${LONG_WORD}`,
    channel: "dashboard",
    detail: LONG_COMMAND,
  });
  d.deps.store.appendAudit({
    action: "job_update",
    target: `job:${other.id}`,
    actor: "dashboard",
    channel: "dashboard",
    detail: "schedule every 1h (America/New_York), was every 2h (America/New_York)",
  });
  return {
    paths: [
      "/",
      "/jobs",
      `/jobs/${job.id}`,
      `/jobs/${other.id}`,
      "/runs",
      `/runs/${job.id}/${lastRun}`,
      `/inbox/${item.id}`,
      "/audit",
      "/no/such/page",
    ],
  };
}

/**
 * Visible controls a finger aims at, smaller than 44x44 CSS px. Inline links in prose are
 * exempt (WCAG 2.5.5), and so are chart bars: out of the tab order, a pointer's shortcut to
 * hours the day table and the filters also reach.
 */
async function smallTapTargets(page: Page): Promise<string[]> {
  return await page.evaluate(`(() => {
    const out = [];
    const sel = "a[href], button, select, input:not([type=hidden]), summary, textarea";
    for (const el of document.querySelectorAll(sel)) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (el.closest(".md, p, .skip, figcaption, svg")) continue;
      if (r.width < 44 || r.height < 44) {
        out.push(el.tagName + "." + el.className + " '" + (el.textContent || "").trim().slice(0, 30)
          + "' " + Math.round(r.width) + "x" + Math.round(r.height));
      }
    }
    return out;
  })()`);
}

/**
 * Chart text drawn smaller than 10 CSS px in either direction: an SVG scaled to the phone's
 * width squeezes its text sideways, which the box height alone would not show.
 */
async function tinyChartText(page: Page): Promise<string[]> {
  return await page.evaluate(`(() => {
    const out = [];
    for (const t of document.querySelectorAll("svg text")) {
      const m = t.getScreenCTM();
      if (!m || t.getBoundingClientRect().height === 0) continue;
      const px = parseFloat(getComputedStyle(t).fontSize) * Math.min(Math.abs(m.a), Math.abs(m.d));
      if (px < 10) out.push((t.textContent || "") + " " + px.toFixed(1) + "px");
    }
    return out;
  })()`);
}

/**
 * Places where `word` (short enough for any line) is split across two lines: a mid-word break
 * like "New_Yor k", from a box sized to its min-content with break-anywhere wrapping.
 */
async function brokenWords(page: Page, word: string): Promise<string[]> {
  return await page.evaluate(`(() => {
    const out = [];
    const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const at = n.data.indexOf(${JSON.stringify(word)});
      if (at < 0) continue;
      const r = document.createRange();
      r.setStart(n, at);
      r.setEnd(n, at + ${word.length});
      const tops = new Set([...r.getClientRects()].map((b) => Math.round(b.top)));
      if (tops.size > 1) out.push(n.parentElement.tagName + "." + n.parentElement.className);
    }
    return out;
  })()`);
}

peerTest(
  "dashboard: every page fits a phone with hostile content, with big tap targets",
  probes.chromium,
  async () => {
    await using d = await openDashboard({ viewport: PHONE });
    const { paths } = seedHostile(d);
    const problems: string[] = [];
    for (const path of paths) {
      await d.page.goto(path);
      await d.page.waitForLoadState("networkidle");
      const wide = await overflow(d.page);
      if (wide > 0) {
        problems.push(`${path}: ${wide}px wider than the phone (${await widest(d.page)})`);
      }
      const small = await smallTapTargets(d.page);
      if (small.length) problems.push(`${path}: ${small.length} small targets: ${small[0]}`);
      const broken = await brokenWords(d.page, "America/New_York");
      if (broken.length) problems.push(`${path}: "America/New_York" broken in ${broken[0]}`);
      const h1 = await d.page.locator("h1").count();
      if (h1 !== 1) problems.push(`${path}: ${h1} h1 elements`);
      const tiny = await tinyChartText(d.page);
      if (tiny.length) problems.push(`${path}: ${tiny.length} tiny chart labels: ${tiny[0]}`);
      await d.screenshot(`phone_${path.replace(/\W+/g, "_")}`);
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(d.pageErrors, []);
  },
);

peerTest(
  "dashboard: axe-core finds no serious or critical violation at either width",
  probes.chromium,
  async () => {
    await using d = await openDashboard();
    const { paths } = seedHostile(d);
    const problems: string[] = [];
    for (const viewport of [DESKTOP, PHONE]) {
      await d.page.setViewportSize(viewport);
      for (const path of paths) {
        await d.page.goto(path);
        await d.page.waitForLoadState("networkidle");
        if (viewport === DESKTOP && (await overflow(d.page)) > 0) {
          problems.push(`${path}: wider than the desktop viewport`);
        }
        for (const where of await brokenWords(d.page, "America/New_York")) {
          problems.push(`${viewport.width}px ${path}: "America/New_York" broken in ${where}`);
        }
        for (const v of await axeViolations(d.page)) {
          problems.push(`${viewport.width}px ${path}: ${v}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  },
);
