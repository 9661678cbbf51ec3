// Fire-to-spawn latency (target < 50 ms): from the tick that finds a job due to the
// spawner being asked for its child, on a file-backed store holding 100 jobs and 100,000
// runs (a steady state), with the fake spawner so only the outpost's own work is timed.
// Also the 30-day, 100-job simulation (target < 5 s).

import { DatabaseSync } from "node:sqlite";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { Delivery } from "../delivery/delivery.ts";
import { silentLogger } from "../logger.ts";
import { DEFAULT_GOVERNOR_CONFIG, governorPath } from "../governor/config.ts";
import { Governor } from "../governor/governor.ts";
import { envFrom, type SpawnedProcess } from "../ports.ts";
import { outpostDbPath, SqliteStore } from "../store/sqlite_store.ts";
import { FakeProcessTable, FakeSpawner } from "../../tests/fakes/spawner.ts";
import { processSpawner } from "./process_spawner.ts";
import { isoZ } from "../time.ts";
import { Scheduler } from "./scheduler.ts";
import { runSimulation } from "../../tests/fakes/scheduler_simulation.ts";
import { newJobFixture } from "../../tests/fakes/job_fixture.ts";

const home = await Deno.makeTempDir({ prefix: "outpost_bench_" });
const clock = new FakeClock("2026-03-02T09:00:00Z");
const env = envFrom({});
let store = new SqliteStore({ path: outpostDbPath(home), clock });
for (let i = 0; i < 100; i++) {
  store.createJob(newJobFixture({
    name: `job-${i}`,
    schedule: { kind: "every", expr: "365d", tz: "UTC" },
    workdir: "/tmp",
    next_run_at: "2027-03-03T09:00:00Z",
  }));
}
store.close();
{
  // 100,000 finished runs of history, written in one transaction.
  const db = new DatabaseSync(outpostDbPath(home));
  const ins = db.prepare(
    "INSERT INTO runs (job_id, status, attempt, exit_code, queued_at, started_at, finished_at, " +
      "tokens_in, tokens_out, priority, class) VALUES (?, 'ok', 1, 0, ?, ?, ?, 1000, 100, 10, 'scheduled')",
  );
  db.exec("BEGIN");
  for (let i = 0; i < 100_000; i++) {
    const at = isoZ(new Date(Date.parse("2026-01-01T00:00:00Z") + i * 60_000));
    ins.run(1 + (i % 100), at, at, at);
  }
  db.exec("COMMIT");
  db.close();
}
store = new SqliteStore({ path: outpostDbPath(home), clock });
const governor = new Governor(
  { path: governorPath(home), env, clock, store },
  structuredClone(DEFAULT_GOVERNOR_CONFIG),
);
const spawner = new FakeSpawner();
const scheduler = new Scheduler({
  store,
  clock,
  env,
  spawner,
  governor,
  delivery: new Delivery({ clock, logger: silentLogger }),
  logger: silentLogger,
  processes: new FakeProcessTable(),
  agentCommand: { command: "agent", args: [] },
  home,
});

let job = 0;
Deno.bench("fire-to-spawn latency (100 jobs, 100k runs, file store)", async (b) => {
  job = (job % 100) + 1;
  clock.set(new Date(clock.now().getTime() + 1000)); // only `job` is due
  store.setNextRunAt(job, isoZ(clock.now()));
  const spawned = spawner.nextSpawn();
  b.start();
  await scheduler.tick();
  const proc = await spawned;
  b.end();
  proc.exit(0);
  await scheduler.idle();
});

// The same with a real child process (sh) through the real process-group spawner.
const realHome = await Deno.makeTempDir({ prefix: "outpost_bench_real_" });
const realStore = new SqliteStore({ path: outpostDbPath(realHome), clock });
const realJob = realStore.createJob({ ...store.getJob(1)!, workdir: realHome });
let realSpawned = Promise.withResolvers<SpawnedProcess>();
const realScheduler = new Scheduler({
  store: realStore,
  clock,
  env: envFrom({ PATH: "/usr/bin:/bin" }),
  spawner: {
    spawn(req) {
      const proc = processSpawner.spawn(req);
      realSpawned.resolve(proc);
      return proc;
    },
  },
  governor: new Governor(
    { path: governorPath(realHome), env, clock, store: realStore },
    structuredClone(DEFAULT_GOVERNOR_CONFIG),
  ),
  delivery: new Delivery({ clock, logger: silentLogger }),
  logger: silentLogger,
  agentCommand: { command: "sh", args: ["-c", "exit 0", "agent"] },
  home: realHome,
});

Deno.bench("fire-to-spawn latency with a real child process (sh)", async (b) => {
  clock.set(new Date(clock.now().getTime() + 1000));
  realStore.setNextRunAt(realJob.id, isoZ(clock.now()));
  realSpawned = Promise.withResolvers<SpawnedProcess>();
  b.start();
  await realScheduler.tick();
  await realSpawned.promise;
  b.end();
  await realScheduler.idle();
});

Deno.bench("30-day simulation of 100 jobs (whole month incl. invariant checks)", {
  n: 3,
  warmup: 0,
}, async () => {
  const { violations } = await runSimulation({ days: 30, jobs: 100, seed: 42 });
  if (violations.length > 0) throw new Error(violations.join("\n"));
});

globalThis.addEventListener("unload", () => {
  store.close();
  realStore.close();
  Deno.removeSync(home, { recursive: true });
  Deno.removeSync(realHome, { recursive: true });
});
