import assert from "node:assert/strict";
import type { InboxItem, Job, Run } from "../store/store.ts";
import { messageFor } from "../messenger/adapter.ts";
import { PUSH_BODY_MAX, pushEnvelope } from "../push/envelope.ts";
import {
  alertEvent,
  DETAIL_MAX,
  detailExcerpt,
  inboxItemEvent,
  runLink,
  runReportEvent,
} from "./events.ts";

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

Deno.test("an inbox event shows what is being approved: the command and its directory, sanitized", () => {
  const item = {
    id: 12,
    run_id: 9,
    questions: [
      {
        kind: "approval",
        text: "Run a shell command: rm -rf build",
        detail: "$ rm -rf build\u202E\u0007\n(in /w/app; sandbox: bubblewrap)",
      },
      { kind: "approval", text: "second" },
    ],
  } as unknown as InboxItem;
  const e = inboxItemEvent(job, item, "medium", "t");
  assert.equal(
    e.body,
    "Run a shell command: rm -rf build\n\n$ rm -rf build\n(in /w/app; sandbox: bubblewrap)\n(+1 more)",
  );
  // The chat notice carries all of it, between the question and the reply hint.
  const chat = messageFor(e, "https://o.example")!;
  assert.match(
    chat,
    /\):\nRun a shell command: rm -rf build\n\n\$ rm -rf build\n\(in \/w\/app; sandbox: bubblewrap\)\n\(\+1 more\)\nReply/,
  );
  // A push has room for a line: the question first, then as much of the command as fits.
  const push = pushEnvelope(e).body;
  assert.ok(Array.from(push).length <= PUSH_BODY_MAX);
  assert.match(push, /^Run a shell command: rm -rf build \$ rm -rf build \(in \/w\/app/);
});

Deno.test("a long diff is cut at a line end to DETAIL_MAX, saying how many lines are left", () => {
  const lines = ["--- a/big.txt", "+++ b/big.txt", "@@ -1,300 +1,300 @@"];
  for (let i = 0; i < 300; i++) lines.push(`-old line ${i}`, `+new line ${i}`);
  const diff = lines.join("\n");
  const item = {
    id: 3,
    run_id: 9,
    questions: [{ kind: "approval", text: "Edit big.txt?", detail: diff }],
  } as unknown as InboxItem;
  const e = inboxItemEvent(job, item, "medium", "t");
  const [text, shown] = e.body.split("\n\n");
  assert.equal(text, "Edit big.txt?");
  assert.ok(Array.from(shown!).length <= DETAIL_MAX, String(shown!.length));
  const kept = shown!.split("\n");
  const note = kept.pop()!;
  // Whole lines only, in order from the top, and the note counts the rest exactly.
  assert.deepEqual(kept, lines.slice(0, kept.length));
  assert.equal(note, `… ${lines.length - kept.length} more lines on the dashboard`);
  assert.ok(kept.length > 20);
  // The chat notice keeps the cut detail whole (its own cap is above it).
  assert.ok(messageFor(e, "https://o.example")!.includes(shown!));
  // Short details and none at all pass through.
  assert.equal(detailExcerpt("$ ls\n(in /w)"), "$ ls\n(in /w)");
  assert.equal(detailExcerpt(undefined), "");
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
