// The fleet side of an outpost on a shared PostgreSQL (issue 32, docs/fleet.md): node settings
// from the environment, the PgFleet (claims and leases) and the view the /fleet page and
// /metrics read. Loaded by wiring.ts only when the store is PostgreSQL.

import type { Logger } from "../core/logger.ts";
import type { Clock, Env } from "../core/ports.ts";
import { fleetSettings, PgFleet } from "../core/store/pg/pg_fleet.ts";
import type { PgStore } from "../core/store/pg/pg_store.ts";
import type { FleetSource } from "./fleet_view.ts";

/** Default node id: hostname and port (the process id when the port is picked at bind). */
export function defaultNodeId(baseUrl: string): string {
  let port = "";
  try {
    port = new URL(baseUrl).port;
  } catch { /* a bad base URL is refused elsewhere; the pid still names this node */ }
  return `${Deno.hostname()}:${port && port !== "0" ? port : `pid${Deno.pid}`}`;
}

export function openFleet(
  store: PgStore,
  o: { env: Env; clock: Clock; logger: Logger; baseUrl: string },
): PgFleet {
  const settings = fleetSettings((name) => o.env.get(name), defaultNodeId(o.baseUrl));
  return new PgFleet(store, { ...settings, clock: o.clock, logger: o.logger, url: o.baseUrl });
}

/** The fleet as the pages and /metrics read it. */
export function pgFleetSource(fleet: PgFleet, store: PgStore): FleetSource {
  return {
    store: "postgres",
    nodeId: fleet.nodeId,
    nodes: () => fleet.nodes(),
    counters: () => ({ ...fleet.counters }),
    storeLatency: () => ({ ...store.connection.latency }),
  };
}
