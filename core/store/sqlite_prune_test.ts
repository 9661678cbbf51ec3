// The retention primitives of the store, on SQLite and PostgreSQL (pruneRuns, pruneOneShots, pruneAudit): what
// each deletes, every exception it keeps, oldest-first chunks, and the report paths it hands
// back for the caller to remove.

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { newJobFixture as newJob } from "../../tests/fakes/job_fixture.ts";
import { type StoreBackend, storeTest } from "../../tests/store_backends.ts";
import type { NewRun, RunStatus } from "./store.ts";

const DAY = 86_400_000;
const NOW = "2026-03-02T09:00:00Z";

function daysAgo(n: number): string {
  return new Date(Date.parse(NOW) - n * DAY).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function open(backend: StoreBackend) {
  const clock = new FakeClock(daysAgo(60));
  const store = backend.open(clock);
  /** A run that finished `days` ago (a queued or running one when `days` is null). */
  const run = (
    jobId: number,
    status: RunStatus,
    days: number | null,
    extra: Partial<NewRun> = {},
  ) =>
    store.createRun({
      job_id: jobId,
      status,
      attempt: 1,
      priority: 10,
      class: "scheduled",
      queued_at: daysAgo(days ?? 1),
      finished_at: days === null ? null : daysAgo(days),
      report_path: days === null ? null : `/home/u/.agent/outpost/runs/${jobId}/r${days}.md`,
      ...extra,
    });
  return { clock, store, run };
}

storeTest("pruneRuns deletes old finished runs and keeps every exception", (backend) => {
  const { clock, store, run } = open(backend);
  const a = store.createJob(newJob({ name: "a" }));
  const b = store.createJob(newJob({ name: "b" }));
  const c = store.createJob(newJob({ name: "c" }));
  const oldOk = run(a.id, "ok", 40);
  const oldSkip = run(a.id, "skipped", 39, { report_path: null });
  const openHalt = run(a.id, "needs_human", 38);
  store.createInboxItem({ job_id: a.id, run_id: openHalt.id, questions: [], meta: {} });
  const answeredHalt = run(a.id, "needs_human", 37);
  const answered = store.createInboxItem({
    job_id: a.id,
    run_id: answeredHalt.id,
    questions: [],
    meta: {},
  });
  store.answerInbox(answered.id, "go", "dashboard");
  const dismissedHalt = run(a.id, "needs_human", 36);
  const dismissed = store.createInboxItem({
    job_id: a.id,
    run_id: dismissedHalt.id,
    questions: [],
    meta: {},
  });
  store.dismissInbox(dismissed.id, "dashboard");
  const resume = run(a.id, "queued", null, { resume_of_run: answeredHalt.id });
  const fresh = run(a.id, "ok", 2);
  const aLatest = run(a.id, "ok", 1);
  const bOld = run(b.id, "error", 45);
  const bLatest = run(b.id, "error", 44); // old, but the job's latest run
  const cOld = run(c.id, "killed", 50);
  const cRunning = run(c.id, "running", null, { started_at: daysAgo(40) });
  clock.set(NOW);

  const pruned = store.pruneRuns(daysAgo(30), 1000);
  const deleted = [oldOk, oldSkip, dismissedHalt, bOld, cOld].map((r) => r.id);
  assert.equal(pruned.runs, deleted.length);
  assert.equal(pruned.jobs, 0);
  for (const id of deleted) assert.equal(store.getRun(id), null, `run ${id} deleted`);
  const kept = [openHalt, answeredHalt, resume, fresh, aLatest, bLatest, cRunning];
  for (const r of kept) assert.ok(store.getRun(r.id), `run ${r.id} (${r.status}) kept`);
  // Reports of the deleted runs come back for the caller; a skip row has none.
  assert.deepEqual(
    [...pruned.reports].sort(),
    [oldOk, dismissedHalt, bOld, cOld].map((r) => r.report_path!).sort(),
  );
  // A closed inbox item goes with its run; the open one stays.
  assert.equal(store.getInboxItem(dismissed.id), null);
  assert.equal(store.countInbox("open"), 1);
  assert.ok(store.getInboxItem(answered.id), "the queued resume's target keeps its item");
  assert.equal(store.pruneRuns(daysAgo(30), 1000).runs, 0, "nothing left to delete");

  // Once the resume has finished, its target is an ordinary old run.
  store.updateRun(resume.id, { status: "ok", finished_at: NOW });
  assert.equal(store.pruneRuns(daysAgo(30), 1000).runs, 1);
  assert.equal(store.getRun(answeredHalt.id), null);
  store.close();
});

storeTest("pruneRuns works in oldest-first chunks of at most `limit` runs", (backend) => {
  const { clock, store, run } = open(backend);
  const job = store.createJob(newJob());
  const runs = [45, 40, 50, 35, 31].map((d) => run(job.id, "ok", d));
  run(job.id, "ok", 1);
  clock.set(NOW);
  const first = store.pruneRuns(daysAgo(30), 2);
  assert.equal(first.runs, 2);
  assert.equal(store.getRun(runs[2]!.id), null, "50 days old goes first");
  assert.equal(store.getRun(runs[0]!.id), null, "then 45");
  assert.ok(store.getRun(runs[1]!.id));
  assert.equal(store.pruneRuns(daysAgo(30), 2).runs, 2);
  assert.equal(store.pruneRuns(daysAgo(30), 2).runs, 1);
  assert.equal(store.pruneRuns(daysAgo(30), 2).runs, 0);
  assert.equal(store.listRuns(job.id).length, 1);
  store.close();
});

storeTest("pruneOneShots deletes finished one-shots whole and keeps the unfinished", (backend) => {
  const { clock, store, run } = open(backend);
  const oneShot = (name: string, cls: "api" | "scheduled" = "api") =>
    store.createJob(
      newJob({
        name,
        class: cls,
        schedule: { kind: "at", expr: daysAgo(60), tz: "UTC" },
        next_run_at: null,
      }),
    );
  const doneApi = oneShot("api done 10 days ago");
  const doneApiRuns = [run(doneApi.id, "error", 11), run(doneApi.id, "ok", 10)];
  const halted = store.createInboxItem({
    job_id: doneApi.id,
    run_id: doneApiRuns[0]!.id,
    questions: [],
    meta: {},
  });
  store.dismissInbox(halted.id, "dashboard");
  const doneAt = oneShot("dashboard at, fired", "scheduled");
  run(doneAt.id, "ok", 9);
  const recent = oneShot("api done 3 days ago");
  run(recent.id, "ok", 3);
  const waiting = oneShot("api still queued");
  run(waiting.id, "error", 20);
  run(waiting.id, "queued", null);
  const asking = oneShot("api waiting for a human");
  const ask = run(asking.id, "needs_human", 20);
  store.createInboxItem({ job_id: asking.id, run_id: ask.id, questions: [], meta: {} });
  const neverRan = oneShot("at that never ran", "scheduled");
  const unfired = store.createJob(
    newJob({
      name: "at still to fire",
      schedule: { kind: "at", expr: NOW, tz: "UTC" },
      next_run_at: NOW,
    }),
  );
  run(unfired.id, "ok", 20); // a Run now long ago; the `at` itself is still to come
  const recurring = store.createJob(newJob({ name: "every hour", next_run_at: null }));
  run(recurring.id, "ok", 20);
  const edited = oneShot("api edited yesterday");
  run(edited.id, "ok", 20);
  clock.set(daysAgo(1));
  store.updateJob(edited.id, { name: "api edited yesterday (renamed)" });
  clock.set(NOW);

  const pruned = store.pruneOneShots(daysAgo(7), 100);
  assert.equal(pruned.jobs, 2);
  assert.equal(pruned.runs, 3);
  assert.equal(store.getJob(doneApi.id), null);
  assert.equal(store.getJob(doneAt.id), null);
  for (const r of doneApiRuns) assert.equal(store.getRun(r.id), null, "runs cascade");
  assert.equal(store.getInboxItem(halted.id), null, "closed items cascade");
  assert.deepEqual(
    [...pruned.reports].sort(),
    [...doneApiRuns.map((r) => r.report_path!), `/home/u/.agent/outpost/runs/${doneAt.id}/r9.md`]
      .sort(),
  );
  for (const job of [recent, waiting, asking, neverRan, unfired, recurring, edited]) {
    assert.ok(store.getJob(job.id), `${job.name} kept`);
  }
  assert.equal(store.countJobs(), 7, "the freed slots count again under the job cap");
  assert.equal(store.pruneOneShots(daysAgo(7), 100).jobs, 0);
  store.close();
});

storeTest(
  "pruneAudit deletes rows written before the cutoff, oldest first, in chunks",
  (backend) => {
    const { clock, store } = open(backend);
    clock.set(NOW);
    for (const d of [90, 40, 31, 29, 0]) {
      store.appendAudit({
        at: daysAgo(d),
        action: "job_create",
        target: `d${d}`,
        actor: "a",
        channel: "dashboard",
        detail: "",
      });
    }
    assert.equal(store.pruneAudit(daysAgo(30), 2), 2);
    assert.deepEqual(store.listAudit().map((r) => r.target), ["d0", "d29", "d31"]);
    assert.equal(store.pruneAudit(daysAgo(30), 2), 1);
    assert.equal(store.pruneAudit(daysAgo(30), 2), 0);
    assert.deepEqual(store.listAudit().map((r) => r.target), ["d0", "d29"]);
    store.close();
  },
);
