import assert from "node:assert/strict";
import { MemoryLogger } from "../logger.ts";
import {
  haltedRecords,
  jobInput,
  type Kit,
  makeKit,
  tickAndSpawn,
} from "../../tests/fakes/scheduler_kit.ts";
import type { Question } from "../tools/types.ts";
import { InboxService } from "./service.ts";

const HOUR = 3_600_000;

/** A needs_human run with its inbox item, made by a real fire of a strict job. */
async function haltedByFire(kit: Kit, questions: unknown[], sessionId = "sess-1") {
  const job = kit.scheduler.createJob(jobInput({ mode: "strict" }));
  kit.clock.set(job.next_run_at!);
  const proc = await tickAndSpawn(kit);
  proc.exit(2, { session_id: sessionId, questions: questions as Question[] });
  await kit.scheduler.idle();
  const item = kit.store.listInbox({ state: "open" })[0]!;
  return { job, item, haltedRun: kit.store.getRun(item.run_id)! };
}

/** The same records written straight to the store (no scheduler step needed). */
function halted(kit: Kit, questions: unknown[], sessionId = "sess-1") {
  const { job, run, item } = haltedRecords(kit, questions as Question[], {
    job: { mode: "strict" },
    sessionId,
    meta: { risk: "medium" },
  });
  return { job, item, haltedRun: run };
}

function service(kit: Kit, ttlMs = HOUR, logger = kit.logger) {
  return new InboxService({
    store: kit.store,
    clock: kit.clock,
    logger,
    resumer: kit.scheduler,
    holdTtlMs: ttlMs,
  });
}

const QUESTION = [{ kind: "question", text: "Which tag?" }];
const APPROVAL = [{ kind: "approval", text: "Push to main?" }];
const HOLD = { verb: "approve", answer: "approved", sender: "@op:hs", room: "!room:hs" };

Deno.test("answer resumes the halted run: a new run continues the session with the answer", async () => {
  await using kit = await makeKit();
  const inbox = service(kit);
  const { item, haltedRun } = await haltedByFire(kit, QUESTION);
  const changes: string[] = [];
  inbox.on((c) => changes.push(`${c.change}:${c.item.id}`));
  const { item: answered, run } = inbox.answer(item.id, "v2.1", {
    actor: "dashboard",
    via: "dashboard",
    channel: "dashboard",
  });
  assert.equal(answered.state, "answered");
  assert.equal(answered.answer, "v2.1");
  assert.equal(answered.answered_via, "dashboard");
  assert.ok(run);
  assert.equal(run.resume_of_run, haltedRun.id);
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.step();
  const child = await spawned;
  assert.deepEqual(child.req.args.slice(0, 3), ["-p", "--resume", "sess-1"]);
  assert.deepEqual(child.req.args.slice(-2), ["--", "v2.1"]);
  child.exit(0);
  assert.equal(await kit.scheduler.whenSettled(run.id), "ok");
  const [row] = kit.store.listAudit({ action: "answer" });
  assert.equal(row!.target, `inbox:${item.id}`);
  assert.equal(row!.actor, "dashboard");
  assert.deepEqual(changes, [`answered:${item.id}`]);
  assert.throws(
    () => inbox.answer(item.id, "again", { actor: "x", via: "dashboard", channel: "dashboard" }),
    { name: "InboxStateError" },
  );
  assert.throws(
    () => inbox.answer(999, "x", { actor: "x", via: "dashboard", channel: "dashboard" }),
    {
      name: "NotFoundError",
    },
  );
});

Deno.test("answer with bad text is refused before anything changes", async () => {
  await using kit = await makeKit();
  const inbox = service(kit);
  const { item } = halted(kit, QUESTION);
  for (const bad of ["", "  ", "a\u0000b"]) {
    assert.throws(
      () => inbox.answer(item.id, bad, { actor: "x", via: "dashboard", channel: "dashboard" }),
      { name: "JobValidationError" },
    );
  }
  assert.equal(kit.store.getInboxItem(item.id)!.state, "open");
  assert.equal(kit.store.listAudit().length, 0);
});

