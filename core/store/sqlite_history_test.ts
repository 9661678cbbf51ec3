// The history queries of the store, on both engines (tests/store_backends.ts): /runs filters
// and cursor pages, the hourly chart counts, audit filters, and the query plans: each filter
// reads an index in id order, so a page costs about `limit` rows however large the table
// grows. SQLite names its index (INDEXED BY) and its plans are checked exactly; PostgreSQL's
// planner chooses, so its plans are checked at a realistic row count after ANALYZE: no
// sequential scan of runs or audit, no sort.

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture as newJob } from "../../tests/fakes/job_fixture.ts";
import { type StoreBackend, storeTest } from "../../tests/store_backends.ts";
import type { PgStore } from "./pg/pg_store.ts";
import { toPostgres } from "./pg/pg_dialect.ts";
import type { SqlConnection, SqlValue } from "./sql_connection.ts";
import type { SqlStore } from "./sql_store.ts";
import type { SqliteStore } from "./sqlite_store.ts";
import { auditSql, runHistorySql } from "./sqlite_history.ts";
import type { AuditFilter, JobClass, NewRun, RunFilter, RunStatus } from "./store.ts";

function open(backend: StoreBackend) {
  const clock = new FakeClock("2026-03-02T00:00:00Z");
  const store = backend.open(clock);
  const a = store.createJob(newJob({ name: "a" }));
  const b = store.createJob(newJob({ name: "b", class: "api" }));
  const run = (jobId: number, status: RunStatus, hour: number, cls: JobClass = "scheduled") =>
    store.createRun({
      job_id: jobId,
      status,
      attempt: 1,
      priority: 10,
      class: cls,
      queued_at: `2026-03-02T${String(hour).padStart(2, "0")}:10:00Z`,
      finished_at: `2026-03-02T${String(hour).padStart(2, "0")}:20:00Z`,
      tokens_in: 100,
      tokens_out: 10,
    });
  return { store, a, b, run };
}

storeTest(
  "listRunHistory: filters by job, status, class and date, newest first, cursor pages",
  (backend) => {
    const { store, a, b, run } = open(backend);
    const ids: number[] = [];
    for (let h = 0; h < 10; h++) {
      ids.push(run(a.id, h % 3 === 0 ? "error" : "ok", h).id);
      ids.push(run(b.id, "ok", h, "api").id);
    }
    const all = store.listRunHistory({}, { limit: 100 });
    assert.equal(all.length, 20);
    assert.deepEqual(all.map((r) => r.id), [...ids].reverse());

    const errors = store.listRunHistory({ status: "error" });
    assert.deepEqual(errors.map((r) => r.queued_at.slice(11, 13)), ["09", "06", "03", "00"]);
    assert.ok(errors.every((r) => r.job_id === a.id));

    assert.equal(store.listRunHistory({ class: "api" }).length, 10);
    assert.equal(store.listRunHistory({ class: "api", status: "error" }).length, 0);
    assert.equal(store.listRunHistory({ job_id: a.id, status: "ok" }).length, 6);

    const page1 = store.listRunHistory({ job_id: b.id }, { limit: 4 });
    const page2 = store.listRunHistory({ job_id: b.id }, { limit: 4, before_id: page1.at(-1)!.id });
    assert.equal(page1.length, 4);
    assert.equal(page2.length, 4);
    assert.ok(page2[0]!.id < page1.at(-1)!.id);

    const window = store.listRunHistory({
      from: "2026-03-02T03:00:00Z",
      to: "2026-03-02T05:00:00Z",
    });
    assert.deepEqual(
      [...new Set(window.map((r) => r.queued_at.slice(11, 13)))],
      ["04", "03"],
    );
    assert.equal(store.listRunHistory({ from: "2026-03-03T00:00:00Z" }).length, 0);
    assert.equal(store.listRunHistory({ to: "2026-03-01T00:00:00Z" }).length, 0);
    store.close();
  },
);

