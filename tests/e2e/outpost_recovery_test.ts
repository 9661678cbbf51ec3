// Startup recovery across a real crash (spec 3.1, "running (orphan)"), with the real
// `agent-outpost` started under exactly the flags of scripts/permissions.ts and real `agent`
// children talking to the fake model server, which never answers. The outpost is killed with
// SIGKILL mid-run and started again on the same home: the still-running child's whole process
// group is killed and the run recorded `killed`; the child that died meanwhile is `lost`; with
// no retries left neither is retried; the held one-shot runs exactly once; a new trigger starts
// exactly one child. With retries left, the cut-short run is retried as its next attempt, and a
// child that finished while the outpost was down is recorded with the outcome it left. An
// outpost that cannot read the process table refuses to start instead of guessing.

import assert from "node:assert/strict";
import { join } from "node:path";
import { systemClock } from "../../core/ports.ts";
import { isoZ } from "../../core/time.ts";
import { linuxProcessTable } from "../../core/scheduler/proc.ts";
import { outpostDbPath, SqliteStore } from "../../core/store/sqlite_store.ts";
import type { NewJob } from "../../core/store/store.ts";
import { denoRunArgs } from "../../scripts/permissions.ts";
import { type RecordedRequest, reply, startFakeModelServer } from "../fakes/model_server.ts";
import { ROOT, tempHome } from "./agent_process.ts";
import { mkfifo, readFifo } from "./outpost_fifo.ts";
import {
  type Outpost,
  startOutpost,
  startRefusedOutpost,
  waitForRun,
  waitForRunEnd,
} from "./outpost_process_kit.ts";

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * AGENT_OUTPOST_AGENT_BIN for the test: `agent` exactly as the outpost's dev mode starts it,
 * plus a second member of its process group. In a workdir holding alive.fifo, both keep the
 * FIFO open and report "<agent pid> <sleeper pid>" (outpost_fifo.ts), so the test sees
 * end-of-file exactly when the whole group is dead. In a workdir holding exit.fifo, only the
 * agent keeps it open ("<agent pid> 0"): end-of-file comes when the agent has exited.
 */
function agentWrapper(): string {
  const agent = [Deno.execPath(), ...denoRunArgs("agent", ROOT)].map(quote).join(" ");
  return `#!/bin/sh
if [ -p alive.fifo ]; then
  exec 3>alive.fifo
  sleep 3600 </dev/null >/dev/null 2>&1 &
  echo "$$ $!" >&3
elif [ -p exit.fifo ]; then
  exec 3>exit.fifo
  echo "$$ 0" >&3
fi
exec ${agent} "$@"
`;
}

/** Writes agentWrapper() as `agent.sh` in `home`; its path. */
async function writeAgentWrapper(home: string): Promise<string> {
  const agentBin = join(home, "agent.sh");
  await Deno.writeTextFile(agentBin, agentWrapper(), { mode: 0o755 });
  return agentBin;
}

function job(
  name: string,
  schedule: NewJob["schedule"],
  workdir: string,
  maxRetries = 3,
): NewJob {
  return {
    name,
    prompt: `job ${name}`,
    schedule,
    workdir,
    mode: "auto",
    timeout_s: 3600,
    max_retries: maxRetries,
    token_budget: null,
    priority: null,
    output_surface: "",
    base_url: "",
    model: "",
    provider_preset: "",
    enabled: true,
    recipe_id: null,
    recipe_version: null,
    next_run_at: isoZ(systemClock.now()),
    class: "scheduled",
    meta: {},
  };
}

interface RunView {
  id: number;
  status: string;
  attempt: number;
  exit_code: number | null;
  pid: number | null;
  reason: string | null;
}

async function runsOf(url: string, jobId: number): Promise<RunView[]> {
  const res = await fetch(`${url}api/jobs/${jobId}/runs`);
  assert.equal(res.status, 200);
  return ((await res.json()).runs as RunView[]).reverse(); // oldest first
}

