// The Matrix bot in a fleet, against a real Synapse (issue 32): of two outposts on one
// PostgreSQL with the same MX_* settings, exactly one syncs (it holds the bot's advisory
// lock); kill -9 that one and the other takes the lock over and syncs within a few lease
// rounds. Each node's messenger pill says which: its own sync, or "runs on the fleet node
// that holds its lock". And of three nodes, "push fan-out and chat replies are sent once": a
// run that stops for a human, on the bot's node or on another, makes one notice in the room
// and one push to a subscribed device (a loopback push-service stand-in), and a command in the
// room gets one reply.

import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { startPushService } from "../fakes/push_service.ts";
import { peerTest, probes } from "../peers.ts";
import { type Fleet, type Node, startFleet, waitFor } from "./fleet_kit.ts";
import { type MatrixUser, Synapse } from "./synapse_kit.ts";

interface Pill {
  state: string;
  detail?: string;
  last_sync_at?: string;
}

async function pill(node: Node): Promise<Pill> {
  return (await node.api("GET", "api/messenger/status")).json;
}

const syncing = (p: Pill) => p.state === "ok" && p.last_sync_at !== undefined;
const elsewhere = (p: Pill) => /runs on the fleet node that holds its lock/.test(p.detail ?? "");
const both = () => probes.postgres() ?? probes.synapse();

peerTest(
  "the Matrix bot syncs on exactly one fleet node and moves when that node dies",
  both,
  async () => {
    await using synapse = await Synapse.start();
    const { alice, bot } = await synapse.users();
    const room = await alice.createRoom([bot.userId], "outpost");
    const fleet = await startFleet(["n1", "n2"], 3, {
      MX_HOMESERVER: synapse.url,
      MX_TOKEN: bot.token,
      MX_ROOM: room,
      MX_ALLOWLIST: alice.userId,
    });
    try {
      const pills = await waitFor(
        "one node to sync and the other to defer to it",
        () => Promise.all(fleet.nodes.map(pill)),
        (ps) => ps.filter(syncing).length === 1 && ps.filter(elsewhere).length === 1,
      );
      const leader = fleet.nodes[pills.findIndex(syncing)]!;
      const other = fleet.nodes.find((n) => n !== leader)!;
      leader.outpost.child.kill("SIGKILL");
      await leader.outpost.child.status;
      const taken = await waitFor(
        "the other node to take the bot over",
        () => pill(other),
        syncing,
      );
      assert.equal(taken.state, "ok");
      assert.ok(!elsewhere(taken));
    } finally {
      await fleet.close();
    }
  },
);

/** A P-256 VAPID key as a PKCS#8 PEM file (0600): every node signs with the same key. */
async function vapidKeyFile(dir: string): Promise<string> {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const path = `${dir}/vapid.pem`;
  await Deno.writeTextFile(path, privateKey.export({ type: "pkcs8", format: "pem" }) as string, {
    mode: 0o600,
  });
  return path;
}

/** Runs a job pinned to `node` (its label is its id) that stops for a human; its inbox item. */
async function haltOn(fleet: Fleet, node: Node, via: Node): Promise<number> {
  const created = await via.api("POST", "api/jobs", {
    name: `halts on ${node.id}`,
    prompt: "exit:2",
    schedule: { kind: "every", expr: "1d", tz: "UTC" },
    workdir: fleet.workdir,
    max_retries: 0,
    pin_label: node.id,
  });
  assert.equal(created.status, 201, created.text);
  const job = created.json.job.id;
  const run = (await via.api("POST", `api/jobs/${job}/trigger`)).json.run.id;
  const halted = await waitFor(
    `run ${run} to stop for a human`,
    async () => (await via.api("GET", `api/jobs/${job}/runs/${run}`)).json.run,
    (r) => r.status !== "queued" && r.status !== "running",
  );
  assert.equal(halted.status, "needs_human", JSON.stringify(halted));
  assert.ok(halted.report_path.startsWith(`${node.home}/`), "it ran on the pinned node");
  const inbox = (await via.api("GET", "api/inbox?state=open")).json.items;
  return inbox.find((i: { run_id: number }) => i.run_id === run).id;
}

