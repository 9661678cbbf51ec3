// The Matrix bot's role in a fleet (issue 32): exactly one node runs it, and when that node's
// session ends (it died) another node's next round takes the lock and starts its own.
// Fake bots stand in for the messenger (the real bot and Synapse: not covered here).

import assert from "node:assert/strict";
import { FakeClock } from "../tests/fakes/clock.ts";
import { peerTest, probes } from "../tests/peers.ts";
import { freshDatabaseUrl } from "../tests/pg_cluster.ts";
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
  const bot = { running: false, starts: 0 };
  const handle = parts.leadMessenger(() => {
    bot.running = true;
    bot.starts++;
    return Promise.resolve({
      status: () => ({ state: "ok" as const, failures: 0 }),
      stop: () => {
        bot.running = false;
        return Promise.resolve();
      },
    });
  });
  return { store, parts, bot, handle };
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
      await new Promise((r) => setTimeout(r, 1500));
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
      await new Promise((r) => setTimeout(r, 1500));
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