storeTest("runsPerHour and tokensPerHour count per UTC hour", (backend) => {
  const { store, a, b, run } = open(backend);
  run(a.id, "ok", 1);
  run(a.id, "error", 1);
  run(a.id, "ok", 2);
  run(b.id, "ok", 2, "api");
  assert.deepEqual(store.runsPerHour("2026-03-02T00:00:00Z"), [
    { hour: "2026-03-02T01", key: "error", n: 1 },
    { hour: "2026-03-02T01", key: "ok", n: 1 },
    { hour: "2026-03-02T02", key: "ok", n: 2 },
  ]);
  assert.deepEqual(store.tokensPerHour("2026-03-02T02:00:00Z"), [
    { hour: "2026-03-02T02", key: "api", n: 110 },
    { hour: "2026-03-02T02", key: "scheduled", n: 110 },
  ]);
  store.close();
});

storeTest("the hourly rollup follows inserts, status and token updates, and deletes", (backend) => {
  const { store, a, run } = open(backend);
  const r = run(a.id, "running", 3);
  store.updateRun(r.id, { status: "ok", tokens_in: 500, tokens_out: 50 });
  run(a.id, "error", 3);
  assert.deepEqual(store.runsPerHour("2026-03-02T03:59:00Z"), [
    { hour: "2026-03-02T03", key: "error", n: 1 },
    { hour: "2026-03-02T03", key: "ok", n: 1 },
  ]);
  assert.deepEqual(store.tokensPerHour("2026-03-02T03:00:00Z"), [
    { hour: "2026-03-02T03", key: "scheduled", n: 550 + 110 },
  ]);
  store.deleteJob(a.id); // runs cascade
  assert.deepEqual(store.runsPerHour("2026-03-02T00:00:00Z"), []);
  assert.deepEqual(store.tokensPerHour("2026-03-02T00:00:00Z"), []);
  store.close();
});

storeTest("listAudit filters by action, actor and target", (backend) => {
  const { store } = open(backend);
  store.appendAudit({
    action: "job_create",
    target: "job:1",
    actor: "ann",
    channel: "dashboard",
    detail: "",
  });
  store.appendAudit({
    action: "job_delete",
    target: "job:1",
    actor: "bob",
    channel: "dashboard",
    detail: "",
  });
  store.appendAudit({
    action: "job_create",
    target: "job:2",
    actor: "bob",
    channel: "dashboard",
    detail: "",
  });
  assert.equal(store.listAudit({ action: "job_create" }).length, 2);
  assert.deepEqual(store.listAudit({ actor: "bob" }).map((r) => r.target), ["job:2", "job:1"]);
  assert.deepEqual(store.listAudit({ target: "job:1", actor: "ann" }).map((r) => r.action), [
    "job_create",
  ]);
  const first = store.listAudit({ limit: 1 });
  assert.deepEqual(store.listAudit({ before_id: first[0]!.id }).length, 2);
  store.close();
});

storeTest(
  "listAudit keeps the rows of a date range [from, to), with the other filters",
  (backend) => {
    const { store } = open(backend);
    for (let h = 0; h < 10; h++) {
      store.appendAudit({
        action: h % 2 ? "job_create" : "answer",
        target: `job:${h}`,
        actor: "ann",
        channel: "dashboard",
        detail: "",
        at: `2026-03-02T${String(h).padStart(2, "0")}:30:15Z`,
      });
    }
    const range = { from: "2026-03-02T03:00:00Z", to: "2026-03-02T07:30:15Z" };
    assert.deepEqual(store.listAudit(range).map((r) => r.target), [
      "job:6",
      "job:5",
      "job:4",
      "job:3",
    ]);
    assert.deepEqual(store.listAudit({ ...range, action: "answer" }).map((r) => r.target), [
      "job:6",
      "job:4",
    ]);
    assert.deepEqual(store.listAudit({ from: "2026-03-03T00:00:00Z" }), []);
    assert.deepEqual(store.listAudit({ to: "2026-03-01T00:00:00Z" }), []);
    const page = store.listAudit({ ...range, limit: 2 });
    assert.deepEqual(
      store.listAudit({ ...range, before_id: page[1]!.id }).map((r) => r.target),
      ["job:4", "job:3"],
    );
    store.close();
  },
);

// ---- query plans ----

/** Runs and audit rows at a realistic count: the dashboard's figures use 100,000 runs. */
const PLAN_RUNS = 30_000;
const PLAN_AUDIT = 30_000;
const PLAN_JOBS = 20;

/** The store's own connection, for EXPLAIN (PgStore and SqliteStore both expose it). */
function connectionOf(store: SqlStore): SqlConnection {
  return (store as PgStore | SqliteStore).connection;
}

