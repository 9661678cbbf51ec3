// The schema steps on both engines (tests/store_backends.ts): a fresh database gets every step
// once; a database at any older step upgrades with its rows kept; a newer one is refused and
// left as it was; a failing step rolls back; several openers of one blank database at once
// leave each step applied once. Checks only one engine can make (SQLite's file bytes, each
// engine's catalog) sit in that engine's branch of the same test.

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { type StoreBackend, storeTest } from "../../tests/store_backends.ts";
import type { OpenRequest } from "../../tests/store_open_worker.ts";
import { SchemaTooNewError, StoreOpenError } from "./errors.ts";
import { MigrationError, schemaVersion } from "./migrations.ts";
import type { SqlConnection } from "./sql_connection.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";

/** Runs `fn` on a plain connection to `where`, then closes it. */
function withConnection<T>(
  backend: StoreBackend,
  where: string,
  fn: (db: SqlConnection) => T,
): T {
  const db = backend.connect(where);
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

function versions(backend: StoreBackend, where: string): number[] {
  return withConnection(
    backend,
    where,
    (db) =>
      db.prepare("SELECT version FROM schema_migrations ORDER BY version").all()
        .map((r) => Number(r.version)),
  );
}

/** Whether a table exists: each engine's own catalog. */
function tableExists(backend: StoreBackend, db: SqlConnection, name: string): boolean {
  const sql = backend.name === "sqlite"
    ? "SELECT name AS t FROM sqlite_master WHERE type = 'table' AND name = ?"
    : "SELECT to_regclass(?)::text AS t";
  return (db.prepare(sql).get(name)?.t ?? null) !== null;
}

const latest = (backend: StoreBackend) => backend.migrations.at(-1)!.version;

storeTest("migrations apply once, in order, and are recorded", (backend) => {
  const where = backend.blank();
  const clock = new FakeClock();
  backend.openAt(where, clock).close();
  assert.deepEqual(versions(backend, where), backend.migrations.map((m) => m.version));
  const store = backend.openAt(where, clock); // reopening applies nothing again
  store.createJob(newJobFixture({ name: "n" }));
  store.close();
  assert.deepEqual(versions(backend, where), backend.migrations.map((m) => m.version));
});

storeTest("a database at any older step upgrades to the last with its rows kept", (backend) => {
  const clock = new FakeClock("2026-03-02T00:00:00Z");
  for (const from of backend.migrations.slice(0, -1)) {
    const where = backend.blank();
    backend.openAt(where, clock, backend.migrations.filter((m) => m.version <= from.version))
      .close();
    // Rows as the code of that step wrote them: step 1's columns, which every later step keeps.
    const { jobId, runId } = withConnection(backend, where, (db) => {
      const job = db.prepare(
        `INSERT INTO jobs (name, prompt, schedule_kind, schedule_expr, workdir, timeout_s,
           created_at, updated_at) VALUES (?, 'p', 'every', '1h', '/w', 60, ?, ?) RETURNING id`,
      ).get(`kept from step ${from.version}`, "2026-03-01T00:00:00Z", "2026-03-01T00:00:00Z")!;
      const run = db.prepare(
        `INSERT INTO runs (job_id, status, queued_at, finished_at, priority, class, tokens_in)
           VALUES (?, 'ok', '2026-03-01T10:00:00Z', '2026-03-01T10:05:00Z', 10, 'scheduled', 7)
           RETURNING id`,
      ).get(job.id!)!;
      db.prepare(
        `INSERT INTO audit (at, action, target, actor, detail)
           VALUES ('2026-03-01T10:00:00Z', 'job_create', ?, 'dashboard', 'd')`,
      ).run(`job:${job.id}`);
      return { jobId: Number(job.id), runId: Number(run.id) };
    });
    const store = backend.openAt(where, clock);
    try {
      const step = `from step ${from.version}`;
      assert.equal(store.getJob(jobId)?.name, `kept from step ${from.version}`, step);
      assert.deepEqual(store.listRuns(jobId).map((r) => [r.id, r.status, r.tokens_in]), [
        [runId, "ok", 7],
      ], step);
      assert.equal(store.listAudit({ target: `job:${jobId}` }).length, 1, step);
      // And the store writes at the last step: a new job and run beside the old ones.
      const job = store.createJob(newJobFixture({ name: "new" }));
      store.createRun({ job_id: job.id, status: "queued", attempt: 1, priority: 10, class: "api" });
      assert.equal(store.countJobs(), 2, step);
    } finally {
      store.close();
    }
    assert.deepEqual(versions(backend, where), backend.migrations.map((m) => m.version));
  }
});

storeTest(
  "a database newer than the code is refused with a clear error and left untouched",
  async (backend) => {
    const where = backend.blank();
    const clock = new FakeClock();
    const store = backend.openAt(where, clock);
    store.createJob(newJobFixture({ name: "kept" }));
    store.close();
    withConnection(backend, where, (db) =>
      db.exec(
        "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 'x')",
      ));
    const rows = () =>
      withConnection(backend, where, (db) => [
        db.prepare("SELECT version, name FROM schema_migrations ORDER BY version").all(),
        db.prepare("SELECT id, name, updated_at FROM jobs ORDER BY id").all(),
      ]);
    const before = rows();
    // SQLite's database is one file: refused means not one byte of it changed.
    const bytes = backend.name === "sqlite" ? await Deno.readFile(where) : null;
    assert.throws(() => backend.openAt(where, clock), (err: unknown) => {
      assert.ok(err instanceof SchemaTooNewError, String(err));
      assert.equal(err.found, 99);
      assert.equal(err.supported, latest(backend));
      assert.match(err.message, /schema version 99, newer than this program understands/);
      assert.match(err.message, /run a newer agent-outpost/);
      return true;
    });
    assert.deepEqual(rows(), before);
    if (bytes) assert.deepEqual(await Deno.readFile(where), bytes);
  },
);

storeTest("a failing migration rolls back and names its step", (backend) => {
  const where = backend.blank();
  const clock = new FakeClock();
  const last = latest(backend);
  const broken = [
    ...backend.migrations,
    {
      version: last + 1,
      name: "half-done",
      sql: "CREATE TABLE extra (x INTEGER); INSERT INTO nowhere VALUES (1);",
    },
  ];
  assert.throws(() => backend.openAt(where, clock, broken), (err: unknown) => {
    assert.ok(err instanceof MigrationError, String(err));
    assert.equal(err.version, last + 1);
    assert.match(
      err.message,
      new RegExp(`migration ${last + 1} \\(half-done\\) failed and was rolled back`),
    );
    return true;
  });
  withConnection(backend, where, (db) => {
    assert.equal(schemaVersion(db), last, "the shipped steps kept, the broken one not recorded");
    assert.equal(tableExists(backend, db, "extra"), false, "no half-applied table");
  });
  backend.openAt(where, clock).close(); // the good code still opens it
});

storeTest(
  "migration 6 names chat audit actions by verb and gives every row its channel",
  (backend) => {
    const where = backend.blank();
    const clock = new FakeClock();
    // A version 5 database with rows from every door, as the code before step 6 wrote them.
    backend.openAt(where, clock, backend.migrations.filter((m) => m.version <= 5)).close();
    const rows: [string, string, string][] = [
      ["chat_approve", "@ann:hs", "via chat in !dm:hs; approved"],
      ["chat_answer", "@ann:hs", "via chat; job 1 run 2; resume run 3"],
      ["chat_stop", "@ann:hs", "via chat in !dm:hs; run 4 (running)"],
      ["high_risk_hold", "@ann:hs", "via chat; job 1 run 2; approve held for confirmation"],
      ["high_risk_confirm", "dashboard", "via dashboard-high-risk-confirm; job 1 run 2"],
      ["answer", "user:bob", "via dashboard; job 1 run 2; resume run 5"],
      ["push_approve", "dashboard", "via push-action; job 1 run 2"],
      ["api_submit", "token:3:ci", "one-shot run 6 queued"],
      ["job_cancel", "token:3:ci", "run 6 cancelled while queued"],
      ["webhook_fire", "webhook:github", "delivery d1: acme/w#1 -> job 7"],
      ["token_create", "cli", 'created "ci"'],
      ["dead_letter", "scheduler", "4 consecutive failed attempts"],
      ["push_unsubscribe", "push-service", "pruned: the push service answered 410"],
      ["job_create", "dashboard", 'created "nightly"'],
    ];
    withConnection(backend, where, (db) => {
      const insert = db.prepare(
        "INSERT INTO audit (at, action, target, actor, detail) VALUES ('2026-03-01T00:00:00Z', ?, 't', ?, ?)",
      );
      for (const [action, actor, detail] of rows) insert.run(action, actor, detail);
    });
    const store = backend.openAt(where, clock);
    try {
      const got = store.listAudit({ limit: 100 }).reverse().map((r) => [r.action, r.channel]);
      assert.deepEqual(got, [
        ["approve", "chat"],
        ["answer", "chat"],
        ["stop", "chat"],
        ["high_risk_hold", "chat"],
        ["high_risk_confirm", "dashboard"],
        ["answer", "dashboard"],
        ["push_approve", "push"],
        ["api_submit", "machine"],
        ["job_cancel", "machine"],
        ["webhook_fire", "webhook"],
        ["token_create", "cli"],
        ["dead_letter", "outpost"],
        ["push_unsubscribe", "outpost"],
        ["job_create", "dashboard"],
      ]);
      // `action=answer` now finds the chat answer too; the channel tells them apart.
      assert.equal(store.listAudit({ action: "answer" }).length, 2);
      assert.deepEqual(store.listAudit({ channel: "chat" }).map((r) => r.action), [
        "high_risk_hold",
        "stop",
        "answer",
        "approve",
      ]);
    } finally {
      store.close();
    }
  },
);

storeTest("openers of one blank database at once: every step is applied once", async (backend) => {
  const where = backend.blank();
  const parties = 4;
  const barrier = new SharedArrayBuffer(4);
  const workers = Array.from(
    { length: parties },
    () =>
      new Worker(new URL("../../tests/store_open_worker.ts", import.meta.url), { type: "module" }),
  );
  try {
    const answers = await Promise.all(
      workers.map((worker) =>
        new Promise<{ ok: boolean; error?: string }>((resolve, reject) => {
          worker.onmessage = (e) => resolve(e.data);
          worker.onerror = (e) => reject(new Error(e.message));
          const request: OpenRequest = { engine: backend.name, where, barrier, parties };
          worker.postMessage(request);
        })
      ),
    );
    assert.deepEqual(answers, Array(parties).fill({ ok: true }));
  } finally {
    for (const worker of workers) worker.terminate();
  }
  assert.deepEqual(versions(backend, where), backend.migrations.map((m) => m.version));
});

storeTest(
  "a database that cannot be opened is a StoreOpenError naming where it is",
  async (backend) => {
    let where: string;
    if (backend.name === "sqlite") {
      // A file that is not a database: only a file-backed engine can be handed one.
      where = backend.blank();
      await Deno.writeTextFile(where, "this is not a database, just some text ".repeat(100));
    } else {
      // A server that answers, without the database the URL names.
      const url = new URL(backend.blank());
      url.pathname = "/no_such_database";
      where = url.href;
    }
    assert.throws(() => backend.openAt(where, new FakeClock()), (err: unknown) => {
      assert.ok(err instanceof StoreOpenError, String(err));
      assert.equal(err.path, where);
      assert.match(
        err.message,
        backend.name === "sqlite"
          ? /cannot open the outpost store at .*not a database/
          : /cannot open the outpost store at .*no_such_database.*does not exist/,
      );
      return true;
    });
  },
);
