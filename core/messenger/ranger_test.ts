// The ranger snapshot (STATUS.md) and chat `ask`: what the snapshot shows from the store, and
// that `ask` writes it into the ranger workspace and submits a strict-mode run there.

import assert from "node:assert/strict";
import { join } from "node:path";
import { kitCommandRunner, kitInbox } from "../../tests/fakes/chat_kit.ts";
import { jobInput, makeKit } from "../../tests/fakes/scheduler_kit.ts";
import { rangerSnapshot, STATUS_FILE } from "./ranger.ts";
import { RefusalError } from "./replies.ts";
import { headlessArgs } from "../scheduler/headless_command.ts";

const BASE = "http://outpost.test/";

Deno.test("the snapshot shows alerts, the last day's runs, open items, schedules and jobs", async () => {
  await using kit = await makeKit({ start: "2026-03-02T07:00:00Z" });
  const { store, scheduler } = kit;
  const nightly = scheduler.createJob(jobInput({ name: "nightly tests" }));
  const deploy = scheduler.createJob(
    jobInput({ name: "deploy", schedule: { kind: "cron", expr: "0 6 * * *", tz: "UTC" } }),
  );
  const old = store.createRun({
    job_id: nightly.id,
    status: "error",
    attempt: 1,
    priority: 50,
    class: "scheduled",
    queued_at: "2026-02-27T02:00:00Z",
    reason: "an old failure outside the window",
  });
  const failed = store.createRun({
    job_id: nightly.id,
    status: "error",
    attempt: 2,
    priority: 50,
    class: "scheduled",
    queued_at: "2026-03-02T02:00:00Z",
    finished_at: "2026-03-02T02:05:00Z",
    exit_code: 1,
    reason: "exit 1:\nthe integration tests failed",
  });
  const drifted = store.createRun({
    job_id: deploy.id,
    status: "skipped_drift",
    attempt: 1,
    priority: 50,
    class: "scheduled",
    queued_at: "2026-03-02T06:00:00Z",
    reason: "served model changed from a to b",
  });
  store.updateJob(nightly.id, {
    enabled: false,
    dead_letter_reason: "4 consecutive failures",
    disabled_reason: "dead-letter: 4 consecutive failures",
    failure_count: 4,
  });
  const item = store.createInboxItem({
    job_id: deploy.id,
    run_id: drifted.id,
    questions: [{ kind: "approval", text: "Deploy to production?" }],
    meta: {},
  });

  const text = rangerSnapshot(store, kit.clock.now(), BASE);
  assert.match(text, /^# Outpost status snapshot\n\nTaken 2026-03-02T07:00:00Z/);
  const part = (title: string) => text.split(`## ${title}`)[1]!.split("\n## ")[0]!;
  const alerts = part("Alerts");
  assert.match(alerts, /dead letter: job #1 "nightly tests" .*4 consecutive failures/);
  assert.match(alerts, /model drift: run \d+ of job #2 "deploy" was skipped: served model/);
  assert.match(alerts, /needs a human: 1 open inbox item$/m);
  const runs = part("Runs in the last 24 hours");
  assert.match(
    runs,
    new RegExp(
      `- run ${failed.id} of job #1 "nightly tests": error; exit 1; attempt 2; .*reason: exit 1: ` +
        `the integration tests failed; http://outpost.test/runs/1/${failed.id}`,
    ),
  );
  assert.ok(!runs.includes(`run ${old.id} `), "a run older than the window is left out");
  assert.ok(runs.indexOf(`run ${drifted.id} `) < runs.indexOf(`run ${failed.id} `), "newest first");
  assert.match(
    part("Open inbox items (1)"),
    new RegExp(
      `- item #${item.id} from run ${drifted.id} of job #2 "deploy", high risk, .*Deploy to ` +
        `production\\? http://outpost.test/inbox/${item.id}`,
    ),
  );
  assert.match(
    part("Schedules"),
    /job #2 "deploy": cron 0 6 \* \* \* UTC; next 2026-03-03T06:00:00Z/,
  );
  assert.match(part("Schedules"), /job #1 "nightly tests": every 1h UTC; paused/);
  assert.match(part("Jobs"), /job #1 "nightly tests" \(scheduled, auto\): disabled \(dead-letter/);
});

async function runnerKit() {
  const kit = await makeKit();
  const root = join(kit.home, "workspaces");
  await Deno.mkdir(join(root, "app"), { recursive: true });
  const runner = kitCommandRunner(kit, kitInbox(kit), { workspacesRoot: root, baseUrl: BASE });
  return { kit, root, runner };
}

const origin = { sender: "@alice:test", room: "!dm:test" };

Deno.test("ask writes STATUS.md into the ranger workspace and submits a strict run there", async () => {
  const { kit, root, runner } = await runnerKit();
  await using _ = kit;
  kit.scheduler.createJob(jobInput({ name: "nightly tests" }));
  await Deno.mkdir(join(root, "ranger"));
  const reply = await runner.execute({ verb: "ask", prompt: "what failed overnight?" }, origin);
  const m = /Submitted job (\d+), run (\d+) \(workspace ranger\)/.exec(reply);
  assert.ok(m, reply);
  const job = kit.store.getJob(Number(m[1]))!;
  const ranger = await Deno.realPath(join(root, "ranger"));
  assert.equal(job.workdir, ranger);
  assert.equal(job.mode, "strict");
  assert.equal(job.prompt, "what failed overnight?");
  // Untrusted intake (issue 37): its child gets --memory-scope workspace.
  assert.equal(job.meta.untrusted_intake, true);
  assert.deepEqual(
    headlessArgs({ command: "agent", args: [] }, { job, reportPath: "/r.md" }).slice(-4),
    ["--memory-scope", "workspace", "--", "what failed overnight?"],
  );
  const status = await Deno.readTextFile(join(ranger, STATUS_FILE));
  assert.match(status, /# Outpost status snapshot/);
  assert.match(status, /job #1 "nightly tests"/);
  assert.equal((await Deno.stat(join(ranger, STATUS_FILE))).mode! & 0o777, 0o600);
  // `run` elsewhere is unchanged: its own mode, no snapshot.
  const ran = await runner.execute({ verb: "run", workspace: "app", prompt: "tidy" }, origin);
  const jobId = Number(/Submitted job (\d+)/.exec(ran)![1]);
  assert.equal(kit.store.getJob(jobId)!.mode, "auto");
  assert.equal(kit.store.getJob(jobId)!.meta.untrusted_intake, undefined, "run is trusted");
  await assert.rejects(Deno.stat(join(root, "app", STATUS_FILE)), Deno.errors.NotFound);
});

Deno.test("ask without a ranger workspace refuses as run does, and writes nothing", async () => {
  const { kit, root, runner } = await runnerKit();
  await using _ = kit;
  const err = await runner.execute({ verb: "ask", prompt: "anything?" }, origin).then(
    () => null,
    (e) => e,
  );
  assert.ok(err instanceof RefusalError, String(err));
  assert.equal(err.reason, "no_such_workspace");
  assert.deepEqual([...Deno.readDirSync(root)].map((e) => e.name), ["app"]);
  assert.equal(kit.store.listJobs().length, 0);
});