/**
 * Fills `store` with PLAN_JOBS jobs (the last quarter api-class), PLAN_RUNS runs a minute
 * apart (ok mostly, a twelfth error, some skipped, ten needs_human), one job with only 20 of
 * them (the rare one), and PLAN_AUDIT audit rows over ten actions, five actors, four
 * channels and 200 targets, plus a rare value of each (one row in a thousand).
 */
function fillHistory(store: SqlStore): { middle: number; rareJob: number } {
  const jobs = Array.from(
    { length: PLAN_JOBS },
    (_, i) =>
      store.createJob(
        newJob({ name: `j${i}`, class: i >= PLAN_JOBS * 0.75 ? "api" : "scheduled" }),
      ),
  );
  const rare = jobs.at(-1)!;
  const start = Date.parse("2026-01-01T00:00:00Z");
  let middle = 0;
  for (let at = 0; at < PLAN_RUNS; at += 1000) {
    const batch: NewRun[] = [];
    for (let i = at; i < Math.min(at + 1000, PLAN_RUNS); i++) {
      const job = i % 1500 === 0 ? rare : jobs[i % (PLAN_JOBS - 1)]!;
      const queued = new Date(start + i * 60_000).toISOString().slice(0, 19) + "Z";
      batch.push({
        job_id: job.id,
        status: i % 12 === 5
          ? "error"
          : i % 30 === 7
          ? "skipped"
          : i % 3000 === 11
          ? "needs_human"
          : "ok",
        attempt: 1,
        priority: 10,
        class: job.class,
        queued_at: queued,
        finished_at: queued,
        tokens_in: 100,
        tokens_out: 10,
      });
    }
    const made = store.createRuns(batch);
    if (at <= PLAN_RUNS / 2 && PLAN_RUNS / 2 < at + 1000) middle = made[PLAN_RUNS / 2 - at]!.id;
  }
  const value = (key: string, n: number) =>
    `CASE WHEN i % 1000 = 0 THEN 'rare_${key}' ELSE '${key}' || (i % ${n}) END`;
  connectionOf(store).prepare(
    `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
     INSERT INTO audit (at, action, target, actor, channel, detail)
     SELECT '2026-03-01T00:00:00Z', ${value("action", 10)}, 'job:' || (i % 200),
            ${value("actor", 5)}, ${value("channel", 4)}, '' FROM n`,
  ).run(PLAN_AUDIT);
  return { middle, rareJob: rare.id };
}

/** The WHERE terms listRunHistory builds for `filter` (with a date range: both id bounds). */
function runWhere(filter: RunFilter): string[] {
  const where = ["id < ?"];
  if (filter.from !== undefined || filter.to !== undefined) where.push("id >= ?");
  if (filter.job_id !== undefined) where.push("job_id = ?");
  if (filter.status !== undefined) where.push("status = ?");
  if (filter.class !== undefined) where.push("class = ?");
  if (filter.from !== undefined) where.push("queued_at >= ?");
  if (filter.to !== undefined) where.push("queued_at < ?");
  return where;
}

/** The values listRunHistory binds for `filter`'s first page (`middle`: the range's low id). */
function runArgs(filter: RunFilter, middle: number): SqlValue[] {
  const args: SqlValue[] = [Number.MAX_SAFE_INTEGER];
  if (filter.from !== undefined || filter.to !== undefined) args.push(middle);
  if (filter.job_id !== undefined) args.push(filter.job_id);
  if (filter.status !== undefined) args.push(filter.status);
  if (filter.class !== undefined) args.push(filter.class);
  if (filter.from !== undefined) args.push(filter.from);
  if (filter.to !== undefined) args.push(filter.to);
  return [...args, 50];
}

/** The plan of `sql` with `args` bound, as text: each engine's own EXPLAIN. */
function plan(backend: StoreBackend, db: SqlConnection, sql: string, args: SqlValue[]): string {
  if (backend.name === "sqlite") {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args);
    return rows.map((r) => String(r.detail)).join("\n");
  }
  const rows = db.prepare(`EXPLAIN ${toPostgres(sql)}`).all(...args);
  return rows.map((r) => String(r["QUERY PLAN"])).join("\n");
}

