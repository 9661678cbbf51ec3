// The Matrix bot's role in a fleet (issue 32): exactly one node runs it, and when that node's
// session ends (it died) another node's next round takes the lock and starts its own; a chat
// notice emitted on any node is posted once, by the bot's node. Fake bots stand in for the
// messenger (the real bot and Synapse: tests/e2e/fleet_messenger_test.ts).

import assert from "node:assert/strict";
import { FakeClock } from "../tests/fakes/clock.ts";
import { peerTest, probes } from "../tests/peers.ts";
import { freshDatabaseUrl } from "../tests/pg_cluster.ts";
import { Delivery } from "../core/delivery/delivery.ts";
import type { InboxItemEvent } from "../core/delivery/types.ts";
import type { HoldConfirmation } from "../core/inbox/service.ts";
import type { InboxItem } from "../core/store/store.ts";
import { MemoryLogger } from "../core/logger.ts";
import { envFrom, systemClock } from "../core/ports.ts";
import { PgStore } from "../core/store/pg/pg_store.ts";
import { openFleetParts } from "./fleet_wiring.ts";
import { waitFor } from "../tests/e2e/fleet_kit.ts";

function node(url: string, id: string) {
  const store = new PgStore({ url, clock: new FakeClock() });
  const parts = openFleetParts(store, {
    env: envFrom({ AGENT_OUTPOST_NODE_ID: id, AGENT_OUTPOST_LEASE_S: "2" }),
    clock: systemClock,
    logger: new MemoryLogger(),
    baseUrl: "http://127.0.0.1:0",
    home: "/nonexistent", // no run finishes here: no report is ever read or copied
  });
  parts.fleet.start();
  const bot = { running: false, starts: 0, posted: [] as number[], replies: [] as string[] };
  // This node's inbox, as far as the fleet uses it: the hook its confirmations call.
  const inbox = {
    hook: null as ((c: HoldConfirmation) => void | Promise<void>) | null,
    setHoldConfirmedHook(fn: ((c: HoldConfirmation) => void | Promise<void>) | null) {
      inbox.hook = fn;
    },
  };
  // This node's delivery, where its scheduler and inbox emit events.
  const delivery = new Delivery({ clock: systemClock, logger: new MemoryLogger() });
  const handle = parts.leadMessenger((botDelivery) => {
    bot.running = true;
    bot.starts++;
    // The bot's adapter, as startMessenger registers it: what it is handed is posted.
    botDelivery.register({
      name: "matrix",
      send(event) {
        if (event.kind === "inbox_item") bot.posted.push(event.item_id);
        return Promise.resolve();
      },
    });
    return Promise.resolve({
      status: () => ({ state: "ok" as const, failures: 0 }),
      stop: () => {
        bot.running = false;
        return Promise.resolve();
      },
      post: (room: string, text: string) => {
        bot.replies.push(`${room} ${text}`);
        return Promise.resolve();
      },
    });
  }, { delivery, inbox });
  return { store, parts, bot, handle, delivery, inbox };
}

function confirmation(itemId: number): HoldConfirmation {
  const hold = {
    verb: "approve",
    answer: "approved",
    sender: "@alice:hs",
    room: "!room:hs",
    held_at: "2026-03-02T09:00:00Z",
  };
  return { item: { id: itemId, job_id: 1 } as InboxItem, run: null, hold, room: "!room:hs" };
}

function inboxEvent(itemId: number): InboxItemEvent {
  return {
    kind: "inbox_item",
    item_id: itemId,
    job_id: 1,
    run_id: itemId,
    risk: "medium",
    title: `job needs you ${itemId}`,
    body: "Which branch?",
    priority: "high",
    at: "2026-03-02T09:00:00Z",
  };
}

type TestNode = ReturnType<typeof node>;

/**
 * Waits until every node in `nodes` has renewed its lease `rounds` more times: each renewal
 * runs the bot-lock round, so "nothing changed meanwhile" is asserted over rounds that did
 * happen, not over a sleep that may have held fewer.
 */
async function leaseRounds(nodes: readonly TestNode[], rounds: number): Promise<void> {
  const from = nodes.map((n) => n.parts.fleet.counters.renewals);
  await waitFor(
    `${rounds} lease rounds on every node`,
    () => Promise.resolve(nodes.map((n, i) => n.parts.fleet.counters.renewals - from[i]!)),
    (done) => done.every((d) => d >= rounds),
  );
}

peerTest(
  "the Matrix bot runs on exactly one node and moves when that node dies",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    const a = node(url, "a");
    await waitFor("a to start its bot", () => Promise.resolve(a.bot.running), (r) => r);
    const b = node(url, "b");
    const c = node(url, "c");
    try {
      // Several rounds pass: the others never start theirs while a holds the lock.
      await leaseRounds([a, b, c], 3);
      assert.deepEqual([a.bot.running, b.bot.running, c.bot.running], [true, false, false]);
      assert.match(b.handle.status()!.detail!, /runs on the fleet node that holds its lock/);
      // a dies: its session ends and the lock with it.
      await a.parts.fleet.stop();
      a.store.close();
      await waitFor(
        "another node to take the bot over",
        () => Promise.resolve(b.bot.running || c.bot.running),
        (r) => r,
      );
      await leaseRounds([b, c], 3);
      assert.equal(Number(b.bot.running) + Number(c.bot.running), 1, "exactly one runs it");
    } finally {
      for (const n of [b, c]) {
        await n.handle.stop();
        await n.parts.fleet.stop();
        n.store.close();
      }
    }
  },
);

peerTest(
  "a chat notice emitted, or a hold confirmed, on any fleet node is posted once, by the bot's node",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    const nodes = [node(url, "a"), node(url, "b"), node(url, "c")];
    try {
      await waitFor(
        "one node to run the bot",
        () => Promise.resolve(nodes.filter((n) => n.bot.running).length),
        (count) => count === 1,
      );
      // Each node emits the event of an inbox item of its own (a run it ran halted).
      for (const [i, n] of nodes.entries()) await n.delivery.send(inboxEvent(i + 1));
      await waitFor(
        "the bot to post all three",
        () => Promise.resolve(nodes.flatMap((n) => n.bot.posted)),
        (posted) => posted.length >= 3,
      );
      // Four more lease rounds (a 2 s lease renews every 0.67 s: over two outbox passes of
      // 1 s): nothing is posted a second time.
      await leaseRounds(nodes, 4);
      const posted = nodes.flatMap((n) => n.bot.posted).sort();
      assert.deepEqual(posted, [1, 2, 3], "each notice once, none lost");
      const leader = nodes.find((n) => n.bot.running)!;
      assert.equal(leader.bot.posted.length, 3, "all posted by the bot's node");

      // A held chat command confirmed on another node's dashboard: one reply, by the bot.
      const other = nodes.find((n) => n !== leader)!;
      await other.inbox.hook!(confirmation(7));
      await waitFor(
        "the bot to reply to the confirmation",
        () => Promise.resolve(nodes.flatMap((n) => n.bot.replies)),
        (replies) => replies.length >= 1,
      );
      await leaseRounds(nodes, 3);
      assert.deepEqual(nodes.flatMap((n) => n.bot.replies), [
        "!room:hs Confirmed on the dashboard: approve on item 7 (held by @alice:hs) is applied.",
      ]);
      assert.equal(leader.bot.replies.length, 1);
    } finally {
      for (const n of nodes) {
        await n.handle.stop();
        await n.parts.fleet.stop();
        n.store.close();
      }
    }
  },
);
