// Fixtures of the page tests (server/routes/pages*_test.ts): a job, a finished run with its
// report file, an inbox item, a GET that returns the page's text, and the hostile string every
// user-controlled field gets with the check that none of its markup reached a page.

import assert from "node:assert/strict";
import { join } from "node:path";
import type { Question } from "../../core/tools/types.ts";
import { TEST_WORKDIR } from "./scheduler_kit.ts";
import type { TestOutpost } from "./test_outpost.ts";

export const HOSTILE = `<img src=x onerror="alert(1)">&"'`;

export function job(t: TestOutpost, overrides: Record<string, unknown> = {}) {
  return t.scheduler.createJob({
    name: "nightly",
    prompt: "summarize",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: TEST_WORKDIR,
    ...overrides,
  });
}

/** A finished run of `jobId` with a report file holding `report`. */
export async function finishedRun(
  t: TestOutpost,
  jobId: number,
  status: "ok" | "needs_human",
  report?: string,
) {
  const run = t.store.createRun({
    job_id: jobId,
    status: "queued",
    attempt: 1,
    priority: 10,
    class: "scheduled",
  });
  let report_path: string | null = null;
  if (report !== undefined) {
    const dir = join(t.home, "outpost", "runs", String(jobId));
    await Deno.mkdir(dir, { recursive: true });
    report_path = join(dir, `r${run.id}.md`);
    await Deno.writeTextFile(report_path, report);
  }
  return t.store.updateRun(run.id, {
    status,
    exit_code: status === "ok" ? 0 : 2,
    started_at: "2026-03-02T09:00:00Z",
    finished_at: "2026-03-02T09:01:05Z",
    report_path,
    session_id: "sess-1",
  });
}

export function inboxItem(t: TestOutpost, jobId: number, runId: number, questions: Question[]) {
  return t.store.createInboxItem({ job_id: jobId, run_id: runId, questions, meta: {} });
}

export async function get(
  t: TestOutpost,
  path: string,
): Promise<{ status: number; html: string; res: Response }> {
  const res = await t.app.request(path);
  return { status: res.status, html: await res.text(), res };
}

/** No raw markup from `HOSTILE` survives: the tag opener is always escaped. */
export function assertEscaped(html: string): void {
  assert.ok(!html.includes("<img src=x"), "raw <img> from user data reached the page");
  assert.ok(!/onerror="alert/.test(html), "raw event handler reached the page");
}