Deno.test("dismiss closes the item and clears its hold without resuming", async () => {
  await using kit = await makeKit();
  const inbox = service(kit);
  const { job, item } = halted(kit, APPROVAL);
  inbox.hold(item.id, HOLD, "@op:hs");
  const runsBefore = kit.store.listRuns(job.id).length;
  const dismissed = inbox.dismiss(item.id, {
    actor: "dashboard",
    via: "dashboard",
    channel: "dashboard",
  });
  assert.equal(dismissed.state, "dismissed");
  assert.equal(dismissed.held_json, null);
  assert.equal(kit.store.listRuns(job.id).length, runsBefore);
  assert.equal(kit.store.listAudit({ action: "dismiss" }).length, 1);
  assert.throws(
    () => inbox.dismiss(item.id, { actor: "x", via: "dashboard", channel: "dashboard" }),
    {
      name: "InboxStateError",
    },
  );
});

Deno.test("holds: replace semantics, and a hold past the TTL reads as absent while its JSON stays", async () => {
  await using kit = await makeKit();
  const inbox = service(kit, 600_000); // 10 minutes
  const { item } = halted(kit, APPROVAL);
  inbox.hold(item.id, HOLD, "@op:hs");
  await kit.clock.advance(60_000);
  inbox.hold(item.id, { ...HOLD, verb: "reject", answer: "rejected: no" }, "@op2:hs");
  const view = inbox.get(item.id);
  assert.equal(view.hold!.verb, "reject");
  assert.equal(view.hold!.answer, "rejected: no");
  assert.equal(view.hold!.expires_at, "2026-03-02T09:11:00Z");
  assert.equal(view.risk, "high");
  assert.equal("held_json" in view, false);
  await kit.clock.advance(599_999);
  assert.ok(inbox.get(item.id).hold, "live one millisecond before the TTL");
  await kit.clock.advance(1);
  assert.equal(inbox.get(item.id).hold, null, "stale at the TTL");
  assert.ok(kit.store.getInboxItem(item.id)!.held_json, "stale JSON stays in the column");
  assert.equal(kit.store.listAudit({ action: "high_risk_hold" }).length, 2);
});

Deno.test("highRiskConfirm applies a live hold via answer + resume, audits, and hands the room to the hook", async () => {
  await using kit = await makeKit();
  const inbox = service(kit);
  const { item, haltedRun } = halted(kit, APPROVAL, "sess-7");
  const replies: string[] = [];
  const replied = new Promise<void>((resolve) =>
    inbox.setHoldConfirmedHook((c) => {
      replies.push(`${c.room} ${c.hold.verb} ${c.item.state}`);
      resolve();
    })
  );
  inbox.hold(item.id, HOLD, "@op:hs");
  const done = inbox.highRiskConfirm(item.id, "user:alice");
  assert.equal(done.room, "!room:hs");
  assert.equal(done.item.state, "answered");
  assert.equal(done.item.answer, "approved");
  assert.equal(done.item.answered_via, "dashboard-high-risk-confirm");
  assert.equal(done.item.held_json, null);
  assert.equal(done.run!.resume_of_run, haltedRun.id);
  assert.equal(done.run!.answer, "approved");
  await replied;
  assert.deepEqual(replies, ["!room:hs approve answered"]);
  const [row] = kit.store.listAudit({ action: "high_risk_confirm" });
  assert.equal(row!.actor, "user:alice");
  assert.equal(kit.store.listAudit({ action: "answer" }).length, 0, "one row per act");
  assert.throws(
    () => inbox.highRiskConfirm(item.id, "x"),
    { name: "NoLiveHoldError", reason: "closed" } as never,
  );
});

