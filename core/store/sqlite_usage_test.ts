// The money rollup (migration 10), on SQLite and PostgreSQL (tests/store_backends.ts): after random inserts, updates (status, tokens, cost,
// cache tokens, duration), prunes and deletes, every total the store answers equals the sum
// computed from its own runs; a database written at version 9 is back-filled by the step;
// unpriced runs are counted, not summed as zero.

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture as newJob } from "../../tests/fakes/job_fixture.ts";
import { MIGRATIONS } from "./migrations.ts";
import { SqliteStore } from "./sqlite_store.ts";
import { storeTest } from "../../tests/store_backends.ts";
import { sumOfRuns } from "../../tests/usage_oracle.ts";
import type { NewRun, Run, RunStatus, Store, UsageTotals } from "./store.ts";
import type { SqlValue } from "./sql_connection.ts";

const STATUSES: RunStatus[] = ["ok", "error", "killed", "needs_human", "skipped", "running"];

function assertTotals(actual: UsageTotals, expected: UsageTotals, what: string): void {
  const { cost_usd: a, ...restA } = actual;
  const { cost_usd: e, ...restE } = expected;
  assert.deepEqual(restA, restE, what);
  assert.ok(Math.abs(a - e) < 1e-9, `${what}: cost ${a} != ${e}`);
}

/** A seeded pseudo-random source, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}

/** Writes `n` pseudo-random runs through `insert` (a store's createRun, or a raw insert). */
function seed(
  insert: (run: NewRun) => void,
  jobs: number[],
  n: number,
  rand: () => number,
): void {
  for (let i = 0; i < n; i++) {
    const day = 1 + Math.floor(rand() * 28);
    const hour = Math.floor(rand() * 24);
    const at = `2026-03-${String(day).padStart(2, "0")}T${String(hour).padStart(2, "0")}:05:00Z`;
    const priced = rand() < 0.6;
    const used = rand() < 0.85;
    insert({
      job_id: jobs[Math.floor(rand() * jobs.length)]!,
      status: STATUSES[Math.floor(rand() * STATUSES.length)]!,
      attempt: 1,
      priority: 10,
      class: "scheduled",
      queued_at: at,
      finished_at: at,
      tokens_in: used ? Math.floor(rand() * 5000) : null,
      tokens_out: used ? Math.floor(rand() * 500) : null,
      cache_read_tokens: used && rand() < 0.5 ? Math.floor(rand() * 9000) : null,
      cache_write_tokens: used && rand() < 0.3 ? Math.floor(rand() * 900) : null,
      cost_usd: priced ? Math.round(rand() * 1e6) / 1e7 : null,
      duration_ms: rand() < 0.9 ? Math.floor(rand() * 60_000) : null,
    });
  }
}

function allRuns(store: Store): Run[] {
  return store.listRunHistory({}, { limit: 1_000_000 });
}

function assertRollupMatches(store: Store, jobs: number[]): void {
  const runs = allRuns(store);
  for (const day of ["2026-03-01", "2026-03-15", "2026-03-28"]) {
    const inWindow = runs.filter((r) => r.queued_at.slice(0, 10) >= day);
    assertTotals(store.usageSince(day), sumOfRuns(inWindow), `outpost since ${day}`);
    const both = store.usageByJob([day, "2026-03-20"], jobs);
    const byJob = new Map([...both].map(([id, [w]]) => [id, w!]));
    const late = runs.filter((r) => r.queued_at.slice(0, 10) >= "2026-03-20");
    for (const [id, [, w]] of both) {
      assertTotals(w!, sumOfRuns(late.filter((r) => r.job_id === id)), `byJob ${id} second window`);
    }
    for (const job of jobs) {
      const mine = inWindow.filter((r) => r.job_id === job);
      assertTotals(store.usageSince(day, job), sumOfRuns(mine), `job ${job} since ${day}`);
      // A job without runs in any window is absent; one with runs in another window reads 0.
      const got = byJob.get(job);
      if (got || mine.length) assertTotals(got!, sumOfRuns(mine), `byJob ${job}`);
    }
  }
  for (const b of store.usageBuckets("day", "2026-03-01T00:00:00Z")) {
    const day = runs.filter((r) => r.queued_at.startsWith(b.bucket));
    const { bucket: _, ...totals } = b;
    assertTotals(totals, sumOfRuns(day), `day ${b.bucket}`);
  }
  const days = new Set(runs.map((r) => r.queued_at.slice(0, 10)));
  assert.equal(store.usageBuckets("day", "2026-03-01T00:00:00Z").length, days.size);
  const since = "2026-03-15T07:30:00Z";
  for (const b of store.usageBuckets("hour", since)) {
    assert.ok(b.bucket >= since.slice(0, 13));
    const hour = runs.filter((r) => r.queued_at.startsWith(b.bucket));
    const { bucket: _, ...totals } = b;
    assertTotals(totals, sumOfRuns(hour), `hour ${b.bucket}`);
  }
  const hours = new Set(
    runs.map((r) => r.queued_at.slice(0, 13)).filter((h) => h >= "2026-03-15T07"),
  );
  assert.equal(store.usageBuckets("hour", since).length, hours.size);
}