// [filter, SQLite's exact plan]. PostgreSQL's planner picks its index itself.
const RUN_CASES: [RunFilter, string][] = [
  [{}, "USING INTEGER PRIMARY KEY"],
  [{ job_id: 3 }, "USING INDEX runs_job (job_id=? AND id<?)"],
  [{ status: "error" }, "USING INDEX runs_status_id (status=? AND id<?)"],
  [{ class: "api" }, "USING INDEX runs_class_id (class=? AND id<?)"],
  [
    { class: "api", status: "ok" },
    "USING INDEX runs_class_status_id (class=? AND status=? AND id<?)",
  ],
  [
    { job_id: 3, status: "ok" },
    "USING INDEX runs_job_status_id (job_id=? AND status=? AND id<?)",
  ],
  // A job's runs all carry the job's class (fire, trigger, retry and resume copy it, and a
  // job's class never changes), so job+class is the job's range with the class tested per
  // row: every row passes, or (wrong class) the page is empty after the job's rows.
  [{ job_id: 3, class: "api" }, "USING INDEX runs_job (job_id=? AND id<?)"],
  [
    { job_id: 3, class: "api", status: "ok" },
    "USING INDEX runs_job_status_id (job_id=? AND status=? AND id<?)",
  ],
  // With a date range the same indexes are read between both id bounds (the range's ids),
  // never through runs_queued, which would need a sort to come out in id order.
  [
    { from: "2026-01-05T00:00:00Z", to: "2026-01-09T00:00:00Z" },
    "USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)",
  ],
  [
    { job_id: 3, from: "2026-01-05T00:00:00Z" },
    "USING INDEX runs_job (job_id=? AND id>? AND id<?)",
  ],
  [
    { class: "api", status: "ok", from: "2026-01-05T00:00:00Z", to: "2026-01-09T00:00:00Z" },
    "USING INDEX runs_class_status_id (class=? AND status=? AND id>? AND id<?)",
  ],
];

/**
 * PostgreSQL: the plan reads `table` through an index, never a whole-table scan. `sorted`:
 * whether a sort may follow: for a key as selective as one target or a rare job, the planner
 * may gather that key's few rows by bitmap and sort them, which costs that key's rows, not
 * the table's; a page of a common key must come out of an index in id order.
 */
function assertIndexedPg(text: string, table: string, what: string, sorted = false): void {
  assert.doesNotMatch(text, new RegExp(`Seq Scan on ${table}\\b`), `${what}:\n${text}`);
  if (!sorted) assert.doesNotMatch(text, /\bSort\b/, `${what}:\n${text}`);
  assert.match(
    text,
    new RegExp(`(Index (Only )?Scan( Backward)?|Bitmap Index Scan) (using|on) \\w+`),
    `${what}:\n${text}`,
  );
}

storeTest("query plans: every run filter is an index range in id order, no sort", (backend) => {
  const store = backend.open(new FakeClock("2026-03-02T00:00:00Z"));
  try {
    const { middle, rareJob } = fillHistory(store);
    const db = connectionOf(store);
    // PostgreSQL plans from statistics; the autovacuum daemon may not have gathered them yet.
    if (backend.name === "postgres") db.exec("ANALYZE");
    for (const [filter, sqlitePlan] of RUN_CASES) {
      const where = runWhere(filter);
      const what = JSON.stringify(filter);
      const text = plan(backend, db, runHistorySql(filter, where), runArgs(filter, middle));
      if (backend.name === "sqlite") {
        assert.match(text, new RegExp(`SEARCH runs ${escape(sqlitePlan)}`), `${what}: ${text}`);
        assert.doesNotMatch(text, /TEMP B-TREE|SCAN runs/, `${what}: ${text}`);
      } else {
        assertIndexedPg(text, "runs", what);
      }
    }
    if (backend.name === "postgres") {
      // The planner chooses by the statistics: a common key is best read in id order with a
      // filter (about limit / share rows), a rare one must be read through its own index, or
      // a page would walk the whole table for a few rows. SQLite's INDEXED BY makes its plan
      // independent of the data, so the cases above say it all there.
      const rare: [RunFilter, string][] = [
        [{ job_id: rareJob }, "job_id"],
        [{ job_id: rareJob, status: "ok" }, "job_id"],
        [{ status: "needs_human" }, "status"],
        [{ class: "scheduled", status: "needs_human" }, "status"],
      ];
      for (const [filter, key] of rare) {
        const where = runWhere(filter);
        const what = JSON.stringify(filter);
        const text = plan(backend, db, runHistorySql(filter, where), runArgs(filter, middle));
        assertIndexedPg(text, "runs", what, true); // a sort of the key's few rows
        assert.match(text, new RegExp(`Index Cond: .*\\b${key} = `), `${what}:\n${text}`);
      }
    }
    // The date probes are index searches too.
    const probe = plan(
      backend,
      db,
      "SELECT queued_at FROM runs INDEXED BY runs_queued WHERE queued_at >= ? ORDER BY queued_at LIMIT 1",
      ["2026-01-05T00:00:00Z"],
    );
    if (backend.name === "sqlite") {
      assert.match(probe, /SEARCH runs USING COVERING INDEX runs_queued \(queued_at>\?\)/);
    } else {
      assert.match(probe, /Index (Only )?Scan using runs_queued on runs/, probe);
    }
    // The charts read the rollup, never the runs.
    const chart = plan(
      backend,
      db,
      "SELECT hour, status AS key, SUM(runs) AS n FROM run_hours WHERE hour >= ? AND runs > 0 GROUP BY hour, status",
      ["2026-01-05T00"],
    );
    if (backend.name === "sqlite") {
      assert.match(chart, /SEARCH run_hours USING PRIMARY KEY \(hour>\?\)/);
    }
    assert.doesNotMatch(chart, /\bon runs\b/, chart);
  } finally {
    store.close();
  }
});

