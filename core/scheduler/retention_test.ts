import assert from "node:assert/strict";
import { join } from "node:path";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture as newJob } from "../../tests/fakes/job_fixture.ts";
import { envFrom } from "../ports.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import {
  RetentionConfigError,
  retentionPolicyFrom,
  retentionSummary,
  sweepHistory,
} from "./retention.ts";

const DAY = 86_400_000;
const NOW = new Date("2026-03-02T09:00:00Z");
const ago = (days: number) => new Date(NOW.getTime() - days * DAY).toISOString().slice(0, 19) + "Z";

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("retention policy: 30 and 7 days by default, 0 keeps forever, a bad value is named", () => {
  assert.deepEqual(retentionPolicyFrom(envFrom({})), { days: 30, oneShotDays: 7 });
  assert.deepEqual(
    retentionPolicyFrom(envFrom({
      AGENT_OUTPOST_RETENTION_DAYS: " 0 ",
      AGENT_OUTPOST_ONESHOT_RETENTION_DAYS: "2",
    })),
    { days: 0, oneShotDays: 2 },
  );
  for (const bad of ["-1", "1.5", "thirty", "99999999"]) {
    assert.throws(
      () => retentionPolicyFrom(envFrom({ AGENT_OUTPOST_ONESHOT_RETENTION_DAYS: bad })),
      (err: unknown) => {
        assert.ok(err instanceof RetentionConfigError);
        assert.match(err.message, /^AGENT_OUTPOST_ONESHOT_RETENTION_DAYS: .*whole number of days/);
        return true;
      },
    );
  }
});

async function withHome(fn: (home: string, store: SqliteStore) => Promise<void>) {
  const home = await Deno.makeTempDir({ prefix: "retention_" });
  const clock = new FakeClock(ago(60));
  const store = new SqliteStore({ path: ":memory:", clock });
  try {
    await fn(home, store);
  } finally {
    store.close();
    await Deno.remove(home, { recursive: true });
  }
}

function report(home: string, jobId: number, name: string): string {
  const path = join(home, "outpost", "runs", String(jobId), name);
  Deno.mkdirSync(join(path, ".."), { recursive: true });
  Deno.writeTextFileSync(path, "# report\n");
  Deno.writeTextFileSync(path.replace(/\.md$/, ".log"), "child stderr\n");
  return path;
}

Deno.test("sweepHistory deletes expired runs, one-shots and audit rows with their report and log files", async () => {
  await withHome(async (home, store) => {
    const job = store.createJob(newJob());
    const oneShot = store.createJob(
      newJob({
        class: "api",
        schedule: { kind: "at", expr: ago(60), tz: "UTC" },
        next_run_at: null,
      }),
    );
    const run = (jobId: number, days: number, path: string | null) =>
      store.createRun({
        job_id: jobId,
        status: "ok",
        attempt: 1,
        priority: 10,
        class: "scheduled",
        finished_at: ago(days),
        report_path: path,
      });
    const oldReport = report(home, job.id, "old.md");
    const old = run(job.id, 40, oldReport);
    const keptReport = report(home, job.id, "new.md");
    run(job.id, 1, keptReport);
    const shotReport = report(home, oneShot.id, "shot.md");
    run(oneShot.id, 10, shotReport);
    store.appendAudit({
      at: ago(31),
      action: "job_create",
      target: "job:1",
      actor: "a",
      channel: "dashboard",
      detail: "",
    });
    store.appendAudit({
      at: ago(1),
      action: "job_create",
      target: "job:2",
      actor: "a",
      channel: "dashboard",
      detail: "",
    });

    const result = await sweepHistory({
      store,
      home,
      now: NOW,
      policy: { days: 30, oneShotDays: 7 },
    });
    assert.deepEqual(result, {
      oneShotJobs: 1,
      oneShotRuns: 1,
      runs: 1,
      auditRows: 1,
      filesRemoved: 4,
      filesKept: [],
    });
    assert.equal(store.getRun(old.id), null);
    assert.equal(store.getJob(oneShot.id), null);
    for (const gone of [oldReport, shotReport]) {
      assert.equal(exists(gone), false, gone);
      assert.equal(exists(gone.replace(/\.md$/, ".log")), false);
    }
    assert.ok(exists(keptReport) && exists(keptReport.replace(/\.md$/, ".log")));
    assert.deepEqual(store.listAudit().map((r) => r.target), ["job:2"]);
    assert.equal(
      retentionSummary(result),
      "deleted 1 finished one-shot jobs (with 1 runs), 1 old runs, 1 audit rows; " +
        "removed 4 report files, kept 0",
    );
  });
});

