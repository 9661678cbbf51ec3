import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { JobLimitError } from "./errors.ts";
import { outpostDbPath, SqliteStore } from "./sqlite_store.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";
import { type StoreBackend, storeTest } from "../../tests/store_backends.ts";

const newJob = newJobFixture;

/** A new store of `backend` (the suite runs once per backend: tests/store_backends.ts). */
function memStore(backend: StoreBackend, clock = new FakeClock("2026-03-02T09:00:00Z")) {
  return { clock, store: backend.open(clock) };
}

const runBase = {
  status: "queued" as const,
  attempt: 1,
  priority: 10,
  class: "scheduled" as const,
};

Deno.test("the database lives at <home>/outpost/outpost.db, in WAL mode, migrated", async () => {
  const home = await Deno.makeTempDir();
  try {
    const path = outpostDbPath(home);
    assert.equal(path, join(home, "outpost", "outpost.db"));
    const store = new SqliteStore({ path, clock: new FakeClock() });
    store.close();
    const db = new DatabaseSync(path);
    assert.equal(
      (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
      "wal",
    );
    const tables =
      (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as {
        name: string;
      }[]).map((r) => r.name);
    for (
      const t of [
        "audit",
        "inbox_items",
        "jobs",
        "machine_tokens",
        "push_subscriptions",
        "runs",
        "schema_migrations",
      ]
    ) {
      assert.ok(tables.includes(t), t);
    }
    db.close();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

storeTest("jobs: create, get, update, timestamps in UTC ISO-Z, meta round-trips", (backend) => {
  const { clock, store } = memStore(backend);
  const job = store.createJob(newJob({ meta: { room: "!r", n: 1 }, priority: 7 }));
  assert.equal(job.id, 1);
  assert.equal(job.created_at, "2026-03-02T09:00:00Z");
  assert.equal(job.failure_count, 0);
  assert.equal(job.dead_letter_reason, null);
  assert.deepEqual(job.meta, { room: "!r", n: 1 });
  assert.deepEqual(store.getJob(1), job);
  clock.set("2026-03-02T09:05:00Z");
  const updated = store.updateJob(1, {
    enabled: false,
    schedule: { kind: "cron", expr: "0 9 * * *", tz: "Europe/Paris" },
    priority: null,
    meta: {},
  });
  assert.equal(updated.enabled, false);
  assert.deepEqual(updated.schedule, { kind: "cron", expr: "0 9 * * *", tz: "Europe/Paris" });
  assert.equal(updated.priority, null);
  assert.equal(updated.updated_at, "2026-03-02T09:05:00Z");
  assert.equal(updated.created_at, "2026-03-02T09:00:00Z");
  assert.throws(() => store.updateJob(99, { name: "x" }), { name: "NotFoundError" });
  assert.equal(store.getJob(99), null);
  store.close();
});

storeTest("jobs list newest first with the latest run blended in", (backend) => {
  const { store } = memStore(backend);
  const a = store.createJob(newJob({ name: "a" }));
  const b = store.createJob(newJob({ name: "b" }));
  store.createRun({ ...runBase, job_id: a.id, status: "ok", exit_code: 0 });
  const latest = store.createRun({
    ...runBase,
    job_id: a.id,
    status: "error",
    exit_code: 1,
    attempt: 2,
  });
  const list = store.listJobs();
  assert.deepEqual(list.map((j) => j.name), ["b", "a"]);
  assert.equal(list[0]!.latest_run, null);
  assert.deepEqual(list[1]!.latest_run, {
    id: latest.id,
    status: "error",
    exit_code: 1,
    attempt: 2,
    queued_at: "2026-03-02T09:00:00Z",
    finished_at: null,
  });
  assert.equal(list[1]!.id, a.id);
  assert.equal(b.id, 2);
  store.close();
});

storeTest(
  "the 101st job of any class is refused with JobLimitError and nothing changes",
  (backend) => {
    const { store } = memStore(backend);
    for (let i = 0; i < 60; i++) store.createJob(newJob({ name: `j${i}` }));
    for (let i = 0; i < 40; i++) {
      store.createJob(newJob({ name: `api${i}`, class: "api", next_run_at: null }));
    }
    for (const cls of ["scheduled", "api"] as const) {
      assert.throws(
        () => store.createJob(newJob({ name: "one too many", class: cls, next_run_at: null })),
        (err: unknown) => {
          assert.ok(err instanceof JobLimitError);
          assert.equal(err.limit, 100);
          assert.match(err.message, /at most 100 jobs.*scheduled and one-shot together.*delete/);
          return true;
        },
      );
    }
    assert.equal(store.countJobs(), 100);
    assert.ok(!store.listJobs().some((j) => j.name === "one too many"));
    store.close();
  },
);

storeTest("listJobs pages newest first with limit and before_id", (backend) => {
  const { store } = memStore(backend);
  for (let i = 0; i < 5; i++) store.createJob(newJob({ name: `j${i}` }));
  const first = store.listJobs({ limit: 2 });
  assert.deepEqual(first.map((j) => j.name), ["j4", "j3"]);
  const next = store.listJobs({ limit: 2, before_id: first[1]!.id });
  assert.deepEqual(next.map((j) => j.name), ["j2", "j1"]);
  assert.equal(store.listJobs().length, 5);
  store.close();
});

storeTest("jobNames names every job by id, newest first", (backend) => {
  const { store } = memStore(backend);
  assert.deepEqual([...store.jobNames()], []);
  const a = store.createJob(newJob({ name: "nightly" }));
  const b = store.createJob(newJob({ name: "weekly <b>" }));
  assert.deepEqual([...store.jobNames()], [[b.id, "weekly <b>"], [a.id, "nightly"]]);
  store.deleteJob(a.id);
  assert.deepEqual([...store.jobNames()], [[b.id, "weekly <b>"]]);
  store.close();
});

storeTest("deleting a job cascades its runs and inbox items", (backend) => {
  const { store } = memStore(backend);
  const job = store.createJob(newJob());
  const other = store.createJob(newJob({ name: "other" }));
  const run = store.createRun({
    ...runBase,
    job_id: job.id,
    status: "needs_human",
    report_path: "/r/1.md",
  });
  const keep = store.createRun({ ...runBase, job_id: other.id });
  store.createInboxItem({ job_id: job.id, run_id: run.id, questions: [], meta: { risk: "high" } });
  assert.equal(store.deleteJob(job.id), true);
  assert.equal(store.getRun(run.id), null);
  assert.equal(store.listInbox().length, 0);
  assert.equal(store.getRun(keep.id)!.job_id, other.id);
  assert.equal(store.deleteJob(job.id), false);
  store.close();
});

storeTest("runs: in-flight lookup, admission order, due jobs and the token window", (backend) => {
  const { clock, store } = memStore(backend);
  const a = store.createJob(newJob({ name: "a", next_run_at: "2026-03-02T08:00:00Z" }));
  const b = store.createJob(newJob({ name: "b", next_run_at: "2026-03-02T08:30:00Z" }));
  store.createJob(newJob({ name: "later", next_run_at: "2026-03-02T11:00:00Z" }));
  store.createJob(newJob({ name: "off", enabled: false, next_run_at: "2026-03-02T07:00:00Z" }));
  assert.deepEqual(store.dueJobs("2026-03-02T09:00:00Z").map((j) => j.name), ["a", "b"]);

  assert.equal(store.inFlightRun(a.id), null);
  const r1 = store.createRun({ ...runBase, job_id: a.id, priority: 10 });
  clock.set("2026-03-02T09:00:01Z");
  const r2 = store.createRun({ ...runBase, job_id: b.id, priority: 5 });
  const r3 = store.createRun({ ...runBase, job_id: b.id, priority: 10, status: "skipped" });
  assert.equal(store.inFlightRun(a.id)!.id, r1.id);
  assert.deepEqual(store.queuedRuns().map((r) => r.id), [r2.id, r1.id]);
  assert.equal(store.countQueued(), 2);
  assert.equal(store.runsWithStatus("skipped")[0]!.id, r3.id);
  store.updateRun(r1.id, {
    status: "ok",
    finished_at: "2026-03-02T08:10:00Z",
    tokens_in: 100,
    tokens_out: 20,
  });
  store.updateRun(r2.id, {
    status: "error",
    finished_at: "2026-03-02T08:50:00Z",
    tokens_in: 5,
    tokens_out: null,
  });
  assert.equal(store.tokensSince("scheduled", "2026-03-02T08:00:00Z"), 125);
  assert.equal(store.tokensSince("scheduled", "2026-03-02T08:30:00Z"), 5);
  assert.equal(store.tokensSince("api", "2026-03-02T08:00:00Z"), 0);
  assert.deepEqual(store.listRuns(b.id).map((r) => r.id), [r3.id, r2.id]);
  assert.deepEqual(store.listRuns(b.id, { before_id: r3.id }).map((r) => r.id), [r2.id]);
  assert.deepEqual(store.listRuns(b.id, { limit: 1 }).map((r) => r.id), [r3.id]);
  assert.throws(() => store.updateRun(999, { status: "ok" }), { name: "NotFoundError" });
  assert.equal(Object.getPrototypeOf(store.getRun(r1.id)), Object.prototype, "plain objects");
  store.close();
});

storeTest(
  "inbox: answer and dismiss only from open; holds use replace semantics and are cleared",
  (backend) => {
    const { store } = memStore(backend);
    const job = store.createJob(newJob());
    const run = store.createRun({ ...runBase, job_id: job.id, status: "needs_human" });
    const q = [{ kind: "approval" as const, text: "Ship it?", options: ["yes", "no"] }];
    const item = store.createInboxItem({
      job_id: job.id,
      run_id: run.id,
      questions: q,
      meta: { risk: "high" },
    });
    assert.equal(item.state, "open");
    assert.deepEqual(item.questions, q);
    assert.equal(store.setHold(item.id, '{"verb":"approve"}').held_json, '{"verb":"approve"}');
    assert.equal(store.setHold(item.id, '{"verb":"reject"}').held_json, '{"verb":"reject"}');
    assert.equal(store.countInbox("open"), 1);
    const answered = store.answerInbox(item.id, "approved", "dashboard-high-risk-confirm");
    assert.equal(answered.state, "answered");
    assert.equal(answered.answer, "approved");
    assert.equal(answered.answered_via, "dashboard-high-risk-confirm");
    assert.equal(answered.answered_at, "2026-03-02T09:00:00Z");
    assert.equal(answered.held_json, null, "an answer clears the hold");
    assert.throws(() => store.answerInbox(item.id, "again", "chat"), {
      name: "InboxStateError",
      message: /is answered, not open/,
    });
    assert.throws(() => store.dismissInbox(item.id, "chat"), { name: "InboxStateError" });
    assert.throws(() => store.setHold(item.id, "{}"), { name: "InboxStateError" });
    assert.equal(store.getInboxItem(item.id)!.answer, "approved", "unchanged by refused calls");
    const second = store.createInboxItem({
      job_id: job.id,
      run_id: run.id,
      questions: [],
      meta: {},
    });
    store.setHold(second.id, "{}");
    const dismissed = store.dismissInbox(second.id, "push-action");
    assert.equal(dismissed.state, "dismissed");
    assert.equal(dismissed.held_json, null);
    assert.deepEqual(store.listInbox({ state: "answered" }).map((i) => i.id), [item.id]);
    assert.deepEqual(store.listInbox().map((i) => i.id), [second.id, item.id]);
    assert.throws(() => store.answerInbox(404, "x", "chat"), { name: "NotFoundError" });
    store.close();
  },
);

storeTest("audit rows append and list newest first; a failure never throws", (backend) => {
  const { store } = memStore(backend);
  store.appendAudit({
    action: "body_read",
    target: "facts/a.md",
    actor: "dashboard",
    channel: "dashboard",
    detail: "",
  });
  const row = store.appendAudit({
    action: "stop",
    target: "job:3",
    actor: "@op:x",
    channel: "dashboard",
    detail: "killed",
  });
  assert.equal(row!.at, "2026-03-02T09:00:00Z");
  assert.deepEqual(store.listAudit().map((r) => r.action), ["stop", "body_read"]);
  assert.deepEqual(store.listAudit({ action: "body_read" }).map((r) => r.target), ["facts/a.md"]);
  store.close();
  assert.equal(
    store.appendAudit({ action: "x", target: "y", actor: "", channel: "dashboard", detail: "" }),
    null,
  );
});

storeTest("push subscriptions upsert by endpoint and track delivery health", (backend) => {
  const { store } = memStore(backend);
  const keys = { p256dh: "BPk", auth: "au" };
  store.upsertPushSubscription({ endpoint: "https://push/1", keys });
  store.recordPushResult("https://push/1", false);
  store.recordPushResult("https://push/1", false);
  assert.equal(store.listPushSubscriptions()[0]!.failure_count, 2);
  store.recordPushResult("https://push/1", true);
  const healthy = store.listPushSubscriptions()[0]!;
  assert.equal(healthy.failure_count, 0);
  assert.equal(healthy.last_success_at, "2026-03-02T09:00:00Z");
  const replaced = store.upsertPushSubscription({
    endpoint: "https://push/1",
    keys: { p256dh: "new", auth: "a2" },
  });
  assert.deepEqual(replaced.keys, { p256dh: "new", auth: "a2" });
  assert.equal(store.listPushSubscriptions().length, 1);
  assert.equal(store.deletePushSubscription("https://push/1"), true);
  assert.equal(store.deletePushSubscription("https://push/1"), false);
  store.close();
});

storeTest(
  "machine tokens: only hashes stored; verify stamps use; revoked tokens fail",
  (backend) => {
    const { clock, store } = memStore(backend);
    const t = store.createMachineToken("ci", "sha256:abc");
    assert.equal(t.last_used_at, null);
    assert.throws(() => store.createMachineToken("dup", "sha256:abc"), /unique/i);
    clock.set("2026-03-02T10:00:00Z");
    assert.equal(store.verifyMachineToken("sha256:abc")!.last_used_at, "2026-03-02T10:00:00Z");
    assert.equal(store.verifyMachineToken("sha256:nope"), null);
    const revoked = store.revokeMachineToken(t.id);
    assert.equal(revoked.revoked_at, "2026-03-02T10:00:00Z");
    clock.set("2026-03-02T11:00:00Z");
    assert.equal(
      store.revokeMachineToken(t.id).revoked_at,
      "2026-03-02T10:00:00Z",
      "first revocation kept",
    );
    assert.equal(store.verifyMachineToken("sha256:abc"), null);
    assert.equal(store.listMachineTokens().length, 1);
    assert.throws(() => store.revokeMachineToken(42), { name: "NotFoundError" });
    store.close();
  },
);

Deno.test("a corrupted JSON column reads as empty instead of breaking the listing", async () => {
  const home = await Deno.makeTempDir();
  try {
    const path = outpostDbPath(home);
    const clock = new FakeClock();
    let store = new SqliteStore({ path, clock });
    const job = store.createJob(newJob({ meta: { room: "!r" } }));
    const run = store.createRun({ ...runBase, job_id: job.id });
    store.createInboxItem({ job_id: job.id, run_id: run.id, questions: [], meta: {} });
    store.close();
    const db = new DatabaseSync(path); // a hand edit or a broken tool
    db.exec("UPDATE jobs SET meta = 'not json'; UPDATE inbox_items SET questions = '{oops'");
    db.close();
    store = new SqliteStore({ path, clock });
    assert.deepEqual(store.listJobs()[0]!.meta, {});
    assert.deepEqual(store.listInbox()[0]!.questions, []);
    store.close();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

storeTest(
  "atomically: all writes land together; a nested failure rolls back only its own part",
  (backend) => {
    const { store } = memStore(backend);
    const a = store.createJob(newJob({ name: "a" }));
    const b = store.createJob(newJob({ name: "b" }));
    // An outer failure keeps nothing.
    assert.throws(
      () =>
        store.atomically(() => {
          store.createRun({ ...runBase, job_id: a.id });
          store.setNextRunAt(a.id, "2030-01-01T00:00:00Z");
          throw new Error("boom");
        }),
      /boom/,
    );
    assert.equal(store.listRuns(a.id).length, 0);
    assert.notEqual(store.getJob(a.id)!.next_run_at, "2030-01-01T00:00:00Z");
    // A caught inner failure loses only the inner writes; the rest commits.
    const kept = store.atomically(() => {
      const run = store.createRun({ ...runBase, job_id: a.id });
      try {
        store.atomically(() => {
          store.createRun({ ...runBase, job_id: b.id });
          store.setNextRunAt(b.id, "2030-01-01T00:00:00Z");
          throw new Error("inner");
        });
      } catch { /* the caller decides to go on */ }
      store.atomically(() => store.setNextRunAt(a.id, "2031-01-01T00:00:00Z"));
      return run;
    });
    assert.deepEqual(store.listRuns(a.id).map((r) => r.id), [kept.id]);
    assert.equal(store.getJob(a.id)!.next_run_at, "2031-01-01T00:00:00Z");
    assert.equal(store.listRuns(b.id).length, 0);
    assert.notEqual(store.getJob(b.id)!.next_run_at, "2030-01-01T00:00:00Z");
    // The store is usable afterwards: no transaction was left open.
    store.createRun({ ...runBase, status: "skipped", job_id: b.id });
    assert.equal(store.listRuns(b.id).length, 1);
  },
);

storeTest(
  "createRun returns exactly the row it stored, minimal or full; a bad run stores nothing",
  (backend) => {
    const { store } = memStore(backend);
    const job = store.createJob(newJob());
    const minimal = store.createRun({ ...runBase, job_id: job.id });
    assert.deepEqual(minimal, store.getRun(minimal.id));
    assert.equal(minimal.queued_at, "2026-03-02T09:00:00Z");
    assert.equal(minimal.exit_code, null);
    const full = store.createRun({
      ...runBase,
      job_id: job.id,
      status: "ok",
      attempt: 2,
      exit_code: 0,
      reason: "done",
      queued_at: "2026-03-02T08:00:00Z",
      not_before: "2026-03-02T08:01:00Z",
      started_at: "2026-03-02T08:02:00Z",
      finished_at: "2026-03-02T08:03:00Z",
      pid: 42,
      pid_start: "boot:42",
      report_path: "/r/1.md",
      session_id: "s-1",
      tokens_in: 10,
      tokens_out: 5,
      cost_usd: 0.25,
      cancelled_at: null,
      resume_of_run: minimal.id,
      answer: "yes",
      class: "api",
    });
    assert.deepEqual(full, store.getRun(full.id));
    assert.throws(() => store.createRun({ ...runBase, job_id: 9999 }), /foreign key/i);
    assert.throws(
      () => store.createRun({ ...runBase, job_id: job.id, status: "bogus" as never }),
      /CHECK|check constraint/,
    );
    assert.deepEqual(store.listRuns(job.id).map((r) => r.id), [full.id, minimal.id]);
  },
);

storeTest(
  "createRuns stores rows in order with ascending ids, across chunks; a bad row stores none of them",
  (backend) => {
    const { store } = memStore(backend);
    const a = store.createJob(newJob({ name: "a" }));
    const b = store.createJob(newJob({ name: "b" }));
    store.createRun({ ...runBase, job_id: a.id }); // ids do not start at 1
    // 150 rows: more than one multi-row statement (64 rows each), mixed shapes.
    const input = Array.from(
      { length: 150 },
      (_, i) =>
        i % 3 === 0
          ? { ...runBase, job_id: a.id, status: "skipped" as const, reason: `skip ${i}` }
          : { ...runBase, job_id: i % 2 ? a.id : b.id, priority: i, finished_at: null },
    );
    const runs = store.createRuns(input);
    assert.equal(runs.length, 150);
    for (const [i, run] of runs.entries()) {
      assert.deepEqual(run, store.getRun(run.id), `row ${i} is what was stored`);
      assert.equal(run.job_id, input[i]!.job_id);
      if (i > 0) assert.equal(run.id, runs[i - 1]!.id + 1, "consecutive ids in input order");
    }
    assert.equal(runs[3]!.reason, "skip 3");
    assert.equal(runs[4]!.priority, 4);
    assert.deepEqual(store.createRuns([]), []);
    const before = store.listRuns(a.id, { limit: 1000 }).length;
    assert.throws(
      () => store.createRuns([{ ...runBase, job_id: a.id }, { ...runBase, job_id: 9999 }]),
      /foreign key/i,
    );
    assert.equal(store.listRuns(a.id, { limit: 1000 }).length, before, "the good row went too");
    const many = Array.from({ length: 120 }, () => ({ ...runBase, job_id: a.id }));
    many[100] = { ...runBase, job_id: 9999 };
    assert.throws(() => store.createRuns(many), /foreign key/i);
    assert.equal(store.listRuns(a.id, { limit: 1000 }).length, before, "no chunk stays behind");
  },
);
