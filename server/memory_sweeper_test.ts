import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeClock } from "../tests/fakes/clock.ts";
import { MemoryLogger } from "../core/logger.ts";
import { DAY } from "../core/memory/limits.ts";
import type { SweepReport } from "../core/memory/sweep.ts";
import { envFrom } from "../core/ports.ts";
import { FakeSpawner } from "../tests/fakes/spawner.ts";
import type { NewAuditRow } from "../core/store/store.ts";
import { MEMORY_SWEEP_ACTION, MemorySweeper } from "./memory_sweeper.ts";
import { openOutpost } from "./wiring.ts";

const HOUR = DAY / 24;

function writeAged(root: string, rel: string, category: string, mtime: Date): string {
  const path = join(root, rel);
  Deno.mkdirSync(join(path, ".."), { recursive: true });
  Deno.writeTextFileSync(path, `---\ncategory: ${category}\n---\n# ${rel}\nbody\n`);
  Deno.utimeSync(path, mtime, mtime);
  return path;
}

function exists(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

Deno.test("outpost: sweeps memory at open with an audit row, again a day later, and close leaves no timer", async () => {
  const home = await Deno.makeTempDir({ prefix: "outpost_sweep_" });
  const memoryRoot = join(home, "memory");
  const clock = new FakeClock("2026-03-02T09:00:00Z");
  const ago = (ms: number) => new Date(clock.now().getTime() - ms);
  const oldSession = writeAged(memoryRoot, "scratch/old.md", "session", ago(2 * DAY));
  const oldEpisode = writeAged(memoryRoot, "episodes/2025-12.md", "episodic", ago(50 * DAY));
  const freshSession = writeAged(memoryRoot, "scratch/today.md", "session", ago(HOUR));
  const freshEpisode = writeAged(memoryRoot, "episodes/recent.md", "episodic", ago(10 * DAY));
  const oldFact = writeAged(memoryRoot, "facts/build.md", "project-fact", ago(200 * DAY));
  const logger = new MemoryLogger();
  const outpost = await openOutpost({
    home,
    env: envFrom({ PATH: "/usr/bin:/bin" }),
    clock,
    logger,
    spawner: new FakeSpawner(),
    agentCommand: { command: "false", args: [] },
    fetch: () => Promise.reject(new Error("no network in this test")),
    baseUrl: "http://127.0.0.1",
    memoryRoot,
    jobDefaults: {},
  });
  try {
    const rows = () => outpost.deps.store.listAudit({ action: MEMORY_SWEEP_ACTION });
    await outpost.sweeper.swept(1);
    assert.equal(exists(oldSession), false);
    assert.equal(exists(oldEpisode), false);
    assert.ok(exists(freshSession) && exists(freshEpisode));
    assert.ok(exists(oldFact), "project facts are only flagged stale, never deleted");
    const first = rows();
    assert.equal(first.length, 1);
    assert.equal(first[0]!.actor, "outpost");
    assert.equal(first[0]!.target, "memory");
    assert.match(first[0]!.detail, /^deleted 2, could not delete 0, stale 1; deleted: /);
    assert.match(first[0]!.detail, /\/memories\/scratch\/old\.md/);
    assert.match(first[0]!.detail, /\/memories\/episodes\/2025-12\.md/);
    assert.equal(Date.parse(first[0]!.at), clock.now().getTime());

    // Parked until tomorrow on the injected clock (beside the retention sweeper); nothing
    // more happens before that.
    await outpost.retention.swept(1);
    assert.equal(clock.pending, 2);
    await clock.advance(DAY - 2 * HOUR);
    assert.equal(outpost.sweeper.count, 1);
    assert.ok(exists(freshSession));

    // A day after the first sweep the once-fresh session file is 25 hours old.
    await clock.advance(2 * HOUR);
    await outpost.sweeper.swept(2);
    assert.equal(exists(freshSession), false);
    assert.ok(exists(freshEpisode) && exists(oldFact));
    assert.equal(rows().length, 2);
    assert.match(rows()[0]!.detail, /^deleted 1, .*scratch\/today\.md$/);
    // The memory pane shares the same store and no longer lists the deleted files.
    const listed = (await outpost.deps.memory()).list().files.map((f) => f.path).sort();
    assert.deepEqual(listed, ["/memories/episodes/recent.md", "/memories/facts/build.md"]);
    assert.deepEqual(logger.entries.filter((e) => e.level !== "info"), []);
  } finally {
    await outpost.close();
    await Deno.remove(home, { recursive: true });
  }
  assert.equal(clock.pending, 0, "no sleeper left on the clock after close");
  // A stopped sweeper stays stopped.
  await clock.advance(3 * DAY);
  assert.equal(outpost.sweeper.count, 2);
});

function report(deleted: string[], failed: SweepReport["failed"] = []): SweepReport {
  return { deleted, stale: [], failed };
}

function recorder() {
  const rows: NewAuditRow[] = [];
  return {
    rows,
    appendAudit(row: NewAuditRow) {
      rows.push(row);
      return { id: rows.length, at: "", ...row };
    },
  };
}

Deno.test("sweeper: a failing sweep is logged, never thrown, and tomorrow's sweep still runs", async () => {
  const clock = new FakeClock();
  const logger = new MemoryLogger();
  const store = recorder();
  const results: Array<() => SweepReport> = [
    () => {
      throw new Error("database disk image is malformed");
    },
    () => report([]),
    () => report(["/memories/a.md"], [{ path: "/memories/deep/b.md", error: "refused" }]),
  ];
  let opens = 0;
  const sweeper = new MemorySweeper({
    memory: () => {
      opens++;
      if (opens === 1) return Promise.reject(new Error("memory_dir /nope is not a directory"));
      return Promise.resolve({ sweep: () => results.shift()!() });
    },
    store,
    clock,
    logger,
  });
  sweeper.start();
  sweeper.start(); // a second start is a no-op, not a second loop
  await sweeper.swept(1);
  assert.equal(logger.entries.length, 1);
  assert.equal(logger.entries[0]!.level, "warn");
  assert.match(logger.entries[0]!.message, /memory sweep failed/);
  assert.equal(logger.entries[0]!.data?.error, "memory_dir /nope is not a directory");

  for (const n of [2, 3, 4]) {
    await clock.advance(DAY);
    await sweeper.swept(n);
  }
  assert.equal(sweeper.count, 4);
  assert.match(String(logger.entries[1]!.data?.error), /malformed/);
  // The empty sweep wrote nothing; the last one audited its deletion and logged its failure.
  assert.equal(store.rows.length, 1);
  assert.equal(store.rows[0]!.action, "memory_sweep");
  assert.equal(
    store.rows[0]!.detail,
    "deleted 1, could not delete 1, stale 0; deleted: /memories/a.md",
  );
  assert.equal(logger.entries.length, 3);
  assert.match(
    logger.entries[2]!.message,
    /could not delete 1 expired file: \/memories\/deep\/b\.md/,
  );
  await sweeper.stop();
  await sweeper.stop();
  assert.equal(clock.pending, 0);
});

Deno.test("sweeper: stopped while the store is still opening, it never sweeps", async () => {
  const clock = new FakeClock();
  let release!: (s: { sweep(): SweepReport }) => void;
  let swept = false;
  const sweeper = new MemorySweeper({
    memory: () => new Promise((r) => (release = r)),
    store: recorder(),
    clock,
    logger: new MemoryLogger(),
  });
  sweeper.start();
  const stopped = sweeper.stop();
  release({
    sweep: () => {
      swept = true;
      return report([]);
    },
  });
  await stopped;
  assert.equal(swept, false);
  assert.equal(sweeper.count, 1);
  assert.equal(clock.pending, 0);
});

Deno.test("sweeper: a long list of deleted paths is cut in the audit detail", async () => {
  const clock = new FakeClock();
  const store = recorder();
  const paths = Array.from({ length: 25 }, (_, i) => `/memories/s/${i}.md`);
  const sweeper = new MemorySweeper({
    memory: () => Promise.resolve({ sweep: () => report(paths) }),
    store,
    clock,
    logger: new MemoryLogger(),
  });
  sweeper.start();
  await sweeper.swept(1);
  await sweeper.stop();
  const detail = store.rows[0]!.detail;
  assert.match(detail, /^deleted 25, /);
  assert.match(detail, /\/memories\/s\/19\.md and 5 more$/);
  assert.doesNotMatch(detail, /\/20\.md/);
});
