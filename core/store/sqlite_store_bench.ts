// The store's hot reads with 100 jobs and 100,000 runs in a file database: the dashboard's
// job list (latest run blended in), a job's run history, and the scheduler's per-fire and
// per-step queries.

import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { isoZ } from "../time.ts";
import { outpostDbPath, SqliteStore } from "./sqlite_store.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";

const home = await Deno.makeTempDir({ prefix: "outpost_store_bench_" });
const clock = new FakeClock("2026-03-02T09:00:00Z");
let store = new SqliteStore({ path: outpostDbPath(home), clock });
for (let i = 0; i < 100; i++) {
  store.createJob(newJobFixture({
    name: `job-${i}`,
    schedule: { kind: "cron", expr: "0 * * * *", tz: "UTC" },
    meta: { room: "!r:example.org" },
  }));
}
store.close();
{
  const db = new DatabaseSync(outpostDbPath(home));
  const ins = db.prepare(
    "INSERT INTO runs (job_id, status, attempt, exit_code, queued_at, started_at, finished_at, " +
      "tokens_in, tokens_out, priority, class) VALUES (?, ?, 1, 0, ?, ?, ?, 1000, 100, 10, 'scheduled')",
  );
  db.exec("BEGIN");
  for (let i = 0; i < 100_000; i++) {
    const at = isoZ(new Date(Date.parse("2026-01-01T00:00:00Z") + i * 60_000));
    ins.run(1 + (i % 100), i % 7 === 0 ? "skipped" : "ok", at, at, at);
  }
  db.exec("COMMIT");
  db.close();
}
store = new SqliteStore({ path: outpostDbPath(home), clock });

Deno.bench(
  "listJobs: 100 jobs newest first, latest run blended (100k runs)",
  { group: "reads" },
  () => {
    store.listJobs();
  },
);
Deno.bench("listRuns: a job's 50 newest runs", { group: "reads" }, () => {
  store.listRuns(42, { limit: 50 });
});
Deno.bench("inFlightRun (every fire)", { group: "reads" }, () => {
  store.inFlightRun(42);
});
Deno.bench("dueJobs (every tick)", { group: "reads" }, () => {
  store.dueJobs("2026-03-02T09:00:00Z");
});
Deno.bench("nextSlotAfter (every loop wake)", { group: "reads" }, () => {
  store.nextSlotAfter("2026-03-02T09:00:00Z");
});
Deno.bench("queuedRuns (every step)", { group: "reads" }, () => {
  store.queuedRuns();
});
const lastHour = isoZ(new Date(Date.parse("2026-01-01T00:00:00Z") + 100_000 * 60_000 - 3_600_000));
Deno.bench("tokensSince, the last hour (governor)", { group: "reads" }, () => {
  store.tokensSince("scheduled", lastHour);
});
Deno.bench("createRun + setNextRunAt (a skipped fire)", { group: "writes" }, () => {
  store.createRun({
    job_id: 7,
    status: "skipped",
    attempt: 1,
    priority: 10,
    class: "scheduled",
    reason: "previous run 1 still running (single-flight)",
    finished_at: "2026-03-02T09:00:00Z",
  });
  store.setNextRunAt(7, "2026-03-02T10:00:00Z");
});

globalThis.addEventListener("unload", () => {
  store.close();
  Deno.removeSync(home, { recursive: true });
});
