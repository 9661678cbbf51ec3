// One outpost node of a fleet in this process, for the scheduler's fleet tests: its own fake
// clock, its own connection to the shared PostgreSQL database (PgStore), its own claims and
// lease (PgFleet, a lease of an hour), a governor with `runners` slots a class, and fake
// children that end at once unless asked (`exitAtOnce: false`).

import { Delivery } from "../../core/delivery/delivery.ts";
import { PgFleet } from "../../core/fleet/pg_fleet.ts";
import { DEFAULT_GOVERNOR_CONFIG, governorPath } from "../../core/governor/config.ts";
import { Governor } from "../../core/governor/governor.ts";
import { MemoryLogger } from "../../core/logger.ts";
import { envFrom, systemClock } from "../../core/ports.ts";
import { Scheduler } from "../../core/scheduler/scheduler.ts";
import { PgStore } from "../../core/store/pg/pg_store.ts";
import { FakeClock } from "./clock.ts";
import { FakeProcessTable, FakeSpawner, killUntilIdle } from "./spawner.ts";

export interface FleetNodeOptions {
  runners?: number;
  exitAtOnce?: boolean;
  /** How long one statement may wait before the store gives up (default 30 s). */
  timeoutMs?: number;
}

export type FleetNode = Awaited<ReturnType<typeof fleetNode>>;

export async function fleetNode(
  url: string,
  id: string,
  start: string,
  o: FleetNodeOptions = {},
) {
  const clock = new FakeClock(start);
  const logger = new MemoryLogger();
  const store = new PgStore({ url, clock, ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}) });
  const fleet = new PgFleet(store, {
    nodeId: id,
    leaseS: 3600,
    labels: [],
    maxRuns: null,
    clock: systemClock,
    logger,
  });
  fleet.start();
  const home = await Deno.makeTempDir({ prefix: "fleet_dst_" });
  const env = envFrom({ PATH: "/usr/bin:/bin" });
  const governor = new Governor(
    { path: governorPath(home), env, clock, store },
    {
      ...structuredClone(DEFAULT_GOVERNOR_CONFIG),
      max_concurrent: { api: o.runners ?? 8, scheduled: o.runners ?? 8 },
    },
  );
  const spawner = new FakeSpawner();
  const processes = new FakeProcessTable();
  spawner.onSpawn = (p) => {
    processes.identities.set(p.pid, `boot:${p.pid}`);
    // Each child ends at once unless asked: the next slot is never blocked by single-flight.
    if (o.exitAtOnce ?? true) p.exit(0);
  };
  const scheduler = new Scheduler({
    store,
    clock,
    env,
    spawner,
    governor,
    delivery: new Delivery({ clock, logger }),
    logger,
    processes,
    agentCommand: { command: "agent", args: [] },
    home,
    fleet,
  });
  return {
    clock,
    store,
    scheduler,
    fleet,
    async close() {
      await killUntilIdle(scheduler, spawner);
      await fleet.stop();
      store.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}
