// Startup recovery across a real crash: an outpost-like process (outpost_harness.ts) starts
// children, is killed with SIGKILL mid-run, and a second one starts on the same store. The
// still-running child is killed (process group) and recorded `killed`; the one that died
// meanwhile is `lost`; the held one-shot runs exactly once; no job is lost or fired twice.

import assert from "node:assert/strict";
import { join } from "node:path";
import { systemClock } from "../../core/ports.ts";
import { isoZ } from "../../core/time.ts";
import { outpostDbPath, SqliteStore } from "../../core/store/sqlite_store.ts";
import type { NewJob } from "../../core/store/store.ts";
import { mkfifo, readFifo } from "./outpost_fifo.ts";

const HARNESS = new URL("./outpost_harness.ts", import.meta.url).pathname;

interface Harness {
  process: Deno.ChildProcess;
  /** Resolves with the first event line matching `predicate`. */
  until(predicate: (e: Record<string, unknown>) => boolean): Promise<Record<string, unknown>>;
}

function startHarness(home: string): Harness {
  const process = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", "--quiet", HARNESS, home],
    env: { MAX_CONCURRENT_RUNS: "2", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = process.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const seen: Record<string, unknown>[] = [];
  return {
    process,
    async until(predicate) {
      for (;;) {
        const hit = seen.find(predicate);
        if (hit) return hit;
        const nl = buffer.indexOf("\n");
        if (nl >= 0) {
          seen.push(JSON.parse(buffer.slice(0, nl)));
          buffer = buffer.slice(nl + 1);
          continue;
        }
        const { value, done } = await reader.read();
        if (done) {
          throw new Error(`harness ended before the expected event; saw ${JSON.stringify(seen)}`);
        }
        buffer += value;
      }
    },
  };
}

function job(name: string, prompt: string, schedule: NewJob["schedule"], workdir: string): NewJob {
  return {
    name,
    prompt,
    schedule,
    workdir,
    mode: "auto",
    timeout_s: 3600,
    max_retries: 3,
    token_budget: null,
    priority: null,
    output_surface: "",
    base_url: "",
    model: "",
    enabled: true,
    recipe_id: null,
    recipe_version: null,
    next_run_at: isoZ(systemClock.now()),
    class: "scheduled",
    meta: {},
  };
}

Deno.test("kill -9 the outpost mid-run: on restart the live orphan is killed, the dead one lost, nothing lost or fired twice", async () => {
  const home = await Deno.makeTempDir({ prefix: "outpost_recovery_" });
  let second: Harness | null = null;
  try {
    const fifoA = join(home, "a.fifo");
    const fifoB = join(home, "b.fifo");
    await mkfifo(fifoA);
    await mkfifo(fifoB);
    const setup = new SqliteStore({ path: outpostDbPath(home), clock: systemClock });
    const every = { kind: "every" as const, expr: "1h", tz: "UTC" };
    const a = setup.createJob(job("a", `fifo:${fifoA} hang`, every, home));
    const b = setup.createJob(job("b", `fifo:${fifoB} hang`, every, home));
    // A one-shot due now; with MAX_CONCURRENT_RUNS=2 it is held (queued) behind a and b.
    const c = setup.createJob(
      job("c", "exit:0", { kind: "at", expr: isoZ(systemClock.now()), tz: "UTC" }, home),
    );
    setup.close();

    const first = startHarness(home);
    await first.until((e) => e.event === "recovered");
    const [childA, childB] = await Promise.all([readFifo(fifoA), readFifo(fifoB)]);
    const startedA = await first.until((e) => e.event === "run_started" && e.job_id === a.id);
    const startedB = await first.until((e) => e.event === "run_started" && e.job_id === b.id);
    assert.equal(startedA.pid, childA.pid);
    assert.equal(startedB.pid, childB.pid);

    first.process.kill("SIGKILL"); // the outpost dies; its children (own groups) live on
    await first.process.status;
    await first.process.stdout.cancel().catch(() => {});
    Deno.kill(-childB.pid, "SIGKILL"); // b's child dies while no outpost is watching
    await childB.closed;

    second = startHarness(home);
    const recovered = await second.until((e) => e.event === "recovered");
    assert.deepEqual(recovered.killed, [startedA.run_id]);
    assert.deepEqual(recovered.lost, [startedB.run_id]);
    await childA.closed; // recovery killed a's group
    const finishedC = await second.until((e) => e.event === "run_finished" && e.job_id === c.id);
    assert.equal(finishedC.status, "ok");
    second.process.kill("SIGKILL");
    await second.process.status;
    await second.process.stdout.cancel().catch(() => {});
    second = null;

    const store = new SqliteStore({ path: outpostDbPath(home), clock: systemClock });
    try {
      assert.equal(store.countJobs(), 3, "no job lost");
      const runs = (id: number) => store.listRuns(id);
      assert.deepEqual(runs(a.id).map((r) => r.status), ["killed"], "a fired once");
      assert.deepEqual(runs(b.id).map((r) => r.status), ["lost"], "b fired once");
      assert.deepEqual(runs(c.id).map((r) => r.status), ["ok"], "c ran exactly once");
      for (const id of [a.id, b.id]) {
        const j = store.getJob(id)!;
        assert.equal(j.enabled, true, "schedule resumes");
        assert.ok(Date.parse(j.next_run_at!) > Date.parse(j.created_at), "next fire still planned");
      }
      assert.equal(store.getJob(c.id)!.next_run_at, null);
      assert.match(runs(a.id)[0]!.reason!, /process group was killed/);
    } finally {
      store.close();
    }
  } finally {
    if (second) {
      second.process.kill("SIGKILL");
      await second.process.status;
    }
    await Deno.remove(home, { recursive: true });
  }
});
