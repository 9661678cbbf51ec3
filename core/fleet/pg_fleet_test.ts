// Claims, leases, takeover and fencing of several outposts on one PostgreSQL (pg_fleet.ts),
// with two nodes in one process, each on its own connection, on a throwaway cluster.

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";
import { peerTest, probes } from "../../tests/peers.ts";
import { freshDatabaseUrl } from "../../tests/pg_cluster.ts";
import { MemoryLogger } from "../logger.ts";
import { systemClock } from "../ports.ts";
import { fleetSettings, PgFleet } from "./pg_fleet.ts";
import { PgStore } from "../store/pg/pg_store.ts";

function node(
  url: string,
  nodeId: string,
  extra: Partial<ConstructorParameters<typeof PgFleet>[1]> = {},
) {
  const store = new PgStore({ url, clock: new FakeClock("2026-03-02T09:00:00Z") });
  const fleet = new PgFleet(store, {
    nodeId,
    leaseS: 30,
    labels: [],
    maxRuns: null,
    clock: systemClock,
    logger: new MemoryLogger(),
    ...extra,
  });
  fleet.start();
  return {
    store,
    fleet,
    async [Symbol.asyncDispose]() {
      await fleet.stop();
      store.close();
    },
  };
}

const queued = { status: "queued" as const, attempt: 1, priority: 10, class: "scheduled" as const };

peerTest(
  "a queued run is claimed by exactly one node, which alone owns it",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    await using a = node(url, "a");
    await using b = node(url, "b");
    const job = a.store.createJob(newJobFixture({ name: "j" }));
    const run = a.store.createRun({ ...queued, job_id: job.id });
    assert.equal(a.fleet.claimRun(run), true);
    assert.equal(b.fleet.claimRun(run), false);
    assert.equal(a.fleet.claimRun(run), false, "a second claim changes nothing");
    assert.equal(a.fleet.owns(run.id), true);
    assert.equal(b.fleet.owns(run.id), false);
    assert.equal(b.fleet.adopt(run.id), false, "recovery never adopts another node's run");
    // A finished run cannot be claimed at all.
    const done = a.store.createRun({ ...queued, job_id: job.id, status: "ok" });
    assert.equal(b.fleet.claimRun(done), false);
  },
);

peerTest(
  "a lapsed lease: survivors mark its running run lost and release its queued one; the node fences itself",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    await using a = node(url, "a", { leaseS: 2 });
    await using b = node(url, "b", { leaseS: 30 });
    const job = a.store.createJob(newJobFixture({ name: "j" }));
    const other = a.store.createJob(newJobFixture({ name: "k" }));
    const running = a.store.createRun({ ...queued, job_id: job.id });
    const waiting = a.store.createRun({ ...queued, job_id: other.id });
    assert.ok(a.fleet.claimRun(running) && a.fleet.claimRun(waiting));
    a.store.updateRun(running.id, { status: "running", started_at: "2026-03-02T09:00:00Z" });
    const settled: [number, string][] = [];
    b.fleet.onLost = (run, cause) => settled.push([run.id, cause]);
    await a.fleet.stop(); // paused: no renewals from here on
    assert.deepEqual(b.fleet.sweep(), [], "nothing is taken over while the lease holds");
    await new Promise((r) => setTimeout(r, 2500));
    assert.deepEqual(b.fleet.sweep().sort(), [running.id, waiting.id].sort());
    const lost = b.store.getRun(running.id)!;
    assert.equal(lost.status, "lost");
    assert.match(lost.reason!, /node a stopped renewing its lease.*taken over by b/);
    assert.deepEqual(settled.map(([id]) => id), [running.id], "the retry rule is asked once");
    assert.equal(b.store.getRun(waiting.id)!.status, "queued");
    assert.equal(b.fleet.claimRun(b.store.getRun(waiting.id)!), true, "released for any node");
    // The paused node wakes: its renewal finds the lease lapsed and fences before anything else.
    let fenced = 0;
    a.fleet.onFence = () => fenced++;
    a.fleet.renew();
    assert.equal(fenced, 1);
    assert.equal(a.fleet.owns(running.id), false);
    assert.equal(b.store.getRun(running.id)!.status, "lost", "the takeover stands");
    const [na] = b.fleet.nodes().filter((n) => n.node_id === "a");
    assert.equal(na!.alive, true, "registered again under a new epoch");
    assert.equal(na!.fenced, 1);
  },
);

