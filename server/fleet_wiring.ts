// The fleet side of an outpost on a shared PostgreSQL (issue 32, docs/fleet.md): node settings
// from the environment, the PgFleet (claims and leases) and the view the /fleet page and
// /metrics read. Loaded by wiring.ts only when the store is PostgreSQL.

import type { BotStatus } from "../core/messenger/bot.ts";
import { errorText, type Logger } from "../core/logger.ts";
import type { Clock, Env } from "../core/ports.ts";
import { retryCutShort } from "../core/scheduler/recovery.ts";
import type { Scheduler } from "../core/scheduler/scheduler.ts";
import { fleetSettings, PgFleet } from "../core/fleet/pg_fleet.ts";
import { PgLeader } from "../core/fleet/pg_leader.ts";
import type { PgStore } from "../core/store/pg/pg_store.ts";
import type { FleetSource } from "./fleet_view.ts";
import { PgRunFiles } from "../core/fleet/pg_run_files.ts";
import type { SecretScanner } from "../core/publish/secret_scan.ts";
import { copyRunFiles } from "./fleet_run_files.ts";

/** Default node id: hostname and port (the process id when the port is picked at bind). */
export function defaultNodeId(baseUrl: string): string {
  let port = "";
  try {
    port = new URL(baseUrl).port;
  } catch { /* a bad base URL is refused elsewhere; the pid still names this node */ }
  return `${Deno.hostname()}:${port && port !== "0" ? port : `pid${Deno.pid}`}`;
}

/** What the wiring holds of a fleet node. */
export interface FleetParts {
  fleet: PgFleet;
  /** What /fleet, /api/fleet and /metrics read. */
  source: FleetSource;
  /**
   * Connects the scheduler and starts the lease (before the scheduler starts): fencing kills
   * its children, each renewal kills children of runs cancelled on other nodes and lets it
   * admit queued runs other nodes left, and runs settled as lost get the retry rule of runs
   * cut short (core/scheduler/recovery.ts). Each run this node finishes has its report and
   * log tail copied to the database, through `scanner` (server/fleet_run_files.ts).
   */
  attach(scheduler: Scheduler, scanner: SecretScanner): void;
  /** The Matrix bot, run only on the node holding its lock (ledMessenger). */
  leadMessenger(
    start: () => Promise<{ status(): BotStatus; stop(): Promise<void> }>,
  ): MessengerHandle;
}

export function openFleetParts(
  store: PgStore,
  o: { env: Env; clock: Clock; logger: Logger; baseUrl: string; home: string },
): FleetParts {
  const settings = fleetSettings((name) => o.env.get(name), defaultNodeId(o.baseUrl));
  const fleet = new PgFleet(store, {
    ...settings,
    clock: o.clock,
    logger: o.logger,
    url: o.baseUrl,
  });
  const runFiles = new PgRunFiles(store);
  return {
    fleet,
    attach(scheduler, scanner) {
      fleet.onFence = () => scheduler.fence();
      fleet.onLost = (run, cause) => retryCutShort(scheduler.ctx, run, cause);
      const copier = {
        store,
        home: o.home,
        logger: o.logger,
        scanner,
        runFiles,
        nodeId: fleet.nodeId,
      };
      scheduler.on((event) => {
        if (event.type !== "run_finished" || event.status === null) return;
        copyRunFiles(copier, event.run_id).catch((err) =>
          o.logger.log("warn", "run files not copied to the shared database", {
            run_id: event.run_id,
            error: errorText(err),
          })
        );
      });
      fleet.onRenewal(() => {
        scheduler.reapCancelled(); // cancelled from another node's dashboard
        scheduler.poke();
      });
      fleet.start();
    },
    source: { ...pgFleetSource(fleet, store), runPlace: (id) => runFiles.place(id, fleet.nodeId) },
    leadMessenger: (start) => ledMessenger(fleet, store, start, o),
  };
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

/** The advisory lock key of the Matrix bot's role. */
const MESSENGER_LOCK_KEY = 7_201_034;

/** What the wiring keeps of a messenger: its status for the pill, and how to stop it. */
export interface MessengerHandle {
  status(): BotStatus | null;
  stop(): Promise<void>;
}

/**
 * The Matrix bot on the one node that holds its lock (issue 32): every lease renewal each node
 * tries the lock; the holder starts the bot (its sync loop and retry queues), a node that
 * finds it lost (its session dropped) stops its bot, and another takes over when the holder
 * dies. Other nodes' pills say the bot runs on another node (its health shows on that node).
 */
export function ledMessenger(
  fleet: PgFleet,
  store: PgStore,
  start: () => Promise<{ status(): BotStatus; stop(): Promise<void> }>,
  o: { clock: Clock; logger: Logger },
): MessengerHandle {
  const leader = new PgLeader(store.connection, MESSENGER_LOCK_KEY);
  let bot: { status(): BotStatus; stop(): Promise<void> } | null = null;
  let busy = Promise.resolve();
  const round = () => {
    busy = busy.then(async () => {
      let leads = false;
      try {
        leads = leader.attempt();
      } catch (err) {
        o.logger.log("warn", "messenger leadership check failed", { error: errorText(err) });
      }
      if (leads && !bot) {
        o.logger.log("info", "this node runs the Matrix bot", { node: fleet.nodeId });
        bot = await start();
      } else if (!leads && bot) {
        o.logger.log("warn", "Matrix bot lock lost: stopping the bot here", { node: fleet.nodeId });
        const stopping = bot;
        bot = null;
        await stopping.stop();
      }
    }).catch((err) => {
      o.logger.log("error", "messenger leadership round failed", { error: errorText(err) });
    });
  };
  const unsubscribe = fleet.onRenewal(round);
  round();
  return {
    status: () =>
      bot?.status() ?? {
        state: "ok",
        failures: 0,
        detail: "the Matrix bot runs on the fleet node that holds its lock, not this one",
      },
    async stop() {
      unsubscribe();
      await busy;
      await bot?.stop();
      bot = null;
      try {
        leader.release();
      } catch { /* the session may be gone already: the lock went with it */ }
    },
  };
}
