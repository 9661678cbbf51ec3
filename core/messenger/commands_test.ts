// Chat commands through the gate and the command runner (spec 4.6, 5.7) against the test
// outpost's real SQLite store, scheduler and inbox service: the list verbs' replies, and
// that every answer to a high-risk item is held for the dashboard (approve, reject, revise
// and the free-text fall-through), while a medium-risk item is answered at once.

import assert from "node:assert/strict";
import { join } from "node:path";
import type { QuestionKind } from "../tools/types.ts";
import { makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";
import { haltWithQuestion, jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { CommandRunner } from "./commands.ts";
import { parseVerbs } from "./config.ts";
import { Gate } from "./gate.ts";
import { RoomTrust } from "./room_trust.ts";

const BASE = "http://outpost.test";
const ALICE = "@alice:test";
const BOT = "@bot:test";
const DM = "!dm:test";

async function chatKit() {
  const o = await makeTestOutpost({ baseUrl: BASE });
  const workspacesRoot = join(o.home, "workspaces");
  await Deno.mkdir(join(workspacesRoot, "app"), { recursive: true });
  const runner = new CommandRunner({
    store: o.store,
    scheduler: o.scheduler,
    inbox: o.deps.inbox,
    logger: o.logger,
    baseUrl: BASE,
    workspacesRoot,
    workdirPlaces: o.deps.workdirPlaces,
    clock: o.clock,
  });
  const { verbs, setting } = parseVerbs(undefined);
  const gate = new Gate({
    allowlist: new Set([ALICE]),
    verbs,
    verbsSetting: setting,
    // A DM: the bot and alice (layer 2 passes; room changes are bot_room_trust_test.ts's).
    rooms: new RoomTrust(
      () =>
        Promise.resolve([{ user_id: BOT, membership: "join" }, {
          user_id: ALICE,
          membership: "join",
        }]),
      new Set([ALICE]),
      BOT,
    ),
    runner,
    clock: o.clock,
    logger: o.logger,
  });
  let event = 0;
  const say = async (body: string) => {
    const reply = await gate.handle({ sender: ALICE, room: DM, event_id: `$e${++event}`, body });
    assert.ok(reply !== null, `no reply to ${body}`);
    return reply;
  };
  return { o, say };
}

/** A chat run that halts on one question of `kind`; resolves with its inbox item id. */
async function halt(o: TestOutpost, say: (b: string) => Promise<string>, kind: QuestionKind) {
  const ack = await say(`run app: needs ${kind}`);
  const runId = Number(/run (\d+)/.exec(ack)![1]);
  await haltWithQuestion(o, runId, kind);
  const item = o.store.listInbox({ state: "open", limit: 1 })[0]!;
  assert.equal(item.run_id, runId);
  return item.id;
}

Deno.test("list jobs and list schedules answer from the store: names, state, last run, next fire", async () => {
  const { o, say } = await chatKit();
  await using _ = o;
  assert.equal(await say("list jobs"), "No jobs.");
  assert.equal(await say("list schedules"), "No schedules.");
  const nightly = o.scheduler.createJob(jobInput({ name: "nightly tests" }));
  const deploy = o.scheduler.createJob(
    jobInput({ name: "deploy", schedule: { kind: "cron", expr: "0 6 * * *", tz: "UTC" } }),
  );
  o.scheduler.setEnabled(deploy.id, false, "paused for the test");
  // A chat one-shot: a job, not a schedule.
  const ack = await say("run app: tidy up");
  const [, oneShot, run] = /Submitted job (\d+), run (\d+)/.exec(ack)!.map(Number);
  const next = o.store.getJob(nightly.id)!.next_run_at;
  assert.ok(next);
  assert.equal(
    await say("list jobs"),
    [
      "Jobs:", // newest first
      `#${oneShot} chat run: tidy up — enabled, last run ${run} queued`,
      `#${deploy.id} deploy — disabled`,
      `#${nightly.id} nightly tests — enabled`,
    ].join("\n"),
  );
  assert.equal(
    await say("list schedules"),
    [
      "Schedules:",
      `#${deploy.id} deploy — cron 0 6 * * * UTC, paused`,
      `#${nightly.id} nightly tests — every 1h UTC, next ${next}`,
    ].join("\n"),
  );
  // Top 10, then how many more.
  for (let i = 0; i < 10; i++) o.scheduler.createJob(jobInput({ name: `extra ${i}` }));
  const long = (await say("list schedules")).split("\n");
  assert.equal(long.length, 1 + 10 + 1);
  assert.equal(long.at(-1), "(2 more)");
  assert.equal((await say("list jobs")).split("\n").at(-1), "(3 more)");
});

Deno.test("free text answering a high-risk item is held for the dashboard like approve; a medium one applies at once", async () => {
  const { o, say } = await chatKit();
  await using _ = o;
  // Halted first, so no resume run is queued while the next halt is spawned.
  const first = await halt(o, say, "proposal");
  const medium = await halt(o, say, "question");
  const latest = await halt(o, say, "approval");
  const runsOf = (id: number) => o.store.listRuns(o.store.getInboxItem(id)!.job_id).length;
  const before = [first, latest].map(runsOf);
  // Plain free text goes to the most recent open item; `N: text` names one. Both high risk.
  for (
    const [text, id, answer] of [
      ["yes, ship it", latest, "yes, ship it"],
      [`${first}: go ahead with the proposal`, first, "go ahead with the proposal"],
    ] as const
  ) {
    assert.match(
      await say(text),
      new RegExp(
        `^Item ${id} is high risk: your answer is held for dashboard confirmation until ` +
          `\\S+Z\\. Confirm it at ${BASE}/inbox/${id}$`,
      ),
    );
    const item = o.store.getInboxItem(id)!;
    assert.equal(item.state, "open");
    assert.equal(item.answer, null);
    const hold = o.deps.inbox.liveHold(item)!;
    assert.equal(hold.verb, "answer");
    assert.equal(hold.answer, answer);
    assert.equal(hold.sender, ALICE);
    assert.equal(hold.room, DM);
  }
  // Nothing resumed on the chat path; the dashboard confirm applies the held text.
  assert.deepEqual([first, latest].map(runsOf), before);
  assert.equal(o.store.listAudit({ action: "high_risk_hold" }).length, 2);
  assert.equal(
    o.deps.inbox.highRiskConfirm(first, "dashboard").item.answer,
    "go ahead with the proposal",
  );
  assert.equal(o.store.getInboxItem(first)!.state, "answered");
  // A medium-risk item (question) is answered at once.
  assert.match(await say(`${medium}: use port 8080`), new RegExp(`^Answered item ${medium};`));
  assert.equal(o.store.getInboxItem(medium)!.state, "answered");
  assert.equal(o.store.getInboxItem(medium)!.answer, "use port 8080");
  assert.equal(o.store.listAudit({ action: "high_risk_hold" }).length, 2);
});

Deno.test("high-risk reject and revise are held for the dashboard like approve; the item stays open", async () => {
  const { o, say } = await chatKit();
  await using _ = o;
  for (
    const [verb, command, answer] of [
      ["reject", (id: number) => `reject ${id} wrong branch`, "rejected: wrong branch"],
      ["revise", (id: number) => `revise ${id}: use the staging db`, "use the staging db"],
    ] as const
  ) {
    const id = await halt(o, say, "proposal");
    const job = o.store.getInboxItem(id)!.job_id;
    const runsBefore = o.store.listRuns(job).length;
    assert.match(
      await say(command(id)),
      new RegExp(
        `^Item ${id} is high risk: your ${verb} is held for dashboard confirmation until ` +
          `\\S+Z\\. Confirm it at ${BASE}/inbox/${id}$`,
      ),
    );
    const item = o.store.getInboxItem(id)!;
    assert.equal(item.state, "open");
    assert.equal(item.answer, null);
    const hold = o.deps.inbox.liveHold(item)!;
    assert.equal(hold.verb, verb);
    assert.equal(hold.answer, answer);
    assert.equal(hold.sender, ALICE);
    assert.equal(hold.room, DM);
    // Nothing resumed, nothing answered on the chat path.
    assert.equal(o.store.listRuns(job).length, runsBefore);
    assert.equal(o.store.listAudit({ action: `chat_${verb}` }).length, 0);
  }
  assert.equal(o.store.listAudit({ action: "high_risk_hold" }).length, 2);
});

Deno.test("chat audit rows are named by the verb, as the dashboard's are, with channel chat", async () => {
  const { o, say } = await chatKit();
  await using _ = o;
  // All halted first, so no resume run is queued while the next halt is spawned.
  const approved = await halt(o, say, "question");
  const answered = await halt(o, say, "elicitation");
  const onDashboard = await halt(o, say, "question");
  assert.match(await say(`approve ${approved} looks right`), /^Approved item/);
  assert.match(await say(`${answered}: port 8080`), /^Answered item/);
  o.deps.inbox.answer(onDashboard, "yes", {
    actor: "dashboard",
    via: "dashboard",
    channel: "dashboard",
  });
  const job = o.scheduler.createJob(jobInput({ name: "nightly" }));
  await say(`pause ${job.id}`);
  await say(`resume ${job.id}`);
  const chat = o.store.listAudit({ channel: "chat" });
  assert.deepEqual(chat.map((r) => r.action), [
    "resume",
    "pause",
    "answer",
    "approve",
    "run",
    "run",
    "run",
  ]);
  for (const row of chat) assert.equal(row.actor, ALICE);
  // Filtering by the verb finds every door's rows; the channel tells them apart.
  assert.deepEqual(
    o.store.listAudit({ action: "answer" }).map((r) => [r.target, r.channel]),
    [[`inbox:${onDashboard}`, "dashboard"], [`inbox:${answered}`, "chat"]],
  );
  assert.equal(o.store.listAudit({ action: "approve" })[0]!.channel, "chat");
  assert.equal(o.store.listAudit({ action: "chat_approve" }).length, 0);
});
