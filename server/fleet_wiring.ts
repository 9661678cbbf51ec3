// The fleet side of an outpost on a shared PostgreSQL (issue 32, docs/fleet.md): node settings
// from the environment, the PgFleet (claims and leases) and the view the /fleet page and
// /metrics read. Loaded by wiring.ts only when the store is PostgreSQL.

import { Delivery } from "../core/delivery/delivery.ts";
import type { DeliveryEvent } from "../core/delivery/types.ts";
import type { BotStatus } from "../core/messenger/bot.ts";
import { messageFor } from "../core/messenger/adapter.ts";
import { errorText, type Logger } from "../core/logger.ts";
import type { Clock, Env } from "../core/ports.ts";
import { retryCutShort } from "../core/scheduler/recovery.ts";
import type { Scheduler } from "../core/scheduler/scheduler.ts";
import { fleetSettings, PgFleet } from "../core/fleet/pg_fleet.ts";
import { PgLeader } from "../core/fleet/pg_leader.ts";
import { type OutboxEntry, PgOutbox } from "../core/fleet/pg_outbox.ts";
import type { InboxService } from "../core/inbox/service.ts";
import { holdConfirmedText } from "../core/messenger/hold_reply.ts";
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
  /**
   * The Matrix bot, run only on the node holding its lock (ledMessenger). `start` gets the
   * delivery its adapter registers on: the bot's own, fed from the fleet's outbox, while this
   * node's delivery and inbox send their chat-bound events and replies to the outbox.
   */
  leadMessenger(start: StartBot, local: LocalSurfaces): MessengerHandle;
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
    leadMessenger: (start, local) => ledMessenger(fleet, store, start, local, o),
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

/** This node's bot, as the fleet drives it. */
export interface FleetBot {
  status(): BotStatus;
  stop(): Promise<void>;
  /** Posts a reply in `room` (through the publish gate, as every message of the bot). */
  post(room: string, text: string): Promise<unknown>;
}

/**
 * Starts this node's bot, its delivery adapter registered on `delivery`, without a hook of its
 * own for held commands' confirmations (the fleet routes those).
 */
export type StartBot = (delivery: Delivery) => Promise<FleetBot>;

/** Where this node emits chat-bound events: its delivery, and its inbox's confirmations. */
export interface LocalSurfaces {
  delivery: Delivery;
  inbox: Pick<InboxService, "setHoldConfirmedHook">;
}

/** How often the bot's node looks for chat events other nodes queued. */
const OUTBOX_POLL_MS = 1000;

/**
 * The Matrix bot on the one node that holds its lock (issue 32): every lease renewal each node
 * tries the lock; the holder starts the bot (its sync loop and retry queues), a node that
 * finds it lost (its session dropped) stops its bot, and another takes over when the holder
 * dies. Other nodes' pills say the bot runs on another node (its health shows on that node).
 *
 * Chat notices are posted once, whichever node emitted their event: every node's delivery
 * queues chat-bound events in the fleet's outbox (core/fleet/pg_outbox.ts), and so does every
 * node's inbox when its dashboard confirms a held chat command; the bot's node takes them out
 * and hands each to the bot's adapter (on a delivery of the bot's own) or posts the reply.
 */
export function ledMessenger(
  fleet: PgFleet,
  store: PgStore,
  start: StartBot,
  local: LocalSurfaces,
  o: { clock: Clock; logger: Logger; baseUrl: string },
): MessengerHandle {
  const leader = new PgLeader(store.connection, MESSENGER_LOCK_KEY);
  const outbox = new PgOutbox(store.connection, fleet.nodeId);
  const botDelivery = new Delivery({ clock: o.clock, logger: o.logger });
  let bot: FleetBot | null = null;
  let drain: OutboxDrain | null = null;
  const queue = (entry: OutboxEntry) => {
    outbox.put(entry);
    drain?.wake();
  };
  const unregisterRelay = local.delivery.register({
    name: "matrix",
    send(event) {
      // Only what the bot would post (the link base does not change that answer).
      if (messageFor(event, "") === null) return Promise.resolve();
      queue({ event });
      return Promise.resolve();
    },
  });
  local.inbox.setHoldConfirmedHook((c) =>
    queue({ notice: { room: c.room, text: holdConfirmedText(c, o.baseUrl) } })
  );
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
        const started = await start(botDelivery);
        bot = started;
        drain = new OutboxDrain(outbox, {
          event: (event) => botDelivery.send(event),
          notice: (room, text) => started.post(room, text),
        }, o);
      } else if (!leads && bot) {
        o.logger.log("warn", "Matrix bot lock lost: stopping the bot here", { node: fleet.nodeId });
        const stopping = bot;
        bot = null;
        await drain?.stop();
        drain = null;
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
      unregisterRelay();
      local.inbox.setHoldConfirmedHook(null);
      await busy;
      await drain?.stop();
      drain = null;
      await botDelivery.idle();
      await bot?.stop();
      bot = null;
      try {
        leader.release();
      } catch { /* the session may be gone already: the lock went with it */ }
    },
  };
}

/** How the bot's node sends what it takes from the outbox. */
interface OutboxSinks {
  event(event: DeliveryEvent): Promise<unknown>;
  notice(room: string, text: string): Promise<unknown>;
}

/** The bot's node's loop: takes queued chat events and replies and posts them, oldest first. */
class OutboxDrain {
  readonly #stop = new AbortController();
  #nap = new AbortController();
  readonly #loop: Promise<void>;

  constructor(outbox: PgOutbox, sinks: OutboxSinks, o: { clock: Clock; logger: Logger }) {
    this.#loop = (async () => {
      while (!this.#stop.signal.aborted) {
        let taken: OutboxEntry[] = [];
        try {
          taken = outbox.take();
        } catch (err) {
          // The database may be away: the entries stay queued for the next pass.
          o.logger.log("warn", "taking chat events from the fleet outbox failed", {
            error: errorText(err),
          });
        }
        for (const entry of taken) {
          try {
            if ("event" in entry) await sinks.event(entry.event);
            else await sinks.notice(entry.notice.room, entry.notice.text);
          } catch (err) {
            o.logger.log("warn", "a chat reply from the fleet outbox failed", {
              error: errorText(err),
            });
          }
        }
        this.#nap = new AbortController();
        const signal = AbortSignal.any([this.#stop.signal, this.#nap.signal]);
        await o.clock.sleep(OUTBOX_POLL_MS, signal).catch(() => {});
      }
    })();
  }

  /** An event was queued on this node: take it now rather than at the next poll. */
  wake(): void {
    this.#nap.abort();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }
}
