import assert from "node:assert/strict";
import type { DeliveryEvent } from "../delivery/types.ts";
import { pushEnvelope, pushTag } from "./envelope.ts";

const inbox: DeliveryEvent = {
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
};

Deno.test("a medium-risk inbox item: type inbox, integer id, Approve and Dismiss, tag inbox-<id>", () => {
  const e = pushEnvelope(inbox);
  assert.deepEqual(e, {
    type: "inbox",
    id: 12,
    title: "triage needs you",
    body: "Which branch? (+1 more)",
    actions: [{ action: "approve", title: "Approve" }, { action: "dismiss", title: "Dismiss" }],
  });
  assert.equal(pushTag(e), "inbox-12");
});

Deno.test("a high-risk inbox item has no actions key at all", () => {
  const e = pushEnvelope({ ...inbox, risk: "high" });
  assert.equal("actions" in e, false);
  assert.equal(pushTag(e), "inbox-12");
});

Deno.test("run_report carries job and run integers and no link; alert carries text only", () => {
  const report = pushEnvelope({
    kind: "run_report",
    job_id: 4,
    run_id: 9,
    outcome: "ok",
    link: "/runs/4/9",
    title: "nightly finished (run 9)",
    body: "# Report\nall green",
    priority: "normal",
    at: "t",
  });
  assert.deepEqual(report, {
    type: "run_report",
    job: 4,
    run: 9,
    title: "nightly finished (run 9)",
    body: "# Report all green",
  });
  assert.equal(pushTag(report), "run-4-9");
  const alert = pushEnvelope({
    kind: "alert",
    alert: "dead_letter",
    job_id: 4,
    run_id: 9,
    title: "nightly: disabled",
    body: "three failures",
    priority: "high",
    at: "t",
  });
  assert.deepEqual(alert, { type: "alert", title: "nightly: disabled", body: "three failures" });
  assert.equal(pushTag(alert), "alert");
  for (const e of [report, alert, pushEnvelope(inbox)]) {
    assert.doesNotMatch(JSON.stringify(e), /\/runs\/|https?:|link|room/);
  }
});

Deno.test("titles are capped at 200 and bodies at 120 characters, code points counted", () => {
  const e = pushEnvelope({ ...inbox, title: "t".repeat(500), body: "😀".repeat(400) });
  assert.equal(Array.from(e.title).length, 200);
  assert.equal(Array.from(e.body).length, 120);
  assert.ok(e.body.endsWith("…"));
  const clean = pushEnvelope({ ...inbox, title: "a\u202Eb\u0007", body: "x\u200By" });
  assert.equal(clean.title, "ab");
  assert.equal(clean.body, "xy");
});
