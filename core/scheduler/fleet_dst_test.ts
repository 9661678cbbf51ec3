// The DST vectors on a fleet (issue 32): three schedulers, each with its own connection to one
// PostgreSQL database and its own claims and lease (PgFleet), tick at every minute of a
// daylight-saving change together. Each expected fire is recorded exactly once across the
// three (one run row per slot: a started run or a skip), and no other slot fires. The
// expected instants are those of schedule_vectors_test.ts (derived from the zones' rules).

import assert from "node:assert/strict";
import { fleetNode } from "../../tests/fakes/fleet_node.ts";
import { peerTest, probes } from "../../tests/peers.ts";
import { freshDatabaseUrl } from "../../tests/pg_cluster.ts";
import { isoZ } from "../time.ts";

const NY = "America/New_York";
/** cron, zone, the walk's window, and the fires expected in it (schedule_vectors_test.ts). */
const VECTORS = [
  {
    expr: "*/30 * * * *",
    tz: NY,
    fires: [
      "2026-11-01T05:00:00Z",
      "2026-11-01T05:30:00Z",
      "2026-11-01T07:00:00Z",
      "2026-11-01T07:30:00Z",
    ],
  },
  // 01:30 and 01:00 come twice on 2026-11-01: each fires at its first (EDT) pass only.
  { expr: "30 1 * * *", tz: NY, fires: ["2026-11-01T05:30:00Z"] },
  {
    expr: "0 * * * *",
    tz: NY,
    fires: ["2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z"],
  },
];
const FROM = "2026-11-01T04:50:00Z";
const UNTIL = "2026-11-01T07:45:00Z";

peerTest(
  "DST vectors on three nodes of one database: every fire exactly once across the fleet",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    const nodes = [
      await fleetNode(url, "n1", FROM),
      await fleetNode(url, "n2", FROM),
      await fleetNode(url, "n3", FROM),
    ];
    try {
      const jobs = VECTORS.map((v, i) =>
        nodes[i % 3]!.scheduler.createJob({
          name: `dst ${v.expr}`,
          prompt: "p",
          schedule: { kind: "cron", expr: v.expr, tz: v.tz },
          workdir: "/tmp",
        })
      );
      for (let t = Date.parse(FROM); t <= Date.parse(UNTIL); t += 60_000) {
        for (const n of nodes) n.clock.set(isoZ(new Date(t)));
        // The three tick together; their store calls interleave at every await.
        await Promise.all(nodes.map((n) => n.scheduler.tick()));
      }
      for (const [i, v] of VECTORS.entries()) {
        const runs = nodes[0]!.store.listRuns(jobs[i]!.id, { limit: 1000 });
        const slots = runs.map((r) => r.queued_at).sort();
        assert.deepEqual(slots, v.fires, `${v.expr} ${v.tz}`);
      }
      // Every node saw the same fleet-wide history.
      assert.deepEqual(
        nodes[2]!.store.listRuns(jobs[0]!.id).map((r) => r.id),
        nodes[0]!.store.listRuns(jobs[0]!.id).map((r) => r.id),
      );
    } finally {
      for (const n of nodes) await n.close();
    }
  },
);

peerTest(
  "a slot another node fires just before this node locks its due jobs is not fired again",
  probes.postgres,
  async () => {
    // One process cannot interleave two ticks (both are synchronous), so the other node's
    // fire is made to land exactly there: inside this node's tick transaction, before its
    // locking read of the due jobs. The other node's fire is a transaction on rows too (ticks
    // run side by side); a's `atomically` would wait for b's transaction to end.
    const url = freshDatabaseUrl();
    const start = "2026-03-02T08:59:00Z";
    const [a, b] = [await fleetNode(url, "a", start), await fleetNode(url, "b", start)];
    try {
      const job = a.scheduler.createJob({
        name: "hourly",
        prompt: "p",
        schedule: { kind: "cron", expr: "0 * * * *", tz: "UTC" },
        workdir: "/tmp",
      });
      const slot = job.next_run_at!;
      assert.equal(slot, "2026-03-02T09:00:00Z");
      const lock = b.store.lockDueJobs.bind(b.store);
      let raced = false;
      b.store.lockDueJobs = (...args) => {
        if (!raced) {
          raced = true; // node a fires the slot now, committed before b's locking read
          a.store.atomicallyOnRows(() => {
            a.store.createRun({
              job_id: job.id,
              status: "queued",
              attempt: 1,
              priority: 10,
              class: "scheduled",
              queued_at: slot,
              slot,
            });
            a.store.setNextRunAt(job.id, "2026-03-02T10:00:00Z");
          });
        }
        return lock(...args);
      };
      b.clock.set(slot);
      await b.scheduler.tick();
      assert.ok(raced);
      assert.deepEqual(b.store.listRuns(job.id).map((r) => r.queued_at), [slot], "one fire record");
      assert.equal(b.store.getJob(job.id)!.next_run_at, "2026-03-02T10:00:00Z");
    } finally {
      await a.close();
      await b.close();
    }
  },
);

peerTest(
  "a slot this node's governor refuses waits one tick for a node with room, then is skipped",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    const start = "2026-03-02T08:59:30Z";
    const opts = { runners: 1, exitAtOnce: false };
    const [a, b] = [await fleetNode(url, "a", start, opts), await fleetNode(url, "b", start, opts)];
    try {
      const hourly = (name: string) =>
        a.scheduler.createJob({
          name,
          prompt: "p",
          schedule: { kind: "cron", expr: "0 * * * *", tz: "UTC" },
          workdir: "/tmp",
        });
      const [j1, j2, j3] = [hourly("j1"), hourly("j2"), hourly("j3")];
      for (const n of [a, b]) n.clock.set("2026-03-02T09:00:00Z");
      await a.scheduler.tick(); // room for one: j1 starts here, j2 and j3 stay due
      assert.equal(a.store.listRuns(j1.id).length, 1);
      assert.equal(a.store.listRuns(j2.id).length, 0, "left due for the fleet, not skipped");
      await b.scheduler.tick(); // b has room for one: j2
      const r2 = b.store.listRuns(j2.id);
      assert.equal(r2.length, 1);
      assert.equal(b.fleet.owns(r2[0]!.id), true, "b runs it");
      assert.equal(b.store.listRuns(j3.id).length, 0);
      // A tick period later no node had room: the slot is skipped as on one box.
      for (const n of [a, b]) n.clock.set("2026-03-02T09:01:00Z");
      await a.scheduler.tick();
      const r3 = a.store.listRuns(j3.id);
      assert.equal(r3.length, 1);
      assert.equal(r3[0]!.status, "skipped");
      assert.match(r3[0]!.reason!, /^governor: /);
      assert.equal(a.store.getJob(j3.id)!.next_run_at, "2026-03-02T10:00:00Z");
    } finally {
      await a.close();
      await b.close();
    }
  },
);
