// What the /fleet page, GET /api/fleet and GET /metrics read about the outposts sharing this
// one's store. On PostgreSQL it is the PgFleet's view of the database; a single box is a fleet
// of one (this process), so the same page and the same metrics serve both.

import type { RunPlace } from "../core/fleet/pg_run_files.ts";
import type { FleetNode } from "../core/fleet/pg_fleet.ts";
import type { Scheduler } from "../core/scheduler/scheduler.ts";

export interface FleetSource {
  /** "sqlite" (one box) or "postgres" (a fleet). */
  store: "sqlite" | "postgres";
  nodeId: string;
  nodes(): FleetNode[];
  counters(): { renewals: number; fenced: number; takenOver: number; renewFailures: number };
  /** Round trips to the database so far and their total time; null when not measured. */
  storeLatency(): { count: number; totalMs: number } | null;
  /**
   * Where run `runId` ran when that is another node, with the copy of its report and log it
   * stored (core/fleet/pg_run_files.ts); null when it ran here or on a single box.
   */
  runPlace?(runId: number): RunPlace | null;
}

/** A single box: itself, alive, with the runs its scheduler holds. */
export function singleBoxFleet(scheduler: Scheduler, startedAt: string, url: () => string) {
  const source: FleetSource = {
    store: "sqlite",
    nodeId: "local",
    nodes: () => [{
      node_id: "local",
      labels: [],
      url: url(),
      alive: true,
      started_at: startedAt,
      heartbeat_at: startedAt,
      lease_until: startedAt,
      renewals: 0,
      fenced: 0,
      running: scheduler.activeRuns().filter((a) => a.proc !== null).length,
      runs: scheduler.activeRuns().length,
    }],
    counters: () => ({ renewals: 0, fenced: 0, takenOver: 0, renewFailures: 0 }),
    storeLatency: () => null,
  };
  return source;
}
