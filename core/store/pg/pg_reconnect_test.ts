// The shared PostgreSQL store across a lost server (core/store/README.md, "A lost server"),
// against the test cluster restarted for real: a transaction whose session is lost before
// COMMIT runs again and commits once; a COMMIT whose reply is lost is settled by asking the
// server, not repeated; a write made while the server restarts lands once it is back; a
// server that stays down gives one clear error within the bound. PostgreSQL only: SQLite has
// no server to lose.

import assert from "node:assert/strict";
import { FakeClock } from "../../../tests/fakes/clock.ts";
import { newJobFixture } from "../../../tests/fakes/job_fixture.ts";
import { peerTest, probes } from "../../../tests/peers.ts";
import { freshDatabaseUrl, pgCluster } from "../../../tests/pg_cluster.ts";
import { StoreUnavailableError } from "../errors.ts";
import type { SqlStore } from "../sql_store.ts";
import { PgStore } from "./pg_store.ts";

function openStore(url = freshDatabaseUrl(), retryWithinMs?: number): PgStore {
  return new PgStore({
    url,
    clock: new FakeClock("2026-03-02T00:00:00Z"),
    ...(retryWithinMs ? { retryWithinMs } : {}),
  });
}

function newRun(store: SqlStore, jobId: number) {
  return store.createRun({
    job_id: jobId,
    status: "running",
    attempt: 1,
    priority: 10,
    class: "scheduled",
  });
}

peerTest(
  "a restart between two statements of a transaction: it runs again and commits once",
  probes.postgres,
  // deno-lint-ignore require-await
  async () => {
    const store = openStore();
    try {
      let calls = 0;
      const job = store.atomically(() => {
        calls++;
        const job = store.createJob(newJobFixture({ name: `attempt ${calls}` }));
        if (calls === 1) {
          const cluster = pgCluster();
          cluster.stop();
          cluster.start(); // back at once: the next statement would find a new session
        }
        newRun(store, job.id);
        return job;
      });
      assert.equal(calls, 2, "the lost attempt ran again");
      assert.equal(job.name, "attempt 2");
      // Committed once: the first attempt left nothing, the second everything.
      assert.deepEqual(store.listJobs().map((j) => j.name), ["attempt 2"]);
      assert.equal(store.listRuns(job.id).length, 1);
    } finally {
      store.close();
    }
  },
);

peerTest(
  "a transaction in flight while the server is down waits for it and commits once",
  probes.postgres,
  async () => {
    const store = openStore();
    try {
      let calls = 0;
      let back: Promise<void> | null = null;
      const job = store.atomically(() => {
        calls++;
        const job = store.createJob(newJobFixture({ name: `attempt ${calls}` }));
        if (calls === 1) {
          pgCluster().stop();
          back = pgCluster().startInBackground(); // comes back while this thread waits
        }
        newRun(store, job.id);
        return job;
      });
      await back;
      assert.ok(calls >= 2, `ran again after the restart (${calls} calls)`);
      assert.deepEqual(store.listJobs().map((j) => j.id), [job.id]);
      assert.equal(store.listRuns(job.id).length, 1);
    } finally {
      store.close();
    }
  },
);

peerTest(
  "an outcome written while the server restarts is there once it is back",
  probes.postgres,
  async () => {
    const store = openStore();
    try {
      const job = store.createJob(newJobFixture());
      const run = newRun(store, job.id);
      pgCluster().stop();
      const back = pgCluster().startInBackground();
      // The runner records a finished child's outcome with single statements like these.
      store.updateRun(run.id, { status: "ok", exit_code: 0, finished_at: "2026-03-02T00:01:00Z" });
      store.appendAudit({
        action: "run_ok",
        target: `run:${run.id}`,
        actor: "scheduler",
        channel: "outpost",
        detail: "",
      });
      await back;
      assert.equal(store.getRun(run.id)?.status, "ok");
      assert.equal(store.listAudit({ target: `run:${run.id}` }).length, 1);
    } finally {
      store.close();
    }
  },
);

peerTest(
  "a COMMIT whose reply is lost is settled by asking the server: kept once, not run again",
  probes.postgres,
  async () => {
    const proxy = new Worker(new URL("../../../tests/commit_cut_proxy.ts", import.meta.url), {
      type: "module",
    });
    const next = () =>
      new Promise<unknown>((resolve) =>
        proxy.addEventListener("message", (e) => resolve(e.data), { once: true })
      );
    const database = new URL(freshDatabaseUrl());
    try {
      const started = next();
      proxy.postMessage({ target: pgCluster().port });
      database.port = String(((await started) as { port: number }).port);
      const store = openStore(database.href);
      try {
        const armed = next();
        proxy.postMessage("arm");
        await armed;
        const cut = next();
        let calls = 0;
        const job = store.atomically(() => {
          calls++;
          return store.createJob(newJobFixture({ name: "once" }));
        });
        assert.equal(await cut, "cut", "the reply to COMMIT was dropped");
        assert.equal(calls, 1, "a committed transaction is not run again");
        assert.deepEqual(store.listJobs().map((j) => j.id), [job.id]);
      } finally {
        store.close();
      }
    } finally {
      proxy.terminate();
    }
  },
);

peerTest(
  "a server that stays down: one clear error after the bound, then it works when back",
  probes.postgres,
  // deno-lint-ignore require-await
  async () => {
    const store = openStore(freshDatabaseUrl(), 1500);
    const cluster = pgCluster();
    let down = false;
    try {
      const job = store.createJob(newJobFixture());
      cluster.stop();
      down = true;
      const started = performance.now();
      assert.throws(
        () => store.atomically(() => store.updateJob(job.id, { name: "renamed" })),
        (err: unknown) => {
          assert.ok(err instanceof StoreUnavailableError, String(err));
          assert.match(err.message, /^PostgreSQL did not answer again within 1\.5 s \(.+\)/);
          assert.doesNotMatch(err.message, /\n/, "one line");
          return true;
        },
      );
      const waited = performance.now() - started;
      assert.ok(waited >= 1400, `it waited for the server (${waited} ms)`);
      assert.ok(waited < 20_000, `and gave up (${waited} ms)`);
      // Later calls in the same outage fail at once with the same line: no new wait each.
      assert.throws(() => store.getJob(job.id), /did not answer again within 1\.5 s/);
      cluster.start();
      down = false;
      assert.equal(store.getJob(job.id)?.name, "job", "nothing of the failed edit was kept");
      store.updateJob(job.id, { name: "renamed" });
      assert.equal(store.getJob(job.id)?.name, "renamed");
    } finally {
      if (down) cluster.start();
      store.close();
    }
  },
);

peerTest(
  "a transaction that loses its session every time is given up after a few runs",
  probes.postgres,
  // deno-lint-ignore require-await
  async () => {
    const url = freshDatabaseUrl();
    const store = openStore(url);
    try {
      let calls = 0;
      assert.throws(
        () =>
          store.atomically(() => {
            calls++;
            store.createJob(newJobFixture({ name: `attempt ${calls}` }));
            // The server answers BEGIN, then this session ends, each time.
            store.connection.prepare("SELECT pg_terminate_backend(pg_backend_pid())").get();
          }),
        /the transaction lost its session 5 times in a row; given up/,
      );
      assert.equal(calls, 5);
      // Read on a session of its own: the last one of `store` may still be ending.
      const other = openStore(url);
      try {
        assert.equal(other.countJobs(), 0, "nothing of any run was kept");
      } finally {
        other.close();
      }
    } finally {
      store.close();
    }
  },
);
