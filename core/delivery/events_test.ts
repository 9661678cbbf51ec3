import assert from "node:assert/strict";
import type { InboxItem, Job, Run } from "../store/store.ts";
import { alertEvent, inboxItemEvent, runLink, runReportEvent } from "./events.ts";

const job = { id: 4, name: "triage\u0007", meta: { room: "!room:x" } } as unknown as Job;
const run = { id: 9, job_id: 4 } as unknown as Run;

Deno.test("inbox item events carry ids, risk, high priority and the origin room", () => {
  const item = {
    id: 12,
    run_id: 9,
    questions: [{ kind: "question", text: "Which\u202E branch?" }, { kind: "question", text: "b" }],
  } as unknown as InboxItem;
  const e = inboxItemEvent(job, item, "medium", "2026-03-02T09:00:00Z");
  assert.deepEqual(e, {
    kind: "inbox_item",
    item_id: 12,
    job_id: 4,
    run_id: 9,
    risk: "medium",
    title: "triage needs you",
    body: "Which branch?\n(+1 more)",
    priority: "high",
    at: "2026-03-02T09:00:00Z",
    room: "!room:x",
  });
});

Deno.test("run reports link to /runs/<job>/<run> with a capped head", () => {
  assert.equal(runLink(4, 9), "/runs/4/9");
  const e = runReportEvent(job, run, "needs_human", "y".repeat(3000), "t");
  assert.equal(e.link, "/runs/4/9");
  assert.equal(e.outcome, "needs_human");
  assert.equal(Array.from(e.body).length, 1500);
  assert.equal(e.title, "triage is waiting for an answer (run 9)");
});

Deno.test("alerts name their kind; drift is normal priority, the rest high", () => {
  const noRoom = { ...job, meta: {} } as Job;
  const drift = alertEvent("drift", noRoom, "model gone", "t", { run_id: 9 });
  assert.equal(drift.priority, "normal");
  assert.equal(drift.run_id, 9);
  assert.equal("room" in drift, false);
  assert.equal(alertEvent("dead_letter", noRoom, "x", "t").priority, "high");
  assert.equal(
    alertEvent("schedule_error", noRoom, "x", "t").title,
    "triage: disabled: schedule error",
  );
});
