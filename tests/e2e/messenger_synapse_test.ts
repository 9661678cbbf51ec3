// The Matrix bot against a real Synapse (one homeserver for the whole file, started in the
// first step): operators drive it through the client-server API; every verb, each gate
// layer, a high-risk hold confirmed from the dashboard, run reports and alerts, and the pill
// going to error when Synapse stops and back to ok when it returns. The outpost is the
// in-process test outpost (fake clock for rate limits and holds, fake child processes); the
// real agent-outpost process with its bot: outpost_matrix_process_test.ts.

import assert from "node:assert/strict";
import { join } from "node:path";
import { alertEvent } from "../../core/delivery/events.ts";
import { parseVerbs } from "../../core/messenger/config.ts";
import { envFrom, systemClock } from "../../core/ports.ts";
import type { QuestionKind } from "../../core/tools/types.ts";
import { messengerStatus } from "../../server/http/status.ts";
import { jsonOf, makeTestOutpost } from "../fakes/test_outpost.ts";
import { startMessenger } from "../../server/messenger/start.ts";
import { haltWithQuestion, jobInput, tickAndSpawn } from "../fakes/scheduler_kit.ts";
import { peerTest, probes } from "../peers.ts";
import { MatrixUser, Synapse } from "./synapse_kit.ts";

const BASE = "http://outpost.test";

