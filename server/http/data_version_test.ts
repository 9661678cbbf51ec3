// The store's change probe (data_version.ts) and what it keeps fresh: GET /api/jobs, cached
// until any commit (server/views/commit_cache.ts), from any connection.

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { SqliteStore } from "../../core/store/sqlite_store.ts";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf, makeTestOutpost } from "../../tests/fakes/test_outpost.ts";
import { sqliteDataVersion } from "./data_version.ts";

Deno.test("GET /api/jobs on a file store is cached until any commit, from any connection", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const dbPath = `${dir}/outpost.db`;
    await using t = await makeTestOutpost({ dbPath });
    assert.ok(t.deps.dataVersion, "a file store is watched");
    const job = t.scheduler.createJob(jobInput({ name: "a" }));
    let queries = 0;
    const listJobs = t.store.listJobs.bind(t.store);
    t.store.listJobs = () => (queries++, listJobs());
    const first = await jsonOf(await t.app.request("/api/jobs"));
    assert.deepEqual(first.jobs.map((j: { name: string }) => j.name), ["a"]);
    await t.app.request("/api/jobs");
    await t.app.request("/api/jobs");
    assert.equal(queries, 1, "unchanged store: one query for three reads");
    // A change that announces nothing to the live feed still shows on the next read.
    t.store.updateJob(job.id, { name: "renamed quietly" });
    const second = await jsonOf(await t.app.request("/api/jobs"));
    assert.equal(second.jobs[0].name, "renamed quietly");
    const run = t.store.createRun({
      job_id: job.id,
      status: "queued",
      attempt: 1,
      priority: 10,
      class: "scheduled",
    });
    assert.equal(
      (await jsonOf(await t.app.request("/api/jobs"))).jobs[0].latest_run.status,
      "queued",
    );
    t.store.updateRun(run.id, { status: "ok", exit_code: 0 });
    assert.equal((await jsonOf(await t.app.request("/api/jobs"))).jobs[0].latest_run.status, "ok");
    // Another connection (a CLI) committing is seen too.
    const other = new SqliteStore({ path: dbPath, clock: new FakeClock() });
    other.updateJob(job.id, { name: "from the cli" });
    other.close();
    assert.equal((await jsonOf(await t.app.request("/api/jobs"))).jobs[0].name, "from the cli");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("sqliteDataVersion is null for in-memory stores", () => {
  assert.equal(sqliteDataVersion(":memory:"), null);
});
