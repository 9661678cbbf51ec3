// Several outposts on one PostgreSQL (issue 32, docs/fleet.md): the Fleet the scheduler asks
// (core/scheduler/fleet.ts), answered from two tables beside the store's:
//
//   fleet_nodes  one row per node id: its lease (lease_until, by the database's clock, so the
//                nodes' clocks never matter), an epoch bumped each time it (re)registers, and
//                what the /fleet page shows;
//   run_claims   one row per started run: which node (and under which epoch) runs it. The
//                primary key is the run's unique identity: a second claim changes nothing.
//
// A node renews its lease every third of AGENT_OUTPOST_LEASE_S. A renewal that finds the
// lease lapsed (the process was paused or cut off) fences: the scheduler kills its children
// before anything else, and the node registers again under a new epoch. Every renewal also
// sweeps claims no live lease backs any more (a dead node's, an old epoch's): a running run
// becomes `lost` (spec 3.1 "running (orphan) … child gone": a survivor cannot see another
// host's child) and gets the retry rule of runs cut short (onLost), a queued one is released.
// Sweeps run under the store's write lock (BEGIN IMMEDIATE → the fleet's advisory lock), so a
// takeover and the owner's last write never interleave. A claim is a transaction on rows
// (Store.atomicallyOnRows): claims of several nodes run side by side, the run's primary key in
// run_claims decides between them, and none runs alongside a sweep.