/** The bot's messages in the room whose text matches `pattern`. */
async function botSaid(alice: MatrixUser, room: string, bot: string, pattern: RegExp) {
  return (await alice.history(room)).filter((m) => m.sender === bot && pattern.test(m.body));
}

peerTest(
  "three fleet nodes: a halted run's chat notice and push go out once, a command gets one reply",
  both,
  async () => {
    await using synapse = await Synapse.start();
    await using push = await startPushService();
    const { alice, bot } = await synapse.users();
    const room = await alice.createRoom([bot.userId], "outpost");
    const keys = await Deno.makeTempDir({ prefix: "fleet_vapid_" });
    const fleet = await startFleet([], 3, {
      MX_HOMESERVER: synapse.url,
      MX_TOKEN: bot.token,
      MX_ROOM: room,
      MX_ALLOWLIST: alice.userId,
      VAPID_PRIVATE_KEY_FILE: await vapidKeyFile(keys),
      AGENT_PUSH_ALLOW_LOOPBACK: "1",
    });
    try {
      // Each node offers its own id as a label, so a job can be sent to any one of them.
      for (const id of ["n1", "n2", "n3"]) {
        await fleet.start(id, undefined, { AGENT_OUTPOST_NODE_LABELS: id });
      }
      const pills = await waitFor(
        "one node to sync and the others to defer to it",
        () => Promise.all(fleet.nodes.map(pill)),
        (ps) => ps.filter(syncing).length === 1 && ps.filter(elsewhere).length === 2,
      );
      const leader = fleet.nodes[pills.findIndex(syncing)]!;
      const other = fleet.nodes.find((n) => n !== leader)!;
      const third = fleet.nodes.find((n) => n !== leader && n !== other)!;
      const subscribed = await third.api("POST", "api/push/subscribe", push.subscribe());
      assert.equal(subscribed.status, 201, subscribed.text);

      // A halt on a node without the bot, then one on the bot's node; asked through a third.
      const items = [await haltOn(fleet, other, third), await haltOn(fleet, leader, third)];
      for (const id of items) {
        await waitFor(
          `the notice of inbox item ${id} in the room`,
          () => botSaid(alice, room, bot.userId, new RegExp(`Inbox item ${id} `)),
          (said) => said.length > 0,
        );
        await waitFor(
          `the push of inbox item ${id}`,
          () => Promise.resolve(push.received.filter((r) => isInboxPush(r.payload, id))),
          (got) => got.length > 0,
        );
      }
      const asked = await alice.send(room, "status");
      assert.match((await alice.replyTo(room, asked)).body, /open inbox items?$/);
      // Several outbox passes and lease rounds later, nothing was sent a second time.
      await new Promise((r) => setTimeout(r, 4000));
      for (const id of items) {
        const said = await botSaid(alice, room, bot.userId, new RegExp(`Inbox item ${id} `));
        assert.equal(said.length, 1, `notices of item ${id}: ${JSON.stringify(said)}`);
        const pushed = push.received.filter((r) => isInboxPush(r.payload, id));
        assert.equal(pushed.length, 1, `pushes of item ${id}`);
      }
      const replies = (await alice.history(room)).filter((m) => m.reply_to === asked);
      assert.equal(replies.length, 1, JSON.stringify(replies));
      assert.deepEqual(push.rejected, []);
    } finally {
      await fleet.close();
      await Deno.remove(keys, { recursive: true });
    }
  },
);

function isInboxPush(payload: unknown, itemId: number): boolean {
  const p = payload as { type?: string; id?: number };
  return p.type === "inbox" && p.id === itemId;
}
