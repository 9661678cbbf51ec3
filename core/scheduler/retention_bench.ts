// The retention sweep over 100 jobs and 100,000 expired runs in a file database: the whole
// sweep, the longest single chunk (the time the event loop is held at once), and the daily
// sweep that finds nothing left to delete.

import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";
import { outpostDbPath, SqliteStore } from "../store/sqlite_store.ts";
import type { Pruned } from "../store/store.ts";
import { isoZ } from "../time.ts";
import { sweepHistory } from "./retention.ts";

const home = await Deno.makeTempDir({ prefix: "outpost_retention_bench_" });
const clock = new FakeClock("2026-06-01T00:00:00Z");
let store = new SqliteStore({ path: outpostDbPath(home), clock });
for (let i = 0; i < 100; i++) store.createJob(newJobFixture({ name: `job-${i}` }));
store.close();
{
  const db = new DatabaseSync(outpostDbPath(home));
  const ins = db.prepare(
    "INSERT INTO runs (job_id, status, attempt, queued_at, finished_at, report_path, priority, " +
      "class) VALUES (?, 'ok', 1, ?, ?, ?, 10, 'scheduled')",
  );
  db.exec("BEGIN");
  for (let i = 0; i < 100_000; i++) {
    const at = isoZ(new Date(Date.parse("2026-01-01T00:00:00Z") + i * 60_000));
    ins.run(1 + (i % 100), at, at, `${home}/outpost/runs/${1 + (i % 100)}/${i}.md`);
  }
  db.exec("COMMIT");
  db.close();
}
store = new SqliteStore({ path: outpostDbPath(home), clock });
const policy = { days: 30, oneShotDays: 7 };

// The big sweep happens once (a bench iteration would find nothing left after the first), so
// it is timed here and printed: the longest chunk is what a request may wait behind.
{
  let longest = 0;
  const timed = {
    pruneRuns: (before: string, limit: number): Pruned => {
      const start = performance.now();
      const pruned = store.pruneRuns(before, limit);
      longest = Math.max(longest, performance.now() - start);
      return pruned;
    },
    pruneOneShots: store.pruneOneShots.bind(store),
    pruneAudit: store.pruneAudit.bind(store),
  };
  const start = performance.now();
  const report = await sweepHistory({ store: timed, home, now: clock.now(), policy });
  console.log(
    `retention: deleted ${report.runs} expired runs in ${
      (performance.now() - start).toFixed(0)
    } ms; ` +
      `the longest chunk held the store ${longest.toFixed(1)} ms`,
  );
}

Deno.bench("sweepHistory: the daily sweep with nothing left to delete", async () => {
  await sweepHistory({ store, home, now: clock.now(), policy });
});

globalThis.addEventListener("unload", () => {
  store.close();
  Deno.removeSync(home, { recursive: true });
});
