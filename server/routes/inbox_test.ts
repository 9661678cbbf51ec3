import assert from "node:assert/strict";
import type { FakeProcess } from "../../tests/fakes/spawner.ts";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import type { Question } from "../../core/tools/types.ts";
import {
  jsonOf as json,
  makeTestOutpost,
  type TestOutpost,
} from "../../tests/fakes/test_outpost.ts";

/** Triggers a strict job that halts with `questions`; returns the job and its open item. */
async function halt(t: TestOutpost, questions: Question[] | unknown[], session = "sess-42") {
  const job = t.scheduler.createJob(
    jobInput({ mode: "strict", name: `halts ${t.store.countJobs()}` }),
    { enabled: false },
  );
  const proc = await spawnOf(t, job.id);
  proc.exit(2, { session_id: session, questions: questions as Question[] });
  await t.scheduler.whenSettled(t.store.latestRun(job.id)!.id);
  const item = t.store.listInbox({ state: "open" }).find((i) => i.job_id === job.id)!;
  return { job, item };
}

/** Triggers the job and resolves with its child (other queued runs may start alongside). */
async function spawnOf(t: TestOutpost, jobId: number): Promise<FakeProcess> {
  const previous = t.spawner.onSpawn;
  const child = new Promise<FakeProcess>((resolve) => {
    t.spawner.onSpawn = (p) => {
      previous?.(p);
      if (p.req.env.AGENT_JOB_ID === String(jobId)) {
        t.spawner.onSpawn = previous;
        resolve(p);
      }
    };
  });
  t.scheduler.trigger(jobId);
  await t.scheduler.step();
  return await child;
}

const QUESTION: Question[] = [{ kind: "question", text: "Which release tag?" }];
const APPROVAL: Question[] = [{ kind: "approval", text: "Force-push main?" }];
const HOLD = { verb: "approve", answer: "approved", sender: "@op:hs", room: "!ops:hs" };

Deno.test("GET /api/inbox lists open items with live risk; state filter and bad input", async () => {
  await using t = await makeTestOutpost();
  const a = await halt(t, QUESTION);
  const b = await halt(t, APPROVAL);
  const list = await json(await t.app.request("/api/inbox"));
  assert.equal(list.open, 2);
  assert.deepEqual(list.items.map((i: { id: number }) => i.id), [b.item.id, a.item.id]);
  assert.deepEqual(list.items.map((i: { risk: string }) => i.risk), ["high", "medium"]);
  assert.equal(list.items[0].meta.risk, "high", "the funnel stamped meta.risk");
  assert.equal(list.items[0].hold, null);
  assert.equal("held_json" in list.items[0], false);
  const one = await json(await t.app.request(`/api/inbox/${a.item.id}`));
  assert.equal(one.item.questions[0].text, "Which release tag?");
  assert.equal((await t.app.request("/api/inbox/999")).status, 404);
  assert.equal((await t.app.request("/api/inbox?state=nope")).status, 400);
  t.deps.inbox.dismiss(a.item.id, { actor: "x", via: "dashboard", channel: "dashboard" });
  const dismissed = await json(await t.app.request("/api/inbox?state=dismissed"));
  assert.deepEqual(dismissed.items.map((i: { id: number }) => i.id), [a.item.id]);
  const all = await json(await t.app.request("/api/inbox?state=all"));
  assert.equal(all.items.length, 2);
});

Deno.test("POST answer resumes the halted run: --resume <session> and -- <answer> on the new child", async () => {
  await using t = await makeTestOutpost();
  const { job, item } = await halt(t, QUESTION, "sess-abc");
  const res = await t.request("POST", `/api/inbox/${item.id}/answer`, { answer: "--tag v2.1" });
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.item.state, "answered");
  assert.equal(body.item.answered_via, "dashboard");
  assert.equal(body.run.status, "queued");
  assert.equal(body.run.resume_of_run, item.run_id);
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  const args = child.req.args;
  assert.equal(args[args.indexOf("--resume") + 1], "sess-abc");
  assert.deepEqual(args.slice(-2), ["--", "--tag v2.1"]);
  child.exit(0, { session_id: "sess-abc" });
  await t.scheduler.idle();
  assert.equal(t.store.latestRun(job.id)!.status, "ok");
  const again = await t.request("POST", `/api/inbox/${item.id}/answer`, { answer: "x" });
  assert.equal(again.status, 409);
  assert.equal((await json(again)).error.code, "inbox_item_closed");
  assert.equal(t.store.listAudit({ action: "answer" }).length, 1);
});