async function csrfHeaders(url: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}api/jobs`);
  await res.body?.cancel();
  const token = /outpost_csrf=([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  assert.ok(token, "CSRF cookie");
  return { Cookie: `outpost_csrf=${token}`, "X-CSRF-Token": token };
}

async function kill(outpost: Outpost | null): Promise<void> {
  if (!outpost) return;
  try {
    outpost.child.kill("SIGKILL");
  } catch { /* already gone */ }
  await outpost.child.status;
  await outpost.stderr;
}

/** Kills what a test left running, whatever happened: the outposts and every child group. */
async function killAll(outposts: (Outpost | null)[], groups: number[]): Promise<void> {
  for (const outpost of outposts) await kill(outpost);
  for (const pgid of groups) {
    try {
      Deno.kill(-pgid, "SIGKILL");
    } catch { /* already gone */ }
  }
}

Deno.test("kill -9 the real outpost mid-run: on restart the live child's group is killed, the dead one lost, neither retried with no retries left, and one trigger starts exactly one child", async () => {
  const home = await tempHome();
  const fake = await startFakeModelServer();
  const groups: number[] = []; // every child group seen, killed at the end whatever happens
  let first: Outpost | null = null;
  let second: Outpost | null = null;
  try {
    const agentHome = join(home, ".agent");
    const dirs = { a: join(home, "a"), b: join(home, "b"), c: join(home, "c") };
    for (const dir of Object.values(dirs)) await Deno.mkdir(dir, { recursive: true });
    const fifoA = await mkfifo(join(dirs.a, "alive.fifo"));
    const fifoB = await mkfifo(join(dirs.b, "alive.fifo"));
    const agentBin = await writeAgentWrapper(home);

    const setup = new SqliteStore({ path: outpostDbPath(agentHome), clock: systemClock });
    const every = { kind: "every" as const, expr: "1h", tz: "UTC" };
    const a = setup.createJob(job("a", every, dirs.a, 0));
    const b = setup.createJob(job("b", every, dirs.b, 0));
    // A one-shot due now; with MAX_CONCURRENT_RUNS=2 it is held (queued) behind a and b.
    const at = { kind: "at" as const, expr: isoZ(systemClock.now()), tz: "UTC" };
    const c = setup.createJob(job("c", at, dirs.c));
    setup.close();

    fake.enqueue(reply().hang(), reply().hang()); // a and b: the model never answers
    const env = {
      AGENT_BASE_URL: fake.url,
      AGENT_OUTPOST_AGENT_BIN: agentBin,
      MAX_CONCURRENT_RUNS: "2",
    };

    first = await startOutpost(home, env);
    const [childA, childB] = await Promise.all([readFifo(fifoA), readFifo(fifoB)]);
    groups.push(childA.pid, childB.pid);
    await fake.waitForRequests(2); // both agents are inside their model call
    const [runA] = await runsOf(first.url, a.id);
    const [runB] = await runsOf(first.url, b.id);
    assert.deepEqual([runA?.status, runA?.pid], ["running", childA.pid]);
    assert.deepEqual([runB?.status, runB?.pid], ["running", childB.pid]);

    await kill(first); // SIGKILL: the outpost dies; its children (own groups) live on
    first = null;
    Deno.kill(-childB.pid, "SIGKILL"); // b's child dies while no outpost is watching
    await childB.closed;

    fake.enqueue(reply().text("c done")); // the held one-shot's only model call
    second = await startOutpost(home, env); // recovery has run once it listens
    const url = second.url;
    const afterA = await runsOf(url, a.id);
    assert.deepEqual(afterA.map((r) => r.status), ["killed"], "a's live child is killed");
    assert.match(afterA[0]!.reason!, /process group was killed/);
    assert.deepEqual((await runsOf(url, b.id)).map((r) => r.status), ["lost"]);
    await childA.closed; // every member of a's group (agent and sleeper) has exited
    const table = linuxProcessTable();
    assert.equal(table.identity(childA.pid), null, "a's agent is gone");
    assert.equal(table.identity(childA.grandchild), null, "a's whole group is gone");

    const [heldC] = await runsOf(url, c.id);
    assert.ok(heldC, "c's held run is kept across the crash");
    await waitForRun(url, heldC.id, "ok");
    assert.deepEqual((await runsOf(url, c.id)).map((r) => r.status), ["ok"], "c ran once");

    // A new trigger of a starts exactly one child; a second one is refused while it runs.
    fake.enqueue(reply().hang());
    const headers = await csrfHeaders(url);
    const trigger = () => fetch(`${url}api/jobs/${a.id}/trigger`, { method: "POST", headers });
    const fired = await trigger();
    assert.equal(fired.status, 202);
    const newRun = (await fired.json()).run as RunView;
    const childA2 = await readFifo(fifoA);
    groups.push(childA2.pid);
    await fake.waitForRequests(4); // a, b, c, and now the new a: one model call each
    assert.notEqual(childA2.pid, childA.pid);
    const again = await trigger();
    assert.equal(again.status, 409, "single flight: no second child");
    await again.body?.cancel();
    assert.deepEqual((await runsOf(url, a.id)).map((r) => [r.id, r.status]), [
      [afterA[0]!.id, "killed"],
      [newRun.id, "running"],
    ]);
    assert.equal(fake.requests.length, 4, "no other child ever asked the model");
    fake.assertNoViolations();
  } finally {
    await killAll([first, second], groups);
    await fake.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("kill -9 the real outpost mid-run: on restart the cut-short run is retried as attempt 2, and a child that finished while it was down is recorded ok", async () => {
  const home = await tempHome();
  const fake = await startFakeModelServer();
  const groups: number[] = [];
  let first: Outpost | null = null;
  let second: Outpost | null = null;
  try {
    const agentHome = join(home, ".agent");
    const dirs = { a: join(home, "a"), b: join(home, "b") };
    for (const dir of Object.values(dirs)) await Deno.mkdir(dir, { recursive: true });
    const fifoA = await mkfifo(join(dirs.a, "alive.fifo"));
    const fifoB = await mkfifo(join(dirs.b, "exit.fifo"));
    const agentBin = await writeAgentWrapper(home);

    const setup = new SqliteStore({ path: outpostDbPath(agentHome), clock: systemClock });
    const every = { kind: "every" as const, expr: "1h", tz: "UTC" };
    const a = setup.createJob(job("a", every, dirs.a, 1));
    const b = setup.createJob(job("b", every, dirs.b, 1));
    setup.close();

    // a's model call never answers; b's answers once the test opens the gate, which it does
    // only after the outpost is dead.
    const bMayAnswer = Promise.withResolvers<void>();
    const byJob = (req: RecordedRequest) =>
      JSON.stringify(req.body).includes("job b")
        ? reply().gate(bMayAnswer.promise).text("b done")
        : reply().hang();
    fake.enqueue(byJob, byJob);
    const env = {
      AGENT_BASE_URL: fake.url,
      AGENT_OUTPOST_AGENT_BIN: agentBin,
      AGENT_MEMORY_REFLECT: "0",
      MAX_CONCURRENT_RUNS: "2",
    };

    first = await startOutpost(home, env);
    const [childA, childB] = await Promise.all([readFifo(fifoA), readFifo(fifoB)]);
    groups.push(childA.pid, childB.pid);
    await fake.waitForRequests(2);
    const [runA] = await runsOf(first.url, a.id);
    const [runB] = await runsOf(first.url, b.id);
    assert.deepEqual([runA?.status, runA?.attempt], ["running", 1]);
    assert.equal(runB?.status, "running");

    await kill(first); // SIGKILL: the outpost dies; its children (own groups) live on
    first = null;
    bMayAnswer.resolve(); // b's child gets its answer, writes its report and exits unwatched
    await childB.closed;
    // Later children of a and b run without a FIFO: a retry opening a's FIFO while the test
    // still reads the first child's end would hold it open and hide that group's death.
    await Deno.remove(fifoA);
    await Deno.remove(fifoB);

    fake.enqueue(reply().text("a done")); // the retry of a
    second = await startOutpost(home, env);
    const url = second.url; // recovery has run once it listens
    const runsA = await runsOf(url, a.id);
    assert.deepEqual(runsA.map((r) => r.attempt), [1, 2], "a retry was recorded");
    assert.equal(runsA[0]!.status, "killed");
    assert.ok(["queued", "running"].includes(runsA[1]!.status), runsA[1]!.status);
    assert.match(runsA[0]!.reason!, new RegExp(`retried as run ${runsA[1]!.id} \\(attempt 2\\)`));
    const runsB = await runsOf(url, b.id);
    assert.deepEqual(runsB.map((r) => [r.status, r.exit_code]), [["ok", 0]], "not lost");
    assert.match(runsB[0]!.reason!, /the outpost was down when this run's child finished/);
    await childA.closed; // recovery killed a's first group (agent and sleeper)
    assert.equal(await waitForRunEnd(url, runsA[1]!.id), "ok");
    assert.deepEqual(
      (await runsOf(url, a.id)).map((r) => [r.status, r.attempt]),
      [["killed", 1], ["ok", 2]],
      "the cut-short run was retried once, as attempt 2",
    );

    assert.deepEqual((await runsOf(url, b.id)).map((r) => r.status), ["ok"]);
    assert.equal(fake.requests.length, 3, "a, b, and a's retry: b was never run again");
    fake.assertNoViolations();
  } finally {
    await killAll([first, second], groups);
    await fake.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("an outpost that cannot read the process table refuses to start: one line, exit 1", async () => {
  const home = await tempHome();
  try {
    const emptyBin = join(home, "empty-bin"); // no `cat` to read /proc with
    await Deno.mkdir(emptyBin);
    const { stdout, stderr: err, code } = await startRefusedOutpost(home, { PATH: emptyBin });
    assert.doesNotMatch(stdout, /listening on/, "started without a readable process table");
    assert.equal(code, 1, err);
    assert.equal(err.trim().split("\n").length, 1, err);
    assert.match(err, /^error: cannot read the process table/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
