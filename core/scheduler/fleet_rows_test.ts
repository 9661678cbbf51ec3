// A fleet's tick on row locks (issue 32, docs/fleet.md "Fires"): each node locks the due jobs
// it fires (FOR UPDATE SKIP LOCKED, in bounded batches) instead of queueing behind one
// fleet-wide lock. A due job another transaction holds is skipped, not waited for and not
// fired; once released it fires once across the fleet; two nodes ticking at the same time fire
// each slot exactly once and both make progress. Real PostgreSQL (tests/pg_cluster.ts).

import assert from "node:assert/strict";
import { fleetNode } from "../../tests/fakes/fleet_node.ts";
import type { TickWorkerInit, TickWorkerReply } from "../../tests/fakes/fleet_tick_worker.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { peerTest, probes } from "../../tests/peers.ts";
import { freshDatabaseUrl } from "../../tests/pg_cluster.ts";
import { PgConnection } from "../store/pg/pg_connection.ts";
import { PgStore } from "../store/pg/pg_store.ts";
import { FIRE_BATCH } from "./fire.ts";

const SLOT = "2026-03-02T09:00:00Z";
const NEXT = "2026-03-02T10:00:00Z";

peerTest(
  "a tick fires every due job but the one another transaction holds, without waiting for it",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    // A tick that waited for the held row would give up after 5 s and fail the test.
    const opts = { timeoutMs: 5_000 };
    const [a, b] = [
      await fleetNode(url, "a", "2026-03-02T08:59:00Z", opts),
      await fleetNode(url, "b", "2026-03-02T08:59:00Z", opts),
    ];
    const other = new PgConnection({ url });
    try {
      const jobs = Array.from({ length: 5 }, (_, i) =>
        a.scheduler.createJob({
          name: `hourly ${i}`,
          prompt: "p",
          schedule: { kind: "cron", expr: "0 * * * *", tz: "UTC" },
          workdir: "/tmp",
        }));
      const held = jobs[2]!;
      // Another connection holds one due job's row in an open transaction (an edit under way).
      other.exec("START TRANSACTION");
      other.prepare("SELECT id FROM jobs WHERE id = ? FOR UPDATE").get(held.id);
      for (const n of [a, b]) n.clock.set(SLOT);
      await a.scheduler.tick();
      for (const job of jobs) {
        const slots = a.store.listRuns(job.id).map((r) => r.slot);
        assert.deepEqual(slots, job === held ? [] : [SLOT], `job ${job.name}`);
        assert.equal(a.store.getJob(job.id)!.next_run_at, job === held ? SLOT : NEXT);
      }
      // ABORT is PostgreSQL's ROLLBACK; PgConnection ends only transactions it began itself
      // (BEGIN), and this one began as a plain statement.
      other.exec("ABORT");
      // Released: both nodes tick; the slot fires once across the fleet.
      await Promise.all([a.scheduler.tick(), b.scheduler.tick()]);
      await b.scheduler.tick();
      assert.deepEqual(a.store.listRuns(held.id).map((r) => r.slot), [SLOT]);
      assert.equal(a.store.getJob(held.id)!.next_run_at, NEXT);
      for (const job of jobs) assert.equal(a.store.listRuns(job.id).length, 1, job.name);
    } finally {
      other.close();
      await a.close();
      await b.close();
    }
  },
);

/** A tick worker (tests/fakes/fleet_tick_worker.ts) and its replies, one at a time. */
function tickWorker(init: TickWorkerInit) {
  const worker = new Worker(new URL("../../tests/fakes/fleet_tick_worker.ts", import.meta.url), {
    type: "module",
  });
  const replies: TickWorkerReply[] = [];
  let wake: (() => void) | null = null;
  worker.onmessage = (e: MessageEvent<TickWorkerReply>) => {
    replies.push(e.data);
    wake?.();
  };
  worker.postMessage(init);
  return {
    go: () => worker.postMessage("go"),
    async next(): Promise<TickWorkerReply> {
      while (replies.length === 0) await new Promise<void>((r) => wake = r);
      const reply = replies.shift()!;
      if ("error" in reply) throw new Error(`tick worker ${init.id}: ${reply.error}`);
      return reply;
    },
    stop: () => worker.terminate(),
  };
}

peerTest(
  "two nodes ticking at the same time fire each slot exactly once, and both fire",
  probes.postgres,
  async () => {
    const url = freshDatabaseUrl();
    const n = FIRE_BATCH * 4; // several batches each: the nodes' locks must interleave
    const store = new PgStore({ url, clock: new FakeClock(SLOT), maxJobs: n });
    const workers: ReturnType<typeof tickWorker>[] = [];
    try {
      const ids = store.atomically(() =>
        Array.from({ length: n }, (_, i) =>
          store.createJob(newJobFixture({
            name: `hourly ${i}`,
            schedule: { kind: "cron", expr: "0 * * * *", tz: "UTC" },
            next_run_at: SLOT,
          })).id)
      );
      // Each job has a run in flight (a manual trigger), so every fire is a single-flight skip
      // row: a fire record per slot and no child to start.
      store.createRuns(ids.map((id) => ({
        job_id: id,
        status: "queued",
        attempt: 1,
        priority: 10,
        class: "scheduled",
      })));
      for (const id of ["a", "b"]) workers.push(tickWorker({ url, id, now: SLOT }));
      for (const w of workers) assert.deepEqual(await w.next(), { ready: true });
      for (const w of workers) w.go();
      const fired = [];
      for (const w of workers) fired.push(((await w.next()) as { fired: number }).fired);
      const rows = store.connection.prepare(
        `SELECT job_id, COUNT(*) AS fires FROM runs WHERE slot = ? GROUP BY job_id`,
      ).all(SLOT) as { job_id: number; fires: number }[];
      assert.equal(rows.length, n, "every job's slot fired");
      assert.deepEqual(rows.filter((r) => r.fires !== 1), [], "and each exactly once");
      assert.equal(fired[0]! + fired[1]!, n);
      assert.ok(fired[0]! > 0 && fired[1]! > 0, `both nodes fired: ${fired.join(" and ")}`);
      const moved = store.connection.prepare(
        "SELECT COUNT(*) AS n FROM jobs WHERE next_run_at = ?",
      ).get(NEXT) as { n: number };
      assert.equal(moved.n, n, "every schedule moved on once");
    } finally {
      for (const w of workers) w.stop();
      store.close();
    }
  },
);
