import assert from "node:assert/strict";
import { backoffMs } from "./bot.ts";
import { messageFor } from "./adapter.ts";
import type { DeliveryEvent } from "../delivery/types.ts";

Deno.test("sync backoff: 1 s, 2 s, 4 s … capped", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 40].map((n) => backoffMs(n, 1000, 60_000)),
    [1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000],
  );
});

const base = {
  title: "nightly",
  body: "",
  priority: "normal",
  at: "2026-03-02T09:00:00Z",
} as const;

Deno.test("a run report carries the title, a head of at most 1500 characters and the deep link", () => {
  const event: DeliveryEvent = {
    ...base,
    kind: "run_report",
    job_id: 3,
    run_id: 9,
    outcome: "ok",
    link: "/runs/3/9",
    body: "x".repeat(5000) + "\u202E",
  };
  const text = messageFor(event, "https://o.example/")!;
  const [title, , head, , link] = text.split("\n");
  assert.equal(title, "nightly");
  assert.equal(Array.from(head!).length, 1500);
  assert.equal(link, "https://o.example/runs/3/9");
});

Deno.test("a halt's run report and its needs_human alert are not posted (the item is)", () => {
  assert.equal(
    messageFor({
      ...base,
      kind: "run_report",
      job_id: 1,
      run_id: 1,
      outcome: "needs_human",
      link: "/runs/1/1",
    }, "x"),
    null,
  );
  assert.equal(messageFor({ ...base, kind: "alert", alert: "needs_human" }, "x"), null);
  const item = messageFor({
    ...base,
    kind: "inbox_item",
    item_id: 4,
    job_id: 1,
    run_id: 2,
    risk: "high",
    body: "Deploy?",
  }, "https://o.example");
  assert.match(item!, /Inbox item 4 \(job 1, run 2\):\nDeploy\?\nHigh risk/);
  assert.ok(item!.endsWith("https://o.example/inbox/4"));
});
