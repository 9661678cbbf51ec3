// What the scheduler and its helpers share: the injected outside world plus the services.

import type { Delivery } from "../delivery/delivery.ts";
import type { Logger } from "../logger.ts";
import type { DeliveryEvent } from "../delivery/types.ts";
import type { Governor } from "../governor/governor.ts";
import type { Clock, Env, SpawnedProcess, Spawner } from "../ports.ts";
import type { JobClass, Store } from "../store/store.ts";
import type { Fleet } from "./fleet.ts";
import type { AgentCommand } from "./headless_command.ts";
import type { JobDefaults } from "./job_input.ts";
import type { PinResolver } from "./pin.ts";
import type { ProcessTable } from "./proc.ts";
import { isoZ } from "../time.ts";

export interface SchedulerContext {
  store: Store;
  clock: Clock;
  /** The operator's environment (children inherit it; MAX_CONCURRENT_RUNS etc. read from it). */
  env: Env;
  spawner: Spawner;
  governor: Governor;
  delivery: Delivery;
  logger: Logger;
  processes: ProcessTable;
  pinResolver: PinResolver | null;
  agentCommand: AgentCommand;
  /** The per-user directory (~/.agent by default); reports go under <home>/outpost/runs. */
  home: string;
  /** Endpoint new jobs default to. */
  defaults: JobDefaults;
  /** The other outposts sharing the store (SINGLE_BOX on SQLite). */
  fleet: Fleet;
  /** Report directories already created by this process (saves a mkdir per run). */
  runDirs: Set<string>;
  /** Report path of each job's latest run started by this process. */
  lastReport: Map<number, string>;
}

/** A run this process has admitted: starting (pin check) or running. */
export interface ActiveRun {
  runId: number;
  jobId: number;
  cls: JobClass;
  proc: SpawnedProcess | null;
  /** Epoch ms at which the process group is killed (timeout_s). */
  deadline: number | null;
  timedOut: boolean;
}

export function nowIso(ctx: Pick<SchedulerContext, "clock">): string {
  return isoZ(ctx.clock.now());
}

/** Fire-and-forget delivery: send never rejects, and a slow adapter must not hold a run. */
export function emit(ctx: Pick<SchedulerContext, "delivery">, event: DeliveryEvent): void {
  void ctx.delivery.send(event);
}