Deno.test("highRiskConfirm refuses without a hold, with an expired hold, and for an unknown item", async () => {
  await using kit = await makeKit();
  const inbox = service(kit, 1000);
  const { item } = halted(kit, APPROVAL);
  assert.throws(
    () => inbox.highRiskConfirm(item.id, "x"),
    { name: "NoLiveHoldError", reason: "none" } as never,
  );
  inbox.hold(item.id, HOLD, "@op:hs");
  await kit.clock.advance(1000);
  assert.throws(
    () => inbox.highRiskConfirm(item.id, "x"),
    { name: "NoLiveHoldError", reason: "expired" } as never,
  );
  kit.store.setHold(item.id, "{not json");
  assert.throws(
    () => inbox.highRiskConfirm(item.id, "x"),
    { name: "NoLiveHoldError", reason: "none" } as never,
  );
  assert.throws(() => inbox.highRiskConfirm(999, "x"), { name: "NotFoundError" });
  assert.equal(kit.store.getInboxItem(item.id)!.state, "open");
  assert.equal(kit.store.listAudit({ action: "high_risk_confirm" }).length, 0);
});

Deno.test("a failing confirmation hook is logged and does not undo the answer", async () => {
  await using kit = await makeKit();
  const logger = new MemoryLogger();
  const inbox = service(kit, HOUR, logger);
  const { item } = halted(kit, APPROVAL);
  let failed!: () => void;
  const seen = new Promise<void>((r) => (failed = r));
  inbox.setHoldConfirmedHook(() => {
    queueMicrotask(() => queueMicrotask(failed));
    throw new Error("matrix down");
  });
  inbox.hold(item.id, HOLD, "@op:hs");
  inbox.highRiskConfirm(item.id, "dashboard");
  await seen;
  await kit.clock.advance(0);
  assert.equal(kit.store.getInboxItem(item.id)!.state, "answered");
  assert.ok(logger.entries.some((e) => e.message === "hold confirmation reply failed"));
});

Deno.test("pushAction: medium items are answered approved / dismissed with resume and push audit rows", async () => {
  await using kit = await makeKit();
  const inbox = service(kit);
  const { item } = halted(kit, QUESTION);
  const { item: done, run } = inbox.pushAction(item.id, "approve", "push");
  assert.equal(done.answer, "approved");
  assert.equal(done.answered_via, "push-action");
  assert.ok(run);
  assert.equal(kit.store.listAudit({ action: "push_approve" }).length, 1);
  assert.throws(() => inbox.pushAction(item.id, "approve", "push"), { name: "InboxStateError" });

  const second = halted(kit, [{ kind: "elicitation", text: "Pick one", options: ["a", "b"] }]);
  const d = inbox.pushAction(second.item.id, "dismiss", "push");
  assert.equal(d.item.state, "answered");
  assert.equal(d.item.answer, "dismissed");
  assert.equal(kit.store.listAudit({ action: "push_dismiss" }).length, 1);
});

Deno.test("pushAction re-classifies the live item: high risk, missing or unknown kinds are refused", async () => {
  await using kit = await makeKit();
  const inbox = service(kit);
  for (const questions of [APPROVAL, [], [{ kind: "mystery", text: "?" }], [{ text: "no kind" }]]) {
    const { item } = halted(kit, questions);
    assert.equal(inbox.get(item.id).risk, "high");
    assert.throws(() => inbox.pushAction(item.id, "approve", "push"), { name: "HighRiskError" });
    assert.equal(kit.store.getInboxItem(item.id)!.state, "open");
    // Even when meta.risk was stamped medium, the live classifier decides.
    kit.store.dismissInbox(item.id, "test");
  }
  const { item } = halted(kit, QUESTION);
  for (const bad of ["yes", "", null, 1]) {
    assert.throws(
      () => inbox.pushAction(item.id, bad, "push"),
      { name: "InboxInputError", field: "action" } as never,
    );
  }
  assert.equal(kit.store.listAudit().filter((r) => r.action.startsWith("push_")).length, 0);
});

Deno.test("hold input is validated and only open items can be held", async () => {
  await using kit = await makeKit();
  const inbox = service(kit);
  const { item } = halted(kit, APPROVAL);
  assert.throws(
    () => inbox.hold(item.id, { ...HOLD, room: "" }, "x"),
    { name: "InboxInputError", field: "hold.room" } as never,
  );
  inbox.dismiss(item.id, { actor: "x", via: "dashboard", channel: "dashboard" });
  assert.throws(() => inbox.hold(item.id, HOLD, "x"), { name: "InboxStateError" });
});