storeTest(
  "the usage rollup equals the sums of the runs through inserts, updates and deletes",
  (backend) => {
    const store = backend.open(new FakeClock("2026-03-30T00:00:00Z"));
    const jobs = [1, 2, 3].map((i) => store.createJob(newJob({ name: `j${i}` })).id);
    const rand = rng(30);
    seed((run) => store.createRun(run), jobs, 600, rand);
    assertRollupMatches(store, jobs);

    // A run finishing: status, tokens, cache tokens, cost and duration written at once.
    for (const r of allRuns(store).filter((r) => r.status === "running")) {
      store.updateRun(r.id, {
        status: rand() < 0.5 ? "ok" : "lost",
        tokens_in: 1234,
        tokens_out: 56,
        cache_read_tokens: 7000,
        cache_write_tokens: 12,
        cost_usd: rand() < 0.5 ? 0.0042 : null,
        duration_ms: 999,
      });
    }
    // A price learnt late, and a cost withdrawn: a run moves between priced and unpriced.
    const some = allRuns(store).slice(0, 40);
    for (const r of some) store.updateRun(r.id, { cost_usd: r.cost_usd === null ? 0.01 : null });
    assertRollupMatches(store, jobs);

    store.deleteJob(jobs[1]!); // its runs cascade
    assertRollupMatches(store, [jobs[0]!, jobs[2]!]);
    store.close();
  },
);

storeTest("unpriced runs are counted apart, and a run with no tokens is neither", (backend) => {
  const store = backend.open(new FakeClock("2026-03-02T00:00:00Z"));
  const job = store.createJob(newJob({ name: "j" })).id;
  const base = {
    job_id: job,
    status: "ok" as const,
    attempt: 1,
    priority: 10,
    class: "scheduled" as const,
    queued_at: "2026-03-02T01:00:00Z",
  };
  store.createRun({ ...base, tokens_in: 10, tokens_out: 1, cost_usd: null });
  store.createRun({ ...base, tokens_in: 10, tokens_out: 1, cost_usd: 0.5 });
  store.createRun({ ...base, status: "skipped" });
  const t = store.usageSince("2026-03-02", job);
  assert.equal(t.runs, 3);
  assert.equal(t.priced_runs, 1);
  assert.equal(t.unpriced_runs, 1);
  assert.equal(t.cost_usd, 0.5);
  store.close();
});

storeTest("a window that is not a UTC day is refused, not read as some other window", (backend) => {
  const store = backend.open(new FakeClock("2026-03-02T00:00:00Z"));
  assert.throws(() => store.usageSince("2026-03-02T09:00:00Z"), TypeError);
  assert.throws(() => store.usageByJob(["yesterday"], [1]), TypeError);
  assert.deepEqual(store.usageByJob(["2026-03-02"], []), new Map());
  store.close();
});

Deno.test("migration 10 back-fills the rollup from the runs a version-9 database holds", async () => {
  const dir = await Deno.makeTempDir({ prefix: "usage_migration_" });
  try {
    const path = `${dir}/outpost.db`;
    const clock = new FakeClock("2026-03-30T00:00:00Z");
    const upTo9 = MIGRATIONS.filter((m) => m.version <= 9);
    const old = new SqliteStore({ path, clock, migrations: upTo9 });
    const jobs = [1, 2].map((i) => old.createJob(newJob({ name: `j${i}` })).id);
    // The runs table of step 9 lacks later columns (slot): rows go in with their own columns.
    seed(
      (run) => {
        const cols = Object.keys(run);
        old.connection.prepare(
          `INSERT INTO runs (${cols.join(", ")}) VALUES (${cols.map(() => "?").join(", ")})`,
        ).run(...cols.map((c) => (run as unknown as Record<string, SqlValue>)[c] ?? null));
      },
      jobs,
      200,
      rng(9),
    );
    old.close();
    const store = new SqliteStore({ path, clock });
    assertRollupMatches(store, jobs);
    store.close();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
