// The history queries of the SQLite store: /runs filters and cursor pages, the hourly chart
// counts, audit filters, and (EXPLAIN QUERY PLAN) that each filter reads its own index in
// id order, so a page costs about `limit` rows however large the table grows.

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture as newJob } from "../../tests/fakes/job_fixture.ts";
import { SqliteStore } from "./sqlite_store.ts";
import { auditSql, runHistorySql } from "./sqlite_history.ts";
import type { AuditFilter, JobClass, RunFilter, RunStatus } from "./store.ts";

function open() {
  const clock = new FakeClock("2026-03-02T00:00:00Z");
  const store = new SqliteStore({ path: ":memory:", clock });
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

Deno.test("listRunHistory: filters by job, status, class and date, newest first, cursor pages", () => {
  const { store, a, b, run } = open();
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

  const window = store.listRunHistory({ from: "2026-03-02T03:00:00Z", to: "2026-03-02T05:00:00Z" });
  assert.deepEqual(
    [...new Set(window.map((r) => r.queued_at.slice(11, 13)))],
    ["04", "03"],
  );
  assert.equal(store.listRunHistory({ from: "2026-03-03T00:00:00Z" }).length, 0);
  assert.equal(store.listRunHistory({ to: "2026-03-01T00:00:00Z" }).length, 0);
  store.close();
});

Deno.test("runsPerHour and tokensPerHour count per UTC hour", () => {
  const { store, a, b, run } = open();
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

Deno.test("the hourly rollup follows inserts, status and token updates, and deletes", () => {
  const { store, a, run } = open();
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

Deno.test("listAudit filters by action, actor and target", () => {
  const { store } = open();
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

Deno.test("listAudit keeps the rows of a date range [from, to), with the other filters", () => {
  const { store } = open();
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
});

/** EXPLAIN QUERY PLAN of `sql` (with `args` placeholders bound to 1) on a migrated file. */
function plan(db: DatabaseSync, sql: string, args: number): string {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...Array(args).fill(1)) as {
    detail: string;
  }[];
  return rows.map((r) => r.detail).join("\n");
}

async function migratedDb(): Promise<{ db: DatabaseSync; [Symbol.asyncDispose](): Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "history_plan_" });
  const path = `${dir}/outpost.db`;
  new SqliteStore({ path, clock: new FakeClock("2026-03-02T00:00:00Z") }).close();
  const db = new DatabaseSync(path);
  return {
    db,
    async [Symbol.asyncDispose]() {
      db.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const RUN_CASES: [RunFilter, string][] = [
  [{}, "USING INTEGER PRIMARY KEY"],
  [{ job_id: 1 }, "USING INDEX runs_job (job_id=? AND id<?)"],
  [{ status: "error" }, "USING INDEX runs_status_id (status=? AND id<?)"],
  [{ class: "api" }, "USING INDEX runs_class_id (class=? AND id<?)"],
  [
    { class: "api", status: "ok" },
    "USING INDEX runs_class_status_id (class=? AND status=? AND id<?)",
  ],
  [
    { job_id: 1, status: "ok" },
    "USING INDEX runs_job_status_id (job_id=? AND status=? AND id<?)",
  ],
  // A job's runs all carry the job's class (fire, trigger, retry and resume copy it, and a
  // job's class never changes), so job+class is the job's range with the class tested per
  // row: every row passes, or (wrong class) the page is empty after the job's rows.
  [{ job_id: 1, class: "api" }, "USING INDEX runs_job (job_id=? AND id<?)"],
  [
    { job_id: 1, class: "api", status: "ok" },
    "USING INDEX runs_job_status_id (job_id=? AND status=? AND id<?)",
  ],
];

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

Deno.test("EXPLAIN QUERY PLAN: every run filter is an index range in id order, no sort", async () => {
  await using m = await migratedDb();
  const store = m.db;
  for (const [filter, expected] of RUN_CASES) {
    const where = runWhere(filter);
    const text = plan(store, runHistorySql(filter, where), where.length + 1);
    assert.match(
      text,
      new RegExp(`SEARCH runs ${escape(expected)}`),
      `${JSON.stringify(filter)}: ${text}`,
    );
    assert.doesNotMatch(text, /TEMP B-TREE|SCAN runs/, `${JSON.stringify(filter)}: ${text}`);
  }
  // With a date range the same indexes are read between both id bounds (the range's ids),
  // never through runs_queued, which would need a sort to come out in id order.
  const dated: [RunFilter, string][] = [
    [{ from: "x", to: "y" }, "USING INTEGER PRIMARY KEY (rowid>? AND rowid<?)"],
    [{ job_id: 1, from: "x" }, "USING INDEX runs_job (job_id=? AND id>? AND id<?)"],
    [
      { class: "api", status: "ok", from: "x", to: "y" },
      "USING INDEX runs_class_status_id (class=? AND status=? AND id>? AND id<?)",
    ],
  ];
  for (const [filter, expected] of dated) {
    const where = runWhere(filter);
    const text = plan(store, runHistorySql(filter, where), where.length + 1);
    assert.match(text, new RegExp(`SEARCH runs ${escape(expected)}`), text);
    assert.doesNotMatch(text, /TEMP B-TREE|SCAN runs/, text);
  }
  // The date probes are index searches too.
  const probe = plan(
    store,
    "SELECT queued_at FROM runs INDEXED BY runs_queued WHERE queued_at >= ? ORDER BY queued_at LIMIT 1",
    1,
  );
  assert.match(probe, /SEARCH runs USING COVERING INDEX runs_queued \(queued_at>\?\)/);
  // The charts read the rollup's primary key, never the runs.
  const chart = plan(
    store,
    "SELECT hour, status AS key, SUM(runs) AS n FROM run_hours WHERE hour >= ? AND runs > 0 GROUP BY hour, status",
    1,
  );
  assert.match(chart, /SEARCH run_hours USING PRIMARY KEY \(hour>\?\)/);
  assert.doesNotMatch(chart, /runs /);
});

Deno.test("EXPLAIN QUERY PLAN: every audit filter is an index range in id order", async () => {
  await using m = await migratedDb();
  const store = m.db;
  const cases: [AuditFilter, string][] = [
    [{ action: "x" }, "audit_action (action=? AND id<?)"],
    [{ actor: "x" }, "audit_actor (actor=? AND id<?)"],
    [{ target: "x" }, "audit_target (target=? AND id<?)"],
    [{ channel: "x" }, "audit_channel (channel=? AND id<?)"],
    [{ channel: "x", actor: "y" }, "audit_channel (channel=? AND id<?)"],
    [{ action: "x", channel: "y" }, "audit_action (action=? AND id<?)"],
    // Combined filters read the most selective key's index: target, action, channel, actor.
    [{ actor: "x", target: "y" }, "audit_target (target=? AND id<?)"],
    [{ action: "x", target: "y" }, "audit_target (target=? AND id<?)"],
    [{ action: "x", actor: "y" }, "audit_action (action=? AND id<?)"],
    [{ action: "x", actor: "y", target: "z" }, "audit_target (target=? AND id<?)"],
  ];
  for (const [filter, expected] of cases) {
    const where = ["id < ?", ...Object.keys(filter).map((key) => `${key} = ?`)];
    const text = plan(store, auditSql(filter, where), where.length + 1);
    assert.match(
      text,
      new RegExp(`SEARCH audit USING INDEX ${escape(expected)}`),
      `${JSON.stringify(filter)}: ${text}`,
    );
    assert.doesNotMatch(text, /TEMP B-TREE|SCAN audit/, `${JSON.stringify(filter)}: ${text}`);
  }
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
