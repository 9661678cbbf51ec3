// The shared copy of a run's report and log (pg_run_files.ts): another node finds where a run
// ran and the copy; the running node itself is told nothing (it reads its own files); a run
// no node claimed has no place; and the copy goes with its run, so retention bounds the table.

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";
import { peerTest, probes } from "../../tests/peers.ts";
import { freshDatabaseUrl } from "../../tests/pg_cluster.ts";
import { MemoryLogger } from "../logger.ts";
import { systemClock } from "../ports.ts";
import { PgStore } from "../store/pg/pg_store.ts";
import { PgFleet } from "./pg_fleet.ts";
import { PgRunFiles } from "./pg_run_files.ts";

peerTest(
  "a run's copy is found by other nodes, not by its own, and leaves with its run",
  probes.postgres,
  async () => {
    const store = new PgStore({ url: freshDatabaseUrl(), clock: new FakeClock() });
    const fleet = new PgFleet(store, {
      nodeId: "n1",
      leaseS: 30,
      labels: [],
      maxRuns: null,
      clock: systemClock,
      logger: new MemoryLogger(),
      url: "http://n1.internal:7317/",
    });
    fleet.start();
    try {
      const files = new PgRunFiles(store);
      const job = store.createJob(newJobFixture());
      const queued = {
        status: "queued" as const,
        attempt: 1,
        priority: 10,
        class: "scheduled" as const,
      };
      const run = store.createRun({ job_id: job.id, ...queued });
      assert.equal(files.place(run.id, "n2"), null, "not claimed yet: nobody can say");
      assert.ok(fleet.claimRun(run));
      // Claimed and running: the other node learns where, with no copy yet.
      assert.deepEqual(files.place(run.id, "n2"), {
        node_id: "n1",
        url: "http://n1.internal:7317/",
        copy: null,
      });
      store.updateRun(run.id, { status: "error", finished_at: "2026-03-02T09:00:00Z" });
      const copy = { report: "# r", report_note: null, log: "boom", log_note: "The last 16 KiB." };
      files.keep(run.id, "n1", copy);
      files.keep(run.id, "n1", { ...copy, report: "# r2" }); // kept again: replaced, not added
      assert.deepEqual(files.place(run.id, "n2")?.copy, { ...copy, report: "# r2" });
      assert.equal(files.place(run.id, "n1"), null, "its own node reads its own files");
      // A copy of a run that is gone is not kept; the copy of a deleted run goes with it.
      files.keep(987_654, "n1", copy);
      store.deleteJob(job.id);
      const { n } = store.connection.prepare("SELECT COUNT(*) AS n FROM run_files").get()!;
      assert.equal(n, 0);
    } finally {
      await fleet.stop();
      store.close();
    }
  },
);