import { errorText, type Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import type { Fleet } from "../scheduler/fleet.ts";
import { isoZ } from "../time.ts";
import type { Run } from "../store/store.ts";
import { PgStore } from "../store/pg/pg_store.ts";
import { isNodeLabel, NODE_LABEL_RULE, pinLabelOf } from "./node_label.ts";
import { createFleetTables } from "./fleet_schema.ts";
import { OUTBOX_SCHEMA } from "./pg_outbox.ts";

export const NODE_ID_ENV = "AGENT_OUTPOST_NODE_ID";
export const LEASE_ENV = "AGENT_OUTPOST_LEASE_S";
export const LABELS_ENV = "AGENT_OUTPOST_NODE_LABELS";
export const FLEET_MAX_RUNS_ENV = "AGENT_OUTPOST_FLEET_MAX_RUNS";
export const DEFAULT_LEASE_S = 30;
/**
 * Key of the lock claims take in turn while AGENT_OUTPOST_FLEET_MAX_RUNS is set: counting the
 * runs going and claiming one more is check-then-act, which claims side by side would overrun.
 */
export const FLEET_CAP_LOCK_KEY = 7_201_041;
/** How soon a failed lease renewal is tried again (the database may be back by then). */
const RENEW_RETRY_MS = 1000;

/** Created on first start of any node (idempotent; under the migration lock). */
const FLEET_SCHEMA = `
CREATE TABLE IF NOT EXISTS fleet_nodes (
  node_id TEXT COLLATE "C" PRIMARY KEY,
  labels TEXT COLLATE "C" NOT NULL DEFAULT '',
  url TEXT COLLATE "C" NOT NULL DEFAULT '',
  epoch BIGINT NOT NULL DEFAULT 1,
  started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  heartbeat_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  lease_until TIMESTAMPTZ NOT NULL,
  renewals BIGINT NOT NULL DEFAULT 0,
  fenced BIGINT NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS run_claims (
  run_id BIGINT PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
  node_id TEXT COLLATE "C" NOT NULL,
  epoch BIGINT NOT NULL,
  claimed_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS run_claims_node ON run_claims (node_id, epoch);`;

export interface FleetNode {
  node_id: string;
  labels: string[];
  url: string;
  alive: boolean;
  started_at: string;
  heartbeat_at: string;
  lease_until: string;
  renewals: number;
  fenced: number;
  /** Runs of this node in status running now. */
  running: number;
  /** Every run this node ever claimed that is still stored. */
  runs: number;
}

export interface PgFleetOptions {
  nodeId: string;
  leaseS: number;
  labels: readonly string[];
  /** Fleet-wide cap on queued-and-claimed plus running runs; null: none. */
  maxRuns: number | null;
  clock: Clock;
  logger: Logger;
  url?: string;
}

/** Node settings from the environment; throws one clear line for a bad value. */
export function fleetSettings(
  get: (name: string) => string | undefined,
  fallbackNodeId: string,
): Pick<PgFleetOptions, "nodeId" | "leaseS" | "labels" | "maxRuns"> {
  const nodeId = get(NODE_ID_ENV)?.trim() || fallbackNodeId;
  if (!/^[\w.:@-]{1,100}$/.test(nodeId)) {
    throw new Error(`${NODE_ID_ENV}: letters, digits and . : @ _ - only, at most 100`);
  }
  const leaseText = get(LEASE_ENV)?.trim();
  const leaseS = leaseText ? Number(leaseText) : DEFAULT_LEASE_S;
  if (!Number.isFinite(leaseS) || leaseS < 2 || leaseS > 3600) {
    throw new Error(`${LEASE_ENV}: expected seconds 2..3600, got ${JSON.stringify(leaseText)}`);
  }
  const maxText = get(FLEET_MAX_RUNS_ENV)?.trim();
  const maxRuns = maxText ? Number(maxText) : null;
  if (maxRuns !== null && !(Number.isInteger(maxRuns) && maxRuns >= 1)) {
    throw new Error(`${FLEET_MAX_RUNS_ENV}: expected a whole number ≥ 1, got ${maxText}`);
  }
  const labels = (get(LABELS_ENV) ?? "").split(",").map((l) => l.trim()).filter((l) => l);
  const bad = labels.find((l) => !isNodeLabel(l));
  if (bad !== undefined) {
    throw new Error(`${LABELS_ENV}: ${JSON.stringify(bad)} is not ${NODE_LABEL_RULE}`);
  }
  return { nodeId, leaseS, labels, maxRuns };
}

export class PgFleet implements Fleet {
  readonly nodeId: string;
  readonly #store: PgStore;
  readonly #options: PgFleetOptions;
  #epoch = 0;
  #loop: Promise<void> | null = null;
  #stop = new AbortController();
  /**
   * Called for each run this node settles as `lost` after its node's lease lapsed, inside the
   * settling transaction: the retry rule for runs cut short (core/scheduler/recovery.ts).
   */
  onLost: (run: Run, cause: string) => void = () => {};
  /** Called when a renewal finds the lease lapsed: kill this node's children first. */
  onFence: () => void = () => {};
  readonly #renewalListeners = new Set<() => void>();
  /** Counters for /metrics. */
  readonly counters = { renewals: 0, fenced: 0, takenOver: 0, renewFailures: 0 };

  constructor(store: PgStore, options: PgFleetOptions) {
    this.#store = store;
    this.#options = options;
    this.nodeId = options.nodeId;
    createFleetTables(store.connection, `${FLEET_SCHEMA}; ${OUTBOX_SCHEMA}`);
  }

  /** Registers this node (a new epoch) and starts renewing its lease. */
  start(): void {
    this.#register();
    this.#loop = this.#renewLoop();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop?.catch(() => {});
    this.#loop = null;
  }

  #register(): void {
    const row = this.#store.connection.prepare(
      `INSERT INTO fleet_nodes (node_id, labels, url, lease_until)
         VALUES (?, ?, ?, now() + make_interval(secs => ?::float8))
       ON CONFLICT (node_id) DO UPDATE SET epoch = fleet_nodes.epoch + 1,
         labels = excluded.labels, url = excluded.url, lease_until = excluded.lease_until,
         started_at = now(), heartbeat_at = now()
       RETURNING epoch`,
    ).get(
      this.nodeId,
      this.#options.labels.join(","),
      this.#options.url ?? "",
      this.#options.leaseS,
    ) as { epoch: number };
    this.#epoch = row.epoch;
  }

  /** How often the lease is renewed: a third of it, so two renewals may fail before it lapses. */
  get renewEveryMs(): number {
    return (this.#options.leaseS * 1000) / 3;
  }

  /** Calls `fn` after every renewal round (leadership checks ride on it). Returns unsubscribe. */
  onRenewal(fn: () => void): () => void {
    this.#renewalListeners.add(fn);
    return () => this.#renewalListeners.delete(fn);
  }

  async #renewLoop(): Promise<void> {
    let wait = this.renewEveryMs;
    while (!this.#stop.signal.aborted) {
      try {
        await this.#options.clock.sleep(wait, this.#stop.signal);
      } catch {
        return; // stopped
      }
      try {
        this.renew();
        wait = this.renewEveryMs;
      } catch (err) {
        // The database may be restarting. Try again soon rather than a whole interval later:
        // the lease must be extended the moment the store answers again, or it may lapse
        // under runs this node claimed in between (claimRun refuses a lease this short, too).
        // A lease that lapsed meanwhile is found by that renewal and fenced.
        wait = Math.min(this.renewEveryMs, RENEW_RETRY_MS);
        this.counters.renewFailures++;
        this.#options.logger.log("warn", "fleet lease renewal failed", { error: errorText(err) });
      }
      for (const fn of this.#renewalListeners) {
        try {
          fn();
        } catch (err) {
          this.#options.logger.log("error", "a lease-round listener failed", {
            error: errorText(err),
          });
        }
      }
    }
  }

  /** One renewal: extend the lease, or fence when it lapsed; then sweep orphaned claims. */
  renew(): void {
    const renewed = Number(
      this.#store.connection.prepare(
        `UPDATE fleet_nodes SET heartbeat_at = now(),
                lease_until = now() + make_interval(secs => ?::float8), renewals = renewals + 1
          WHERE node_id = ? AND epoch = ? AND lease_until > now()`,
      ).run(this.#options.leaseS, this.nodeId, this.#epoch).changes,
    );
    if (renewed === 1) {
      this.counters.renewals++;
    } else {
      // Paused or cut off past the lease: the fleet may already have taken our runs over.
      // Children first, before anything else records anything (fencing).
      this.onFence();
      this.counters.fenced++;
      this.#options.logger.log("warn", "fleet lease had lapsed: own children stopped", {
        node: this.nodeId,
      });
      this.#store.connection.prepare(
        "UPDATE fleet_nodes SET fenced = fenced + 1 WHERE node_id = ?",
      ).run(this.nodeId);
      this.#register();
    }
    this.sweep();
  }

  /** Settles claims that no live lease backs (dead nodes, old epochs). Returns the run ids. */
  sweep(): number[] {
    // Every renewal sweeps, and nearly always finds nothing: looked for first without the
    // fleet's exclusive write lock, which would hold off every node's claims and fires.
    if (this.#orphans().length === 0) return [];
    // Counted and logged once it committed: a lost session runs the transaction again.
    const settled = this.#store.atomically(() => {
      const orphans = this.#orphans(); // again under the lock: the owner may have settled it
      const now = isoZ(this.#options.clock.now());
      for (const o of orphans) {
        if (o.status === "running") {
          const cause = `node ${o.node_id} stopped renewing its lease while this run was ` +
            `going; taken over by ${this.nodeId}`;
          const lost = this.#store.updateRun(o.run_id, {
            status: "lost",
            finished_at: now,
            reason: cause,
          });
          this.onLost(lost, cause);
        }
        // Released: a queued run is claimed again by whichever node admits it.
        this.#store.connection.prepare("DELETE FROM run_claims WHERE run_id = ?").run(o.run_id);
      }
      return orphans.map((o) => o.run_id);
    });
    this.counters.takenOver += settled.length;
    if (settled.length > 0) {
      this.#options.logger.log("warn", "took over runs of nodes whose lease lapsed", {
        node: this.nodeId,
        runs: settled,
      });
    }
    return settled;
  }

  /** Claims of queued or running runs that no live lease backs. */
  #orphans(): { run_id: number; node_id: string; status: string }[] {
    return this.#store.connection.prepare(
      `SELECT c.run_id, c.node_id, r.status FROM run_claims c
         JOIN runs r ON r.id = c.run_id
         LEFT JOIN fleet_nodes n ON n.node_id = c.node_id AND n.epoch = c.epoch
                                AND n.lease_until > now()
        WHERE n.node_id IS NULL AND r.status IN ('queued', 'running')`,
    ).all() as { run_id: number; node_id: string; status: string }[];
  }

  claimRun(run: Run): boolean {
    const job = this.#store.getJob(run.job_id);
    const pin = job ? pinLabelOf(job.meta) : null;
    if (pin !== null && !this.#options.labels.includes(pin)) return false;
    // A lease that may lapse before its next renewal (one that failed while the database was
    // away) claims nothing: the run stays queued for a node whose lease will outlive it.
    const marginS = this.renewEveryMs / 1000;
    return this.#store.atomicallyOnRows(() => {
      if (this.#options.maxRuns !== null) {
        this.#store.connection.exec(`SELECT pg_advisory_xact_lock(${FLEET_CAP_LOCK_KEY})`);
      }
      if (this.fleetHold() !== null) return false;
      const claimed = this.#store.connection.prepare(
        `INSERT INTO run_claims (run_id, node_id, epoch)
           SELECT ?, ?, ? WHERE EXISTS (
             SELECT 1 FROM fleet_nodes WHERE node_id = ? AND epoch = ?
                AND lease_until > now() + make_interval(secs => ?::float8))
             AND EXISTS (SELECT 1 FROM runs WHERE id = ? AND status = 'queued')
         ON CONFLICT (run_id) DO NOTHING`,
      ).run(run.id, this.nodeId, this.#epoch, this.nodeId, this.#epoch, marginS, run.id);
      return Number(claimed.changes) === 1;
    });
  }

  owns(runId: number): boolean {
    return this.#store.connection.prepare(
      `SELECT 1 AS ok FROM run_claims c
         JOIN fleet_nodes n ON n.node_id = c.node_id AND n.epoch = c.epoch
        WHERE c.run_id = ? AND c.node_id = ? AND c.epoch = ? AND n.lease_until > now()`,
    ).get(runId, this.nodeId, this.#epoch) !== undefined;
  }

  adopt(runId: number): boolean {
    // Under the write lock, so a sweep settles the run or leaves it to this node, not both.
    return this.#store.atomically(() =>
      Number(
        this.#store.connection.prepare(
          "UPDATE run_claims SET epoch = ? WHERE run_id = ? AND node_id = ?",
        ).run(this.#epoch, runId, this.nodeId).changes,
      ) === 1
    );
  }

  fleetHold(): string | null {
    const max = this.#options.maxRuns;
    if (max === null) return null;
    const { n } = this.#store.connection.prepare(
      `SELECT COUNT(*) AS n FROM run_claims c JOIN runs r ON r.id = c.run_id
        WHERE r.status IN ('queued', 'running')`,
    ).get() as { n: number };
    return n >= max ? `fleet: ${n} of ${max} runs going across the fleet` : null;
  }

  /** Every node that ever registered, with its lease and runs (GET /api/fleet). */
  nodes(): FleetNode[] {
    const rows = this.#store.connection.prepare(
      `SELECT n.node_id, n.labels, n.url, n.lease_until > now() AS alive, n.started_at,
              n.heartbeat_at, n.lease_until, n.renewals, n.fenced,
              (SELECT COUNT(*) FROM run_claims c JOIN runs r ON r.id = c.run_id
                WHERE c.node_id = n.node_id AND r.status = 'running') AS running,
              (SELECT COUNT(*) FROM run_claims c WHERE c.node_id = n.node_id) AS runs
         FROM fleet_nodes n ORDER BY n.node_id`,
    ).all();
    return rows.map((r) => ({
      ...(r as unknown as FleetNode),
      labels: String(r.labels).split(",").filter((l) => l),
    }));
  }
}
