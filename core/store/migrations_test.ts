import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { SchemaTooNewError, StoreOpenError } from "./errors.ts";
import { MigrationError, MIGRATIONS, schemaVersion } from "./migrations.ts";
import { outpostDbPath, SqliteStore } from "./sqlite_store.ts";

async function withHome(fn: (path: string) => void | Promise<void>) {
  const home = await Deno.makeTempDir();
  try {
    await fn(outpostDbPath(home));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

function versions(path: string): number[] {
  const db = new DatabaseSync(path);
  const rows = db.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as {
    version: number;
  }[];
  db.close();
  return rows.map((r) => r.version);
}

Deno.test("migrations apply once, in order, and are recorded", () =>
  withHome((path) => {
    const clock = new FakeClock();
    new SqliteStore({ path, clock }).close();
    assert.deepEqual(versions(path), MIGRATIONS.map((m) => m.version));
    const store = new SqliteStore({ path, clock }); // reopening applies nothing again
    store.createJob({
      name: "n",
      prompt: "p",
      schedule: { kind: "every", expr: "1h", tz: "UTC" },
      workdir: "/w",
      mode: "auto",
      timeout_s: 60,
      max_retries: 3,
      token_budget: null,
      priority: null,
      output_surface: "",
      base_url: "",
      model: "",
      provider_preset: "",
      enabled: true,
      recipe_id: null,
      recipe_version: null,
      next_run_at: null,
      class: "scheduled",
      meta: {},
    });
    store.close();
    assert.deepEqual(versions(path), MIGRATIONS.map((m) => m.version));
  }));

Deno.test("a database newer than the code is refused with a clear error and left untouched", () =>
  withHome(async (path) => {
    const clock = new FakeClock();
    new SqliteStore({ path, clock }).close();
    const db = new DatabaseSync(path);
    db.exec("INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 'x')");
    db.close();
    const before = await Deno.readFile(path);
    assert.throws(() => new SqliteStore({ path, clock }), (err: unknown) => {
      assert.ok(err instanceof SchemaTooNewError);
      assert.equal(err.found, 99);
      assert.equal(err.supported, MIGRATIONS.at(-1)!.version);
      assert.match(err.message, /schema version 99, newer than this program understands/);
      assert.match(err.message, /run a newer agent-outpost/);
      return true;
    });
    assert.deepEqual(await Deno.readFile(path), before);
  }));

Deno.test("a failing migration rolls back and names its step", () =>
  withHome((path) => {
    const clock = new FakeClock();
    const last = MIGRATIONS.at(-1)!.version;
    const broken = [
      ...MIGRATIONS,
      {
        version: last + 1,
        name: "half-done",
        sql: "CREATE TABLE extra (x); INSERT INTO nowhere VALUES (1);",
      },
    ];
    assert.throws(() => new SqliteStore({ path, clock, migrations: broken }), (err: unknown) => {
      assert.ok(err instanceof MigrationError);
      assert.equal(err.version, last + 1);
      assert.match(
        err.message,
        new RegExp(`migration ${last + 1} \\(half-done\\) failed and was rolled back`),
      );
      return true;
    });
    const db = new DatabaseSync(path);
    assert.equal(schemaVersion(db), last, "the shipped steps kept, the broken one not recorded");
    const extra = db.prepare("SELECT name FROM sqlite_master WHERE name = 'extra'").get();
    assert.equal(extra, undefined, "no half-applied table");
    db.close();
    new SqliteStore({ path, clock }).close(); // the good code still opens it
  }));

Deno.test("migration 6 names chat audit actions by verb and gives every row its channel", () =>
  withHome((path) => {
    const clock = new FakeClock();
    // A version 5 database with rows from every door, as the code before step 6 wrote them.
    new SqliteStore({ path, clock, migrations: MIGRATIONS.filter((m) => m.version <= 5) })
      .close();
    const db = new DatabaseSync(path);
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
    const insert = db.prepare(
      "INSERT INTO audit (at, action, target, actor, detail) VALUES ('2026-03-01T00:00:00Z', ?, 't', ?, ?)",
    );
    for (const [action, actor, detail] of rows) insert.run(action, actor, detail);
    db.close();
    const store = new SqliteStore({ path, clock });
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
  }));

Deno.test("a file that is not a SQLite database is a StoreOpenError naming the path", () =>
  withHome(async (path) => {
    await Deno.mkdir(path.replace(/\/outpost\.db$/, ""), { recursive: true });
    await Deno.writeTextFile(path, "this is not a database, just some text ".repeat(100));
    assert.throws(() => new SqliteStore({ path, clock: new FakeClock() }), (err: unknown) => {
      assert.ok(err instanceof StoreOpenError);
      assert.equal(err.path, path);
      assert.match(err.message, /cannot open the outpost store at .*not a database/);
      return true;
    });
  }));