peerTest(
  "a lease close to lapsing claims nothing until it is renewed (the database was away)",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    await using a = node(url, "a");
    await using b = node(url, "b");
    const job = a.store.createJob(newJobFixture({ name: "j" }));
    const run = a.store.createRun({ ...queued, job_id: job.id });
    // Renewals failed during an outage: 2 s of a's 30 s lease are left, less than one renewal
    // interval (10 s), so a claim now would be fenced (and its run lost) before a's next renewal.
    a.store.connection.prepare(
      "UPDATE fleet_nodes SET lease_until = now() + interval '2 seconds' WHERE node_id = 'a'",
    ).run();
    assert.equal(a.fleet.claimRun(run), false, "too little lease left to start a run");
    a.fleet.renew();
    assert.equal(a.fleet.claimRun(run), true, "renewed: the run is a's");
    assert.equal(b.fleet.claimRun(run), false);
  },
);

peerTest(
  "a failed renewal is tried again within a second, not a whole interval later",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    const clock = new FakeClock("2026-03-02T09:00:00Z");
    await using a = node(url, "a", { leaseS: 30, clock });
    let calls = 0;
    let failing = true;
    const renew = a.fleet.renew.bind(a.fleet);
    a.fleet.renew = () => {
      calls++;
      if (failing) throw new Error("connection refused (the database is restarting)");
      renew();
    };
    await clock.advance(10_000); // the first renewal, a third of the lease: it fails
    assert.equal(calls, 1);
    assert.equal(a.fleet.counters.renewFailures, 1);
    failing = false;
    await clock.advance(1_000);
    assert.equal(calls, 2, "retried a second after the failure");
    await clock.advance(1_000);
    assert.equal(calls, 2, "back to renewing every third of the lease once it succeeded");
    await clock.advance(9_000);
    assert.equal(calls, 3);
  },
);

peerTest(
  "a pinned job runs only on a node with its label; the fleet-wide cap holds",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    await using plain = node(url, "plain", { maxRuns: 2 });
    await using gpu = node(url, "gpu", { labels: ["gpu"], maxRuns: 2 });
    const pinned = plain.store.createJob(newJobFixture({ name: "p", meta: { pin_label: "gpu" } }));
    const run = plain.store.createRun({ ...queued, job_id: pinned.id });
    assert.equal(plain.fleet.claimRun(run), false);
    assert.equal(gpu.fleet.claimRun(run), true);
    const free = plain.store.createJob(newJobFixture({ name: "f" }));
    const second = plain.store.createRun({ ...queued, job_id: free.id });
    const third = plain.store.createRun({ ...queued, job_id: free.id });
    assert.equal(plain.fleet.claimRun(second), true);
    assert.match(gpu.fleet.fleetHold()!, /fleet: 2 of 2 runs/);
    assert.equal(gpu.fleet.claimRun(third), false);
    assert.equal(plain.fleet.claimRun(third), false);
  },
);

Deno.test("fleet settings: defaults, and one clear line for each bad value", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.deepEqual(fleetSettings(env({}), "host:7317"), {
    nodeId: "host:7317",
    leaseS: 30,
    labels: [],
    maxRuns: null,
  });
  assert.deepEqual(
    fleetSettings(
      env({
        AGENT_OUTPOST_NODE_ID: "n1",
        AGENT_OUTPOST_LEASE_S: "10",
        AGENT_OUTPOST_NODE_LABELS: "gpu, big",
        AGENT_OUTPOST_FLEET_MAX_RUNS: "12",
      }),
      "x",
    ),
    { nodeId: "n1", leaseS: 10, labels: ["gpu", "big"], maxRuns: 12 },
  );
  assert.throws(
    () => fleetSettings(env({ AGENT_OUTPOST_LEASE_S: "0" }), "x"),
    /LEASE_S.*2\.\.3600/,
  );
  assert.throws(() => fleetSettings(env({ AGENT_OUTPOST_LEASE_S: "soon" }), "x"), /LEASE_S/);
  assert.throws(() => fleetSettings(env({ AGENT_OUTPOST_NODE_ID: "a b" }), "x"), /NODE_ID/);
  // A label no job could be pinned to (the rule of core/fleet/node_label.ts) stops the start.
  assert.throws(
    () => fleetSettings(env({ AGENT_OUTPOST_NODE_LABELS: "gpu, big disk" }), "x"),
    /^Error: AGENT_OUTPOST_NODE_LABELS: "big disk" is not a node label: 1 to 50 letters/,
  );
  assert.throws(() => fleetSettings(env({ AGENT_OUTPOST_FLEET_MAX_RUNS: "1.5" }), "x"), /MAX_RUNS/);
});
