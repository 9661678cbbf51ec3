// The scheduler's view of the other outposts sharing its store (issue 32, docs/fleet.md). A
// single box is its own fleet: it may run every run, owns every run it started, and has no
// fleet-wide cap. On a shared PostgreSQL, core/fleet/pg_fleet.ts answers these from the
// database: claims (one node per run), leases (a node owns its claims only while its lease
// holds) and the fleet-wide concurrency count.

import type { Run, Store } from "../store/store.ts";
import type { SpawnedProcess } from "../ports.ts";

/**
 * What fencing and reaping read of a run this process started (context.ts's ActiveRun fits;
 * named here so this seam does not import the scheduler context, which imports it).
 */
export interface StartedChild {
  runId: number;
  proc: Pick<SpawnedProcess, "killGroup"> | null;
}

export interface Fleet {
  /** This outpost's node id (AGENT_OUTPOST_NODE_ID). */
  readonly nodeId: string;
  /**
   * Claims a queued run for this node: true exactly once across the fleet, for the node that
   * runs it; false when another node claimed it, or when the job is pinned to a label this
   * node lacks.
   */
  claimRun(run: Run): boolean;
  /** Whether this node still owns run `runId` (its claim, under a lease that still holds). */
  owns(runId: number): boolean;
  /**
   * Startup recovery's share: true when run `runId` was started by this node id (under any
   * earlier lease), which then owns it again; false when it is another node's.
   */
  adopt(runId: number): boolean;
  /** Null when the fleet-wide cap admits one more run; otherwise why not. */
  fleetHold(): string | null;
}

/**
 * How long a recurring slot this node's governor refuses stays due for the fleet's other
 * nodes before it is skipped: one tick period, so each node's tick sees it once.
 */
export const FLEET_DEFER_MS = 60_000;

/** One box: everything is its own. */
export const SINGLE_BOX: Fleet = {
  nodeId: "local",
  claimRun: () => true,
  owns: () => true,
  adopt: () => true,
  fleetHold: () => null,
};

/** Upper bounds (seconds) of the fire-lag buckets: a tick is 60 s, so most fall below 60. */
export const LAG_BUCKETS = [0.5, 1, 5, 15, 30, 60, 120, 300] as const;

/** A cumulative histogram in Prometheus' sense, of fire lag in seconds. */
export class LagHistogram {
  readonly counts: number[] = LAG_BUCKETS.map(() => 0);
  count = 0;
  sum = 0;

  observe(seconds: number): void {
    const value = Math.max(0, seconds);
    this.count++;
    this.sum += value;
    LAG_BUCKETS.forEach((bound, i) => {
      if (value <= bound) this.counts[i]!++;
    });
  }
}

/**
 * Fencing (docs/fleet.md): this node's lease lapsed (paused, partitioned), so the fleet has
 * taken its runs over. Kills every child this process started; their ends are not recorded
 * (the runs are no longer this node's: recordOutcome asks the fleet first).
 */
export function fenceChildren(active: readonly Readonly<StartedChild>[]): number[] {
  const killed: number[] = [];
  for (const a of active) {
    if (a.proc) {
      a.proc.killGroup();
      killed.push(a.runId);
    }
  }
  return killed;
}

/**
 * Kills the children of runs cancelled elsewhere: on a shared store another node's dashboard
 * can cancel a run, but only the node that runs it holds its process group. Called every
 * lease round (server/fleet_wiring.ts). Returns the run ids killed.
 */
export function reapCancelled(
  store: Pick<Store, "getRun">,
  active: readonly Readonly<StartedChild>[],
): number[] {
  const killed: number[] = [];
  for (const a of active) {
    if (a.proc && store.getRun(a.runId)?.status === "cancelled") {
      a.proc.killGroup();
      killed.push(a.runId);
    }
  }
  return killed;
}