Deno.test("POST answer: bad bodies are 400 naming the field and leave the item open", async () => {
  await using t = await makeTestOutpost();
  const { item } = await halt(t, QUESTION);
  const cases: [unknown, string][] = [
    [{}, "answer"],
    [{ answer: 5 }, "answer"],
    [{ answer: "" }, "answer"],
    [{ answer: "   " }, "answer"],
    [{ answer: "a\u0000b" }, "answer"],
    [{ answer: "x".repeat(32_001) }, "answer"],
    [{ answer: "ok", extra: 1 }, "extra"],
    ["[]", "body"],
    ["nope", "body"],
  ];
  for (const [body, field] of cases) {
    const res = await t.request("POST", `/api/inbox/${item.id}/answer`, body);
    assert.equal(res.status, 400, JSON.stringify(body).slice(0, 40));
    assert.equal((await json(res)).error.field, field);
  }
  assert.equal(t.store.getInboxItem(item.id)!.state, "open");
  assert.equal((await t.request("POST", "/api/inbox/999/answer", { answer: "x" })).status, 404);
});

Deno.test("POST dismiss closes the item with no resume; repeat is 409; a body with fields is 400", async () => {
  await using t = await makeTestOutpost();
  const { job, item } = await halt(t, QUESTION);
  const runs = t.store.listRuns(job.id).length;
  assert.equal((await t.request("POST", `/api/inbox/${item.id}/dismiss`, { why: 1 })).status, 400);
  const res = await t.request("POST", `/api/inbox/${item.id}/dismiss`);
  assert.equal(res.status, 200);
  assert.equal((await json(res)).item.state, "dismissed");
  assert.equal(t.store.listRuns(job.id).length, runs, "no resume run");
  assert.equal((await t.request("POST", `/api/inbox/${item.id}/dismiss`, {})).status, 409);
  assert.equal((await t.request("POST", "/api/inbox/999/dismiss")).status, 404);
});

Deno.test("high-risk-confirm: 409 without a hold, applies a live hold, 409 once the TTL passes", async () => {
  await using t = await makeTestOutpost({ holdTtlMs: 3_600_000 });
  const { item } = await halt(t, APPROVAL, "sess-hr");
  const none = await t.request("POST", `/api/inbox/${item.id}/high-risk-confirm`);
  assert.equal(none.status, 409);
  assert.equal((await json(none)).error.code, "no_live_hold");

  t.deps.inbox.hold(item.id, HOLD, "@op:hs");
  const held = await json(await t.app.request(`/api/inbox/${item.id}`));
  assert.equal(held.item.hold.verb, "approve");
  await t.clock.advance(3_600_000);
  const stale = await json(await t.app.request(`/api/inbox/${item.id}`));
  assert.equal(stale.item.hold, null, "a hold past the TTL reads as absent");
  const expired = await t.request("POST", `/api/inbox/${item.id}/high-risk-confirm`);
  assert.equal(expired.status, 409);
  assert.match((await json(expired)).error.message, /expired/);

  t.deps.inbox.hold(item.id, { ...HOLD, verb: "reject", answer: "rejected: not today" }, "@op:hs");
  const ok = await t.request("POST", `/api/inbox/${item.id}/high-risk-confirm`, undefined, {
    "X-Forwarded-User": "alice",
  });
  assert.equal(ok.status, 200);
  const body = await json(ok);
  assert.equal(body.room, "!ops:hs");
  assert.equal(body.item.answer, "rejected: not today");
  assert.equal(body.item.answered_via, "dashboard-high-risk-confirm");
  assert.equal(body.run.answer, "rejected: not today");
  const [row] = t.store.listAudit({ action: "high_risk_confirm" });
  assert.equal(row!.actor, "dashboard", "no identity header is trusted unless configured");
  assert.equal((await t.request("POST", `/api/inbox/${item.id}/high-risk-confirm`)).status, 409);
  assert.equal((await t.request("POST", "/api/inbox/999/high-risk-confirm")).status, 404);
});