peerTest("the Matrix bot against a real Synapse", probes.synapse, async (t) => {
  await using synapse = await Synapse.start();
  const { alice, bob, stranger, bot } = await synapse.users();
  await using o = await makeTestOutpost({ baseUrl: BASE });
  const workspaces = join(o.home, "workspaces");
  await Deno.mkdir(join(workspaces, "ranger"), { recursive: true });
  await Deno.mkdir(join(workspaces, "app"), { recursive: true });

  // Rooms: alice's DM with the bot, the default room (MX_ROOM), a room of two operators.
  const dm = await alice.createRoom([bot.userId], "dm");
  const defaultRoom = await alice.createRoom([bot.userId, bob.userId], "outpost");
  await bob.join(defaultRoom);
  const opsRoom = await bob.createRoom([bot.userId, alice.userId], "ops");
  await alice.join(opsRoom);

  const { verbs, setting } = parseVerbs(undefined);
  const messenger = await startMessenger({
    config: {
      homeserver: synapse.url,
      token: bot.token,
      room: defaultRoom,
      allowlist: new Set([alice.userId, bob.userId]),
      verbs,
      verbsSetting: setting,
    },
    store: o.store,
    scheduler: o.scheduler,
    inbox: o.deps.inbox,
    delivery: o.delivery,
    clock: o.clock,
    timers: systemClock,
    logger: o.logger,
    fetch: globalThis.fetch,
    publish: o.deps.publishGate,
    baseUrl: BASE,
    workspacesRoot: workspaces,
    workdirPlaces: o.deps.workdirPlaces,
    backoffBaseMs: 200,
    backoffCapMs: 800,
  });
  // The pill as openOutpost wires it: the env's MX_* plus the running bot's report.
  const mxEnv: Record<string, string> = {
    MX_HOMESERVER: synapse.url,
    MX_TOKEN: bot.token,
    MX_ROOM: defaultRoom,
    MX_ALLOWLIST: `${alice.userId},${bob.userId}`,
  };
  o.deps.messengerStatus = () => messengerStatus(envFrom(mxEnv), messenger.status());
  try {
    const room = dm;
    const say = (text: string, who: MatrixUser = alice, where = room) => who.command(where, text);
    const nextMinute = () => o.clock.advance(61_000);

    await t.step("auto-joins every room it is invited to, and the pill reads ok", async () => {
      await alice.waitForJoin(dm, bot.userId);
      await alice.waitForJoin(defaultRoom, bot.userId);
      await alice.waitForJoin(opsRoom, bot.userId);
      while (messenger.status().state !== "ok") await messenger.bot.changed();
      const status = await jsonOf(await o.request("GET", "/api/messenger/status"));
      assert.equal(status.state, "ok");
      assert.equal(status.allowlist_size, 2);
      assert.deepEqual(status.missing, []);
    });

    await t.step("help and status", async () => {
      assert.match(await say("help"), /^Commands/);
      assert.match(await say("  STATUS "), /no runs yet \| 0 open inbox items/);
    });

    await t.step("a stranger is ignored silently and logged once", async () => {
      // The stranger's room has alice in it too: her command there is read after the
      // stranger's (one room's timeline is read in order, and the bot answers one message at
      // a time), so her reply proves the bot fetched and passed over the stranger's messages.
      const own = await stranger.createRoom([bot.userId, alice.userId], "stranger");
      await alice.join(own);
      await stranger.waitForJoin(own, bot.userId);
      await stranger.waitForJoin(own, alice.userId);
      const ignored = [await stranger.send(own, "status"), await stranger.send(own, "list jobs")];
      const asked = await alice.send(own, "status");
      // A stranger in the room makes it untrusted for alice: refused, but answered.
      assert.match((await alice.replyTo(own, asked)).body, /^refused \[untrusted_room\]/);
      const history = await alice.history(own);
      assert.deepEqual(
        history.filter((m) => m.sender !== bot.userId).map((m) => m.event_id),
        [...ignored, asked],
      );
      // The bot's only message in the room is its reply to alice.
      assert.deepEqual(
        history.filter((m) => m.sender === bot.userId).map((m) => m.reply_to),
        [asked],
      );
      const logged = o.logger.entries.filter((e) =>
        e.message.includes("not on MX_ALLOWLIST") && e.data?.sender === stranger.userId
      );
      assert.equal(logged.length, 1);
    });

    await t.step("a room with a non-operator member refuses every command", async () => {
      const mixed = await alice.createRoom([bot.userId, stranger.userId], "mixed");
      await stranger.join(mixed);
      await alice.waitForJoin(mixed, bot.userId);
      await alice.waitForJoin(mixed, stranger.userId);
      assert.match(await say("status", alice, mixed), /^refused \[untrusted_room\]/);
      assert.match(await say("pause 1", alice, mixed), /^refused \[untrusted_room\]/);
      // A room of operators only is trusted.
      assert.match(await say("status", bob, opsRoom), /open inbox items?$/);
    });

    await t.step("typo'd ids and bad shapes get friendly replies", async () => {
      await nextMinute();
      assert.match(
        await say("approve 4242"),
        /^refused \[no_such_item\]: there is no inbox item 4242/,
      );
      assert.match(await say("dismiss 4243"), /^refused \[no_such_item\]/);
      assert.match(await say("pause 777"), /^refused \[no_such_job\]: there is no job 777/);
      assert.match(await say("stop 778"), /^refused \[no_such_job\]/);
      assert.match(await say("approve abc"), /^refused \[usage\]: usage: approve <item> \[note\]/);
      assert.match(await say("ask"), /^refused \[usage\]: usage: ask <question>/);
      assert.match(await say("run nowhere: hello"), /^refused \[no_such_workspace\]/);
      assert.match(await say("4244: yes"), /^refused \[no_such_item\]/);
    });

    await t.step("rate limits: 5 a minute per target, 30 a minute per sender", async () => {
      await nextMinute();
      for (let i = 0; i < 5; i++) assert.match(await say("stop 900"), /no_such_job/);
      assert.match(
        await say("stop 900"),
        /^refused \[rate_limited\]: 5 commands a minute per target/,
      );
      await nextMinute();
      for (let i = 0; i < 30; i++) assert.match(await say("status"), /open inbox items?$/);
      assert.match(
        await say("status"),
        /^refused \[rate_limited\]: 30 commands a minute per operator/,
      );
      // bob has his own window
      assert.match(await say("status", bob, opsRoom), /open inbox items?$/);
      await nextMinute();
    });

    await t.step("an unrecognized verb with no open item does nothing visible", async () => {
      await alice.send(room, "hello bot, anyone home?");
      assert.match(await say("list"), /No open inbox items/);
      await assert.rejects(
        alice.waitFor(room, (m) => m.sender === bot.userId, 1),
        /no matching message/,
      );
    });

    await t.step(
      "run acks with job and run numbers, then the report lands in the room",
      async () => {
        const ack = await say("run app: tidy the changelog");
        const m = /Submitted job (\d+), run (\d+) \(workspace app\)/.exec(ack);
        assert.ok(m, ack);
        const [jobId, runId] = [Number(m[1]), Number(m[2])];
        const job = o.store.getJob(jobId)!;
        assert.equal(job.workdir, await Deno.realPath(join(workspaces, "app")));
        assert.equal(job.output_surface, "messenger");
        assert.equal(job.meta.room, room);
        assert.equal(job.meta.submitted_by, alice.userId);
        const proc = await tickAndSpawn(o);
        proc.exit(0, { outcome: "ok", final_text: "Changelog tidied: 3 entries merged." });
        await o.scheduler.whenSettled(runId);
        const report = await alice.waitFor(room, (x) => x.body.includes(`(run ${runId})`));
        assert.match(report.body, /finished/);
        assert.match(report.body, /Changelog tidied/);
        assert.ok(report.body.endsWith(`${BASE}/runs/${jobId}/${runId}`), report.body);
        const rows = o.store.listAudit({ action: "run", channel: "chat" });
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.actor, alice.userId);
      },
    );

    await t.step("ask is run in the ranger workspace", async () => {
      const ack = await say("ask which jobs failed today?");
      const m = /Submitted job (\d+), run (\d+) \(workspace ranger\)/.exec(ack);
      assert.ok(m, ack);
      const job = o.store.getJob(Number(m[1]))!;
      assert.equal(job.workdir, await Deno.realPath(join(workspaces, "ranger")));
      assert.equal(job.prompt, "which jobs failed today?");
      const proc = await tickAndSpawn(o);
      proc.exit(0, { outcome: "ok", final_text: "none" });
      await o.scheduler.whenSettled(Number(m[2]));
      await alice.waitFor(room, (x) => x.body.includes(`(run ${m[2]})`));
    });

    /** Runs every queued run (the resume runs answers queue) to an ok end, one by one. */
    const finishQueued = async () => {
      while (o.store.queuedRuns().length > 0) {
        const p = await tickAndSpawn(o);
        p.exit(0, { outcome: "ok", final_text: "resumed and done" });
        await o.scheduler.idle();
      }
    };

    /** Submits a chat run that halts with `questions`; returns the inbox item id. */
    const halt = async (kind: QuestionKind, where = room, who = alice) => {
      const ack = await say(`run app: needs ${kind}`, who, where);
      const runId = Number(/run (\d+)/.exec(ack)![1]);
      await haltWithQuestion(o, runId, kind);
      const note = await who.waitFor(where, (x) => x.body.includes(`(${kind})?`));
      const id = Number(/Inbox item (\d+)/.exec(note.body)![1]);
      assert.ok(note.body.includes(`${BASE}/inbox/${id}`), note.body);
      return id;
    };

    await t.step(
      "approve, reject, revise, dismiss and free text on medium-risk items",
      async () => {
        await nextMinute();
        let id = await halt("question");
        assert.match(
          await say(`approve ${id} looks good`),
          new RegExp(`^Approved item ${id}; the run resumes as run \\d+`),
        );
        assert.equal(o.store.getInboxItem(id)!.answer, "approved: looks good");
        await finishQueued();
        assert.match(await say(`approve ${id}`), /^refused \[item_closed\]/);
        id = await halt("question");
        assert.match(await say(`reject ${id}: wrong branch`), /^Rejected item/);
        assert.equal(o.store.getInboxItem(id)!.answer, "rejected: wrong branch");
        await finishQueued();
        await nextMinute();
        id = await halt("elicitation");
        assert.match(await say(`revise ${id}: use main instead`), /^Revised item/);
        assert.equal(o.store.getInboxItem(id)!.answer, "use main instead");
        await finishQueued();
        id = await halt("question");
        assert.match(await say(`dismiss ${id}`), /^Dismissed item/);
        assert.equal(o.store.getInboxItem(id)!.state, "dismissed");
        await nextMinute();
        id = await halt("question");
        assert.match(await say("yes, the staging one"), new RegExp(`^Answered item ${id}`));
        assert.equal(o.store.getInboxItem(id)!.answer, "yes, the staging one");
        await finishQueued();
        const a = await halt("question");
        await halt("question");
        assert.match(await say(`${a}: the first one`), new RegExp(`^Answered item ${a}`));
        assert.equal(o.store.getInboxItem(a)!.answer, "the first one");
        await finishQueued();
        for (const action of ["approve", "reject", "revise", "dismiss"]) {
          assert.equal(o.store.listAudit({ action, channel: "chat" }).length, 1, action);
        }
        assert.equal(o.store.listAudit({ action: "answer", channel: "chat" }).length, 2);
        assert.match(await say("list"), /Open inbox items:\n#\d+ \(job \d+, medium risk\)/);
        await nextMinute();
      },
    );

    await t.step(
      "a high-risk approve is held; the dashboard confirm replies in its room",
      async () => {
        const id = await halt("approval", opsRoom, bob);
        const reply = await say(`approve ${id}`, bob, opsRoom);
        assert.match(
          reply,
          new RegExp(
            `^Item ${id} is high risk: your approve is held for dashboard confirmation until \\S+Z\\. Confirm it at ${BASE}/inbox/${id}$`,
          ),
        );
        assert.equal(o.store.getInboxItem(id)!.state, "open");
        const view = await jsonOf(await o.request("GET", `/api/inbox/${id}`));
        const hold = view.hold ?? view.item?.hold;
        assert.equal(hold.sender, bob.userId);
        assert.equal(hold.room, opsRoom);
        assert.equal(hold.verb, "approve");
        assert.ok(hold.expires_at);
        assert.equal(o.store.listAudit({ action: "high_risk_hold" }).length, 1);
        const res = await o.request("POST", `/api/inbox/${id}/high-risk-confirm`);
        assert.equal(res.status, 200);
        const note = await bob.waitFor(
          opsRoom,
          (m) => m.body.startsWith("Confirmed on the dashboard"),
        );
        assert.match(
          note.body,
          new RegExp(`approve on item ${id} \\(held by ${bob.userId}\\) is applied`),
        );
        assert.equal(o.store.getInboxItem(id)!.answer, "approved");
        await finishQueued();
        await nextMinute();
      },
    );

    await t.step("pause, resume and stop touch only the job", async () => {
      const job = o.scheduler.createJob(
        jobInput({ workdir: workspaces, output_surface: "messenger" }),
      );
      assert.match(
        await say(`pause ${job.id}`),
        new RegExp(`^Paused job ${job.id}; no run was touched`),
      );
      assert.equal(o.store.getJob(job.id)!.enabled, false);
      assert.match(await say(`resume ${job.id}`), new RegExp(`^Resumed job ${job.id}`));
      assert.equal(o.store.getJob(job.id)!.enabled, true);
      assert.match(await say(`stop ${job.id}`), /already finished/);
      o.scheduler.trigger(job.id);
      const proc = await tickAndSpawn(o);
      const stopReply = await say(`stop ${job.id}`);
      assert.match(stopReply, /^Stopped run \d+ of job \d+ \(process group killed\)/);
      assert.equal(proc.killed, true);
      assert.deepEqual(
        ["pause", "resume", "stop"].map((a) =>
          o.store.listAudit({ action: a, channel: "chat" }).length
        ),
        [1, 1, 1],
      );
      // A scheduled messenger job's report goes to MX_ROOM.
      o.scheduler.trigger(job.id);
      const p2 = await tickAndSpawn(o);
      p2.exit(0, { outcome: "ok", final_text: "nightly summary" });
      await o.scheduler.idle();
      const report = await alice.waitFor(defaultRoom, (m) => m.body.includes("nightly summary"));
      assert.match(report.body, /^nightly finished/);
      await nextMinute();
    });

    await t.step("alerts go to MX_ROOM", async () => {
      const job = o.store.listJobs()[0]!;
      await o.delivery.send(
        alertEvent("dead_letter", job, "4 consecutive failures", "2026-03-02T09:00:00Z"),
      );
      const m = await alice.waitFor(defaultRoom, (x) => x.body.startsWith("Alert:"));
      assert.match(m.body, /disabled after repeated failures\n4 consecutive failures/);
    });

    await t.step(
      "the pill goes to error when Synapse stops and back to ok when it returns",
      async () => {
        await synapse.pause();

        while (messenger.status().state !== "error") await messenger.bot.changed();
        const down = messenger.status();
        assert.ok(down.detail && down.detail !== "connecting", JSON.stringify(down));
        assert.ok(down.next_retry_at);
        const pill = await jsonOf(await o.request("GET", "/api/messenger/status"));
        assert.equal(pill.state, "error");
        assert.ok(pill.detail);
        assert.ok(pill.next_retry_at);

        await synapse.resume();

        while (messenger.status().state !== "ok") await messenger.bot.changed();
        assert.match(await say("status"), /open inbox items?$/);
      },
    );
  } finally {
    await messenger.stop();
  }
});
