// Every route that shows a report — the run page and its partial, the dashboard report API,
// the machine door's output — goes through the guarded reader: what a hostile run leaves in
// place of its report (a symlink out, a FIFO, a folder, a path outside the runs folder) is
// never shown and never hangs, and an oversize report is cut with a note (page) or 413 (API).

import assert from "node:assert/strict";
import { TEST_WORKDIR } from "../../tests/fakes/scheduler_kit.ts";
import { join } from "node:path";
import {
  jsonOf as json,
  makeTestOutpost,
  type TestOutpost,
} from "../../tests/fakes/test_outpost.ts";
import {
  fifoWithWriter,
  replaceWithSymlink,
  SECRET,
  secretFile,
} from "../../tests/fakes/hostile_report.ts";

/** A finished run whose report path is `reportPath` (written by the caller). */
function finishedRun(t: TestOutpost, reportPath: string | null) {
  const job = t.scheduler.createJob({
    name: "nightly",
    prompt: "summarize",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: TEST_WORKDIR,
  });
  const run = t.store.createRun({
    job_id: job.id,
    status: "ok",
    attempt: 1,
    priority: 10,
    class: "scheduled",
    report_path: reportPath,
  });
  return { job, run };
}

function reportPathOf(t: TestOutpost, jobId: number, name = "r.md"): string {
  return join(t.home, "outpost", "runs", String(jobId), name);
}

/** The run page, its partial, the report API and the machine door's output, in that order. */
async function* doors(t: TestOutpost, jobId: number, runId: number) {
  const token = t.machineToken();
  yield ["page", await t.app.request(`/runs/${jobId}/${runId}`)] as const;
  yield ["partial", await t.app.request(`/partials/run/${jobId}/${runId}`)] as const;
  yield ["api", await t.app.request(`/api/jobs/${jobId}/runs/${runId}/output`)] as const;
  yield [
    "machine",
    await t.app.request(`/api/v1/jobs/${jobId}/runs/${runId}/output`, {
      headers: { Authorization: `Bearer ${token}` },
    }),
  ] as const;
}

/**
 * No door shows the secret; the pages say why; both APIs answer 404 no_report with the why.
 * Each door is asserted before the next is asked, so code that opens a FIFO fails on the
 * secret its writer hands over instead of hanging on the next open.
 */
async function assertRefused(t: TestOutpost, jobId: number, runId: number, why: RegExp) {
  for await (const [door, res] of doors(t, jobId, runId)) {
    const text = await res.text();
    assert.ok(!text.includes(SECRET), `the secret reached the ${door}`);
    if (door === "page" || door === "partial") {
      assert.equal(res.status, 200, door);
      assert.doesNotMatch(text, /id="report"/, door);
      assert.match(text, /id="report-note"[^>]*>The report is not shown: /, door);
      assert.match(text, why, door);
    } else {
      assert.equal(res.status, 404, door);
      const body = JSON.parse(text);
      assert.equal(body.error.code, "no_report", door);
      assert.match(body.error.message, why, door);
    }
  }
}

Deno.test("a report that is a symlink to a file outside the runs folder is shown nowhere", async () => {
  await using t = await makeTestOutpost();
  const { job, run } = finishedRun(t, null);
  const path = reportPathOf(t, job.id);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  await replaceWithSymlink(path, await secretFile(t.home));
  t.store.updateRun(run.id, { report_path: path });
  await assertRefused(t, job.id, run.id, /the report file is a symlink/);
});

Deno.test("a report that is a FIFO, or a symlink to one, is refused without opening it", async () => {
  await using t = await makeTestOutpost();
  const { job, run } = finishedRun(t, null);
  const path = reportPathOf(t, job.id);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  // The writer hands SECRET to whichever reader opens the FIFO: code that opens it shows it.
  await using fifo = await fifoWithWriter(reportPathOf(t, job.id, "fifo.md"));
  t.store.updateRun(run.id, { report_path: fifo.path });
  await assertRefused(t, job.id, run.id, /the report is not a regular file/);
  await replaceWithSymlink(path, fifo.path);
  t.store.updateRun(run.id, { report_path: path });
  await assertRefused(t, job.id, run.id, /the report file is a symlink/);
});

Deno.test("a report that is a folder, or a symlink to one, is refused", async () => {
  await using t = await makeTestOutpost();
  const { job, run } = finishedRun(t, null);
  const folder = reportPathOf(t, job.id, "folder.md");
  await Deno.mkdir(folder, { recursive: true });
  t.store.updateRun(run.id, { report_path: folder });
  await assertRefused(t, job.id, run.id, /the report is not a regular file/);
  const link = reportPathOf(t, job.id);
  await replaceWithSymlink(link, t.home);
  t.store.updateRun(run.id, { report_path: link });
  await assertRefused(t, job.id, run.id, /the report file is a symlink/);
});

Deno.test("a report path outside the runs folder (a tampered row) is shown nowhere", async () => {
  await using t = await makeTestOutpost();
  const secret = await secretFile(t.home);
  const { job, run } = finishedRun(t, secret);
  await assertRefused(t, job.id, run.id, /outside the runs folder/);
  t.store.updateRun(run.id, { report_path: `${reportPathOf(t, job.id)}/../../../secret.md` });
  await assertRefused(t, job.id, run.id, /outside the runs folder/);
});

Deno.test("a report swapped for a symlink after its run ended is no longer shown", async () => {
  await using t = await makeTestOutpost({ env: { PATH: "/usr/bin:/bin" } });
  const job = t.scheduler.createJob({
    name: "nightly",
    prompt: "summarize",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: TEST_WORKDIR,
  });
  await t.request("POST", `/api/jobs/${job.id}/trigger`);
  const spawned = t.spawner.nextSpawn();
  await t.scheduler.step();
  const child = await spawned;
  const report = child.arg("--output")!;
  await Deno.writeTextFile(report, "# Honest report\n");
  child.exit(0, { final_text: "done" });
  await t.scheduler.idle();
  const run = t.store.latestRun(job.id)!;
  assert.equal(run.status, "ok");
  for await (const [door, res] of doors(t, job.id, run.id)) {
    assert.equal(res.status, 200, door);
    const text = await res.text();
    if (door === "page" || door === "partial") assert.match(text, /<h1>Honest report<\/h1>/);
    else assert.equal(text, "# Honest report\n");
  }
  await replaceWithSymlink(report, await secretFile(t.home));
  await assertRefused(t, job.id, run.id, /the report file is a symlink/);
});

Deno.test("an oversize report: the page shows its start with a note, both APIs answer 413", async () => {
  await using t = await makeTestOutpost();
  const { job, run } = finishedRun(t, null);
  const path = reportPathOf(t, job.id);
  await Deno.mkdir(join(path, ".."), { recursive: true });
  const size = 4 * 1024 * 1024 + 10;
  await Deno.writeTextFile(path, "# Big\n\n" + "x".repeat(size - 7));
  t.store.updateRun(run.id, { report_path: path });
  for await (const [door, res] of doors(t, job.id, run.id)) {
    if (door === "page" || door === "partial") {
      const html = await res.text();
      assert.match(html, /<h1>Big<\/h1>/);
      assert.match(
        html,
        new RegExp(
          `id="report-note"[^>]*>The report is ${size} bytes; only the first 1048576 are shown\\.`,
        ),
        door,
      );
    } else {
      assert.equal(res.status, 413, door);
      const body = await json(res);
      assert.equal(body.error.code, "report_too_large");
      assert.match(body.error.message, new RegExp(`is ${size} bytes`));
    }
  }
});
