import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryLogger } from "../core/logger.ts";
import { envFrom } from "../core/ports.ts";
import { outpostDbPath, SqliteStore } from "../core/store/sqlite_store.ts";
import type { NewAuditRow } from "../core/store/store.ts";
import { FakeClock } from "../tests/fakes/clock.ts";
import { newJobFixture as newJob } from "../tests/fakes/job_fixture.ts";
import { FakeSpawner } from "../tests/fakes/spawner.ts";
import { RetentionSweeper } from "./retention_sweeper.ts";
import { openOutpost } from "./wiring.ts";

const DAY = 86_400_000;
const NOW = "2026-03-02T09:00:00Z";
const ago = (days: number) =>
  new Date(Date.parse(NOW) - days * DAY).toISOString().slice(0, 19) + "Z";

function open(home: string, clock: FakeClock, env: Record<string, string> = {}) {
  return openOutpost({
    home,
    env: envFrom({ PATH: "/usr/bin:/bin", ...env }),
    clock,
    logger: new MemoryLogger(),
    spawner: new FakeSpawner(),
    agentCommand: { command: "false", args: [] },
    fetch: () => Promise.reject(new Error("no network in this test")),
    baseUrl: "http://127.0.0.1",
    memoryRoot: join(home, "memory"),
    jobDefaults: {},
  });
}

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

Deno.test("outpost: the retention sweep runs at open and daily, removes expired history with its reports, and audits it", async () => {
  const home = await Deno.makeTempDir({ prefix: "outpost_retention_" });
  // History written two months ago by an earlier start of the outpost.
  const before = new SqliteStore({ path: outpostDbPath(home), clock: new FakeClock(ago(60)) });
  const job = before.createJob(newJob());
  const reportPath = join(home, "outpost", "runs", String(job.id), "old.md");
  Deno.mkdirSync(join(reportPath, ".."), { recursive: true });
  Deno.writeTextFileSync(reportPath, "# old\n");
  const run = (days: number, path: string | null = null) =>
    before.createRun({
      job_id: job.id,
      status: "ok",
      attempt: 1,
      priority: 10,
      class: "scheduled",
      finished_at: ago(days),
      report_path: path,
    });
  const old = run(40, reportPath);
  const nearly = run(29.5);
  const latest = run(1);
  before.appendAudit({
    at: ago(45),
    action: "job_create",
    target: "job:1",
    actor: "a",
    channel: "dashboard",
    detail: "",
  });
  before.close();

  const clock = new FakeClock(NOW);
  const outpost = await open(home, clock);
  try {
    const { store } = outpost.deps;
    const rows = () => store.listAudit({ action: "retention_sweep" });
    await outpost.retention.swept(1);
    assert.equal(store.getRun(old.id), null);
    assert.equal(exists(reportPath), false, "the report went with its run");
    assert.ok(store.getRun(nearly.id) && store.getRun(latest.id));
    assert.equal(store.listAudit({ action: "job_create" }).length, 0);
    assert.equal(rows().length, 1);
    assert.equal(rows()[0]!.actor, "outpost");
    assert.equal(rows()[0]!.target, "history");
    assert.match(
      rows()[0]!.detail,
      /^deleted 0 finished one-shot jobs .*, 1 old runs, 1 audit rows; removed 1 report files/,
    );

    // Parked until tomorrow; a day later the run of 29.5 days ago has expired too.
    await clock.advance(DAY);
    await outpost.retention.swept(2);
    assert.equal(store.getRun(nearly.id), null);
    assert.ok(store.getRun(latest.id), "a job's latest run is kept however old");
    assert.equal(rows().length, 2, "the first sweep's own row survives the second sweep");
  } finally {
    await outpost.close();
    await Deno.remove(home, { recursive: true });
  }
  assert.equal(clock.pending, 0, "no sleeper left on the clock after close");
});

Deno.test("outpost: a bad retention variable stops the start with one line naming it", async () => {
  const home = await Deno.makeTempDir({ prefix: "outpost_retention_" });
  try {
    await assert.rejects(
      () => open(home, new FakeClock(NOW), { AGENT_OUTPOST_RETENTION_DAYS: "a month" }),
      /AGENT_OUTPOST_RETENTION_DAYS: "a month" is not a whole number of days/,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("retention sweeper: a failing sweep is logged, never thrown, and an empty one writes no row", async () => {
  const clock = new FakeClock(NOW);
  const logger = new MemoryLogger();
  const rows: NewAuditRow[] = [];
  let calls = 0;
  const sweeper = new RetentionSweeper({
    store: {
      pruneOneShots: () => {
        if (++calls === 1) throw new Error("database is locked");
        return { jobs: 0, runs: 0, reports: [] };
      },
      pruneRuns: () => ({ jobs: 0, runs: 0, reports: [] }),
      pruneAudit: () => 0,
      appendAudit: (row) => {
        rows.push(row);
        return { id: rows.length, at: NOW, ...row };
      },
      getInboxItem: () => null,
    },
    home: "/nonexistent",
    policy: { days: 30, oneShotDays: 7 },
    clock,
    logger,
  });
  sweeper.start();
  await sweeper.swept(1);
  assert.equal(logger.entries.length, 1);
  assert.match(logger.entries[0]!.message, /retention sweep failed/);
  assert.equal(logger.entries[0]!.data?.error, "database is locked");
  await clock.advance(DAY);
  await sweeper.swept(2);
  assert.equal(rows.length, 0, "nothing removed, nothing audited");
  assert.equal(logger.entries.length, 1);
  await sweeper.stop();
  assert.equal(clock.pending, 0);
});