Deno.test("sweepHistory with 0 days keeps everything", async () => {
  await withHome(async (home, store) => {
    const job = store.createJob(newJob());
    for (let i = 0; i < 3; i++) {
      store.createRun({
        job_id: job.id,
        status: "ok",
        attempt: 1,
        priority: 10,
        class: "scheduled",
        finished_at: ago(400),
      });
    }
    store.appendAudit({
      at: ago(400),
      action: "x",
      target: "t",
      actor: "a",
      channel: "dashboard",
      detail: "",
    });
    const result = await sweepHistory({
      store,
      home,
      now: NOW,
      policy: { days: 0, oneShotDays: 0 },
    });
    assert.equal(result.runs + result.auditRows + result.oneShotJobs, 0);
    assert.equal(store.listRuns(job.id).length, 3);
  });
});

Deno.test("sweepHistory deletes in chunks and pauses between them", async () => {
  await withHome(async (home, store) => {
    const job = store.createJob(newJob());
    for (let i = 0; i < 7; i++) {
      store.createRun({
        job_id: job.id,
        status: "ok",
        attempt: 1,
        priority: 10,
        class: "scheduled",
        finished_at: ago(100 - i),
      });
    }
    let pauses = 0;
    const sizes: number[] = [];
    const counting = {
      pruneRuns: (before: string, limit: number) => {
        const p = store.pruneRuns(before, limit);
        sizes.push(p.runs);
        return p;
      },
      pruneOneShots: store.pruneOneShots.bind(store),
      pruneAudit: store.pruneAudit.bind(store),
    };
    const result = await sweepHistory({
      store: counting,
      home,
      now: NOW,
      policy: { days: 30, oneShotDays: 0 },
      chunk: 2,
      pause: () => {
        pauses++;
        return Promise.resolve();
      },
    });
    assert.equal(result.runs, 6, "all but the latest run");
    assert.deepEqual(sizes, [2, 2, 2, 0]);
    assert.equal(pauses, 3);
  });
});

Deno.test("sweepHistory removes only regular files inside the runs directory, never through a symlink", async () => {
  await withHome(async (home, store) => {
    const outside = await Deno.makeTempDir({ prefix: "retention_outside_" });
    try {
      const secret = join(outside, "secret.md");
      Deno.writeTextFileSync(secret, "keep me");
      Deno.writeTextFileSync(join(outside, "secret.log"), "keep me too");
      const runs = join(home, "outpost", "runs");
      Deno.mkdirSync(join(runs, "1"), { recursive: true });
      // A symlinked report, a job directory that is a symlink out, a path outside, a dir.
      Deno.symlinkSync(secret, join(runs, "1", "link.md"));
      Deno.symlinkSync(outside, join(runs, "2"));
      Deno.mkdirSync(join(runs, "1", "dir.md"));
      const job = store.createJob(newJob());
      const paths = [
        join(runs, "1", "link.md"),
        join(runs, "2", "secret.md"),
        secret,
        join(runs, "1", "..", "..", "..", "..", outside, "secret.md"),
        join(runs, "1", "dir.md"),
      ];
      for (const path of paths) {
        store.createRun({
          job_id: job.id,
          status: "ok",
          attempt: 1,
          priority: 10,
          class: "scheduled",
          finished_at: ago(40),
          report_path: path,
        });
      }
      store.createRun({
        job_id: job.id,
        status: "ok",
        attempt: 1,
        priority: 10,
        class: "scheduled",
        finished_at: ago(1),
      });
      const result = await sweepHistory({
        store,
        home,
        now: NOW,
        policy: { days: 30, oneShotDays: 7 },
      });
      assert.equal(result.runs, 5, "the rows go even when their files may not be touched");
      assert.equal(result.filesRemoved, 0);
      assert.equal(Deno.readTextFileSync(secret), "keep me");
      assert.ok(exists(join(outside, "secret.log")));
      assert.ok(exists(join(runs, "1", "link.md")), "the symlink itself is left alone too");
      assert.ok(exists(join(runs, "1", "dir.md")));
      assert.equal(result.filesKept.length, 6, "its log beside 2/secret.md is kept too");
      assert.match(result.filesKept.join("\n"), /link\.md \(not a regular file\)/);
      assert.match(
        result.filesKept.join("\n"),
        /2\/secret\.md \(a folder on the report.s path is a symlink/,
      );
      assert.match(result.filesKept.join("\n"), /secret\.md \(outside /);
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});