Deno.test("the configured identity header becomes the audit actor", async () => {
  await using t = await makeTestOutpost({
    env: { AGENT_OUTPOST_TRUSTED_USER_HEADER: "X-Forwarded-User" },
  });
  const { item } = await halt(t, QUESTION);
  await t.request("POST", `/api/inbox/${item.id}/answer`, { answer: "yes" }, {
    "X-Forwarded-User": "alice",
  });
  assert.equal(t.store.listAudit({ action: "answer" })[0]!.actor, "user:alice");
});

Deno.test("push-action: approve and dismiss answer medium items; high risk 403; closed 409; bad action 400", async () => {
  await using t = await makeTestOutpost();
  const medium = await halt(t, QUESTION);
  const res = await t.request("POST", `/api/inbox/${medium.item.id}/push-action`, {
    action: "approve",
  });
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.item.answer, "approved");
  assert.equal(body.item.answered_via, "push-action");
  assert.ok(body.run);
  assert.equal(t.store.listAudit({ action: "push_approve" }).length, 1);
  const closed = await t.request("POST", `/api/inbox/${medium.item.id}/push-action`, {
    action: "dismiss",
  });
  assert.equal(closed.status, 409);

  const high = await halt(t, APPROVAL);
  const refused = await t.request("POST", `/api/inbox/${high.item.id}/push-action`, {
    action: "approve",
  });
  assert.equal(refused.status, 403);
  assert.equal((await json(refused)).error.code, "high_risk");
  assert.equal(t.store.getInboxItem(high.item.id)!.state, "open");

  const other = await halt(t, [{ kind: "elicitation", text: "Which?" }]);
  for (
    const [b, field] of [[{ action: "yes" }, "action"], [{}, "action"], [{
      action: "approve",
      x: 1,
    }, "x"]] as const
  ) {
    const r = await t.request("POST", `/api/inbox/${other.item.id}/push-action`, b);
    assert.equal(r.status, 400);
    assert.equal((await json(r)).error.field, field);
  }
  const d = await t.request("POST", `/api/inbox/${other.item.id}/push-action`, {
    action: "dismiss",
  });
  assert.equal((await json(d)).item.answer, "dismissed");
  assert.equal(t.store.listAudit({ action: "push_dismiss" }).length, 1);
  assert.equal(
    (await t.request("POST", "/api/inbox/999/push-action", { action: "approve" })).status,
    404,
  );
});

Deno.test("a failing audit write never breaks the operation (answer, job create, body read)", async () => {
  await using t = await makeTestOutpost();
  const { item } = await halt(t, QUESTION);
  t.store.appendAudit = () => {
    throw new Error("audit table is locked");
  };
  const res = await t.request("POST", `/api/inbox/${item.id}/answer`, { answer: "go" });
  assert.equal(res.status, 200);
  assert.equal(t.store.getInboxItem(item.id)!.state, "answered");
  assert.equal(
    (await t.request("POST", "/api/jobs", jobInput({ name: "still works" }))).status,
    201,
  );
  const memory = await t.deps.memory();
  memory.create("/memories/facts/a.md", "---\ncategory: project-fact\n---\nbody\n");
  assert.equal((await t.app.request("/api/memory/body?path=/memories/facts/a.md")).status, 200);
  const warnings = t.logger.entries.filter((e) => e.message.startsWith("audit write failed"));
  assert.deepEqual(warnings.map((w) => w.data!.action), ["answer", "job_create", "body_read"]);
});
