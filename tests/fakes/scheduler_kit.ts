// Builds a scheduler on fakes for the tests in this directory: FakeClock, FakeSpawner,
// FakeProcessTable, an in-memory store, a recording delivery adapter and a temp home.
// AGENT_TEST_STORE=postgres puts the store on a fresh database of this process's throwaway
// PostgreSQL cluster instead (tests/pg_cluster.ts), so the same scheduler suite runs on both
// engines (core/scheduler/scheduler_postgres_test.ts runs it that way).

import type { Fleet } from "../../core/scheduler/fleet.ts";
import { FakeClock } from "./clock.ts";
import type { Question, QuestionKind } from "../../core/tools/types.ts";
import { Delivery } from "../../core/delivery/delivery.ts";
import { MemoryLogger } from "../../core/logger.ts";
import type { DeliveryEvent } from "../../core/delivery/types.ts";
import {
  DEFAULT_GOVERNOR_CONFIG,
  type GovernorConfig,
  governorPath,
} from "../../core/governor/config.ts";
import { Governor } from "../../core/governor/governor.ts";
import type { WaitingReader } from "../../core/governor/waiting.ts";
import { envFrom } from "../../core/ports.ts";
import { SqliteStore } from "../../core/store/sqlite_store.ts";
import type { SqlStore } from "../../core/store/sql_store.ts";
import { PgStore } from "../../core/store/pg/pg_store.ts";
import { freshDatabaseUrl } from "../pg_cluster.ts";
import { FakeProcessTable, FakeSpawner, killUntilIdle } from "./spawner.ts";
import type { JobDefaults } from "../../core/scheduler/job_input.ts";
import type { PinResolver } from "../../core/scheduler/pin.ts";
import { Scheduler } from "../../core/scheduler/scheduler.ts";

export interface Kit {
  home: string;
  clock: FakeClock;
  store: SqlStore;
  spawner: FakeSpawner;
  processes: FakeProcessTable;
  governor: Governor;
  delivery: Delivery;
  delivered: DeliveryEvent[];
  logger: MemoryLogger;
  scheduler: Scheduler;
  [Symbol.asyncDispose](): Promise<void>;
}

export interface KitOptions {
  start?: string;
  env?: Record<string, string>;
  governor?: Partial<GovernorConfig>;
  pinResolver?: PinResolver;
  waiting?: WaitingReader;
  dbPath?: string;
  /** What new jobs default to (serve.ts's outpostSettings in production). */
  defaults?: JobDefaults;
  /** The outposts sharing the store (default: a single box). */
  fleet?: Fleet;
}

export async function makeKit(options: KitOptions = {}): Promise<Kit> {
  const home = await Deno.makeTempDir({ prefix: "outpost_test_" });
  const clock = new FakeClock(options.start ?? "2026-03-02T09:00:00Z");
  const env = envFrom({ PATH: "/usr/bin:/bin", ...options.env });
  const store = kitStore(clock, options.dbPath);
  const logger = new MemoryLogger();
  const config = { ...structuredClone(DEFAULT_GOVERNOR_CONFIG), ...options.governor };
  const governor = new Governor({
    path: governorPath(home),
    env,
    clock,
    store,
    ...(options.waiting ? { waiting: options.waiting } : {}),
  }, config);
  const delivery = new Delivery({ clock, logger });
  const delivered: DeliveryEvent[] = [];
  delivery.register({
    name: "recorder",
    send: (event) => {
      delivered.push(event);
      return Promise.resolve();
    },
  });
  const spawner = new FakeSpawner();
  const processes = new FakeProcessTable();
  spawner.onSpawn = (p) => processes.identities.set(p.pid, `boot:${p.pid}`);
  const scheduler = new Scheduler({
    store,
    clock,
    env,
    spawner,
    governor,
    delivery,
    logger,
    processes,
    pinResolver: options.pinResolver ?? null,
    ...(options.defaults ? { defaults: options.defaults } : {}),
    ...(options.fleet ? { fleet: options.fleet } : {}),
    agentCommand: { command: "agent", args: [] },
    home,
  });
  return {
    home,
    clock,
    store,
    spawner,
    processes,
    governor,
    delivery,
    delivered,
    logger,
    scheduler,
    async [Symbol.asyncDispose]() {
      await scheduler.stop();
      await killUntilIdle(scheduler, spawner);
      await delivery.idle();
      store.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** Which engine the kits of this test process use (see the header). */
export const KIT_STORE = Deno.env.get("AGENT_TEST_STORE") === "postgres" ? "postgres" : "sqlite";

function kitStore(clock: FakeClock, dbPath: string | undefined): SqlStore {
  if (KIT_STORE === "postgres" && dbPath === undefined) {
    return new PgStore({ url: freshDatabaseUrl(), clock });
  }
  return new SqliteStore({ path: dbPath ?? ":memory:", clock });
}

/** A valid scheduled-job request; override any field. */
/**
 * A workdir the doors accept (core/workdir_policy.ts): its own temp folder, never `/tmp`
 * itself, which holds each kit's agent home. Removed when the test process ends.
 */
export const TEST_WORKDIR = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "outpost_workdir_" }));
globalThis.addEventListener("unload", () => {
  try {
    Deno.removeSync(TEST_WORKDIR, { recursive: true });
  } catch { /* already gone: nothing to clean up */ }
});

export function jobInput(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: "nightly",
    prompt: "summarize the repo",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: TEST_WORKDIR,
    ...overrides,
  };
}

/** Starts a tick and resolves with the child it spawns. */
export async function tickAndSpawn(kit: Kit) {
  const spawned = kit.spawner.nextSpawn();
  await kit.scheduler.tick();
  return await spawned;
}

/**
 * Spawns run `runId` (the next due) and ends it needing a human: one question of `kind`,
 * "Shall I go on (<kind>)?". Resolves once the scheduler has settled the run (its inbox item
 * is open).
 */
export async function haltWithQuestion(kit: Kit, runId: number, kind: QuestionKind) {
  const proc = await tickAndSpawn(kit);
  proc.exit(2, {
    outcome: "needs_human",
    session_id: `sess-${runId}`,
    questions: [{ kind, text: `Shall I go on (${kind})?` }],
  });
  await kit.scheduler.whenSettled(runId);
}

/**
 * A needs_human run (exit 2) of a new disabled job with its open inbox item asking
 * `questions`, written straight to the store: no scheduler step needed.
 */
export function haltedRecords(
  kit: Pick<Kit, "scheduler" | "store">,
  questions: Question[],
  options: { job?: Record<string, unknown>; sessionId?: string; meta?: Record<string, unknown> } =
    {},
) {
  const job = kit.scheduler.createJob(jobInput(options.job), { enabled: false });
  const run = kit.store.createRun({
    job_id: job.id,
    status: "needs_human",
    attempt: 1,
    exit_code: 2,
    priority: 10,
    class: "scheduled",
    session_id: options.sessionId ?? "s1",
  });
  const item = kit.store.createInboxItem({
    job_id: job.id,
    run_id: run.id,
    questions,
    meta: options.meta ?? {},
  });
  return { job, run, item };
}
