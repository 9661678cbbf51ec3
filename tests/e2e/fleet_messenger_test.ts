// The Matrix bot in a fleet, against a real Synapse (issue 32): of two outposts on one
// PostgreSQL with the same MX_* settings, exactly one syncs (it holds the bot's advisory
// lock); kill -9 that one and the other takes the lock over and syncs within a few lease
// rounds. Each node's messenger pill says which: its own sync, or "runs on the fleet node
// that holds its lock".

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { type Node, startFleet, waitFor } from "./fleet_kit.ts";
import { Synapse } from "./synapse_kit.ts";

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