storeTest("query plans: every audit filter is an index range in id order", (backend) => {
  const store = backend.open(new FakeClock("2026-03-02T00:00:00Z"));
  try {
    fillHistory(store);
    const db = connectionOf(store);
    if (backend.name === "postgres") db.exec("ANALYZE");
    const cases: [AuditFilter, string][] = [
      [{ action: "action3" }, "audit_action (action=? AND id<?)"],
      [{ actor: "actor1" }, "audit_actor (actor=? AND id<?)"],
      [{ target: "job:7" }, "audit_target (target=? AND id<?)"],
      [{ channel: "channel2" }, "audit_channel (channel=? AND id<?)"],
      [{ channel: "channel2", actor: "actor1" }, "audit_channel (channel=? AND id<?)"],
      [{ action: "action3", channel: "channel2" }, "audit_action (action=? AND id<?)"],
      // Combined filters read the most selective key's index: target, action, channel, actor.
      [{ actor: "actor1", target: "job:7" }, "audit_target (target=? AND id<?)"],
      [{ action: "action3", target: "job:7" }, "audit_target (target=? AND id<?)"],
      [{ action: "action3", actor: "actor1" }, "audit_action (action=? AND id<?)"],
      [
        { action: "action3", actor: "actor1", target: "job:7" },
        "audit_target (target=? AND id<?)",
      ],
    ];
    for (const [filter, sqlitePlan] of cases) {
      const keys = Object.keys(filter) as (keyof AuditFilter)[];
      const where = ["id < ?", ...keys.map((key) => `${key} = ?`)];
      const args: SqlValue[] = [Number.MAX_SAFE_INTEGER, ...keys.map((k) => filter[k]!), 50];
      const text = plan(backend, db, auditSql(filter, where), args);
      const what = JSON.stringify(filter);
      if (backend.name === "sqlite") {
        assert.match(
          text,
          new RegExp(`SEARCH audit USING INDEX ${escape(sqlitePlan)}`),
          `${what}: ${text}`,
        );
        assert.doesNotMatch(text, /TEMP B-TREE|SCAN audit/, `${what}: ${text}`);
      } else {
        assertIndexedPg(text, "audit", what, true);
      }
    }
    if (backend.name === "postgres") {
      // As for runs: a rare key is read through its own index.
      for (const key of ["action", "actor", "channel"] as const) {
        const filter: AuditFilter = { [key]: `rare_${key}` };
        const text = plan(
          backend,
          db,
          auditSql(filter, ["id < ?", `${key} = ?`]),
          [Number.MAX_SAFE_INTEGER, `rare_${key}`, 50],
        );
        assertIndexedPg(text, "audit", key, true);
        assert.match(text, new RegExp(`Index Cond: .*\\b${key} = `), `${key}:\n${text}`);
      }
    }
  } finally {
    store.close();
  }
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
