// Starts the Matrix bot inside agent-outpost when all four MX_* variables are set (spec 5.6):
// loads the matrix-js-sdk transport through a dynamic import (so a dormant outpost never
// loads the library), registers the messenger delivery adapter, and replies in the hold's room
// when the dashboard confirms a held command.

import type { ProtectedPlaces } from "../../core/workdir_policy.ts";
import type { Delivery } from "../../core/delivery/delivery.ts";
import type { InboxService } from "../../core/inbox/service.ts";
import { errorText, type Logger } from "../../core/logger.ts";
import { createMessengerAdapter } from "../../core/messenger/adapter.ts";
import { type BotStatus, MatrixBot } from "../../core/messenger/bot.ts";
import { CommandRunner } from "../../core/messenger/commands.ts";
import { holdConfirmedText } from "../../core/messenger/hold_reply.ts";
import type { MessengerConfig } from "../../core/messenger/config.ts";
import { Gate } from "../../core/messenger/gate.ts";
import { RoomTrust } from "../../core/messenger/room_trust.ts";
import type { TransportFactory } from "../../core/messenger/transport.ts";
import type { Clock } from "../../core/ports.ts";
import type { PublishGate } from "../../core/publish/gate.ts";
import type { Scheduler } from "../../core/scheduler/scheduler.ts";
import type { Store } from "../../core/store/store.ts";

export interface StartMessengerOptions {
  config: MessengerConfig;
  store: Store;
  scheduler: Scheduler;
  inbox: InboxService;
  delivery: Delivery;
  /** Clock of rate limits (the outpost's clock). */
  clock: Clock;
  /** Clock of the sync loop's retry waits (the real one; tests may shorten the backoff). */
  timers: Clock;
  logger: Logger;
  fetch: typeof globalThis.fetch;
  baseUrl: string;
  workspacesRoot: string;
  /** What no workspace may be, hold or lie inside (core/workdir_policy.ts). */
  workdirPlaces: ProtectedPlaces;
  /** The secret scanner every message passes (core/publish/gate.ts). */
  publish: PublishGate;
  /**
   * Whether this bot answers dashboard confirmations of held commands itself (default true).
   * In a fleet every node's dashboard may confirm, so the fleet wiring routes those replies
   * to the bot's node instead (server/fleet_wiring.ts).
   */
  holdReplies?: boolean;
  /** Overrides the SDK transport (never needed in production). */
  transportFactory?: TransportFactory;
  backoffBaseMs?: number;
  backoffCapMs?: number;
  syncTimeoutMs?: number;
}

export interface Messenger {
  bot: MatrixBot;
  status(): BotStatus;
  stop(): Promise<void>;
}

async function sdkTransport(): Promise<TransportFactory> {
  // A dynamic import: a dormant outpost never loads matrix-js-sdk (see cli/main.ts).
  const mod = await import("../../core/messenger/matrix_sdk_transport.ts");
  return mod.createTransport;
}

export async function startMessenger(o: StartMessengerOptions): Promise<Messenger> {
  const { config } = o;
  const factory = o.transportFactory ?? await sdkTransport();
  const transport = factory({ homeserver: config.homeserver, token: config.token, fetch: o.fetch });
  const rooms = new RoomTrust((room) => transport.members(room), config.allowlist, "");
  const runner = new CommandRunner({
    store: o.store,
    scheduler: o.scheduler,
    inbox: o.inbox,
    logger: o.logger,
    baseUrl: o.baseUrl,
    workspacesRoot: o.workspacesRoot,
    workdirPlaces: o.workdirPlaces,
    clock: o.clock,
  });
  const gate = new Gate({
    allowlist: config.allowlist,
    verbs: config.verbs,
    verbsSetting: config.verbsSetting,
    rooms,
    runner,
    clock: o.clock,
    logger: o.logger,
  });
  const bot = new MatrixBot({
    transport,
    gate,
    rooms,
    clock: o.timers,
    logger: o.logger,
    publish: o.publish,
    ...(o.backoffBaseMs === undefined ? {} : { backoffBaseMs: o.backoffBaseMs }),
    ...(o.backoffCapMs === undefined ? {} : { backoffCapMs: o.backoffCapMs }),
    ...(o.syncTimeoutMs === undefined ? {} : { syncTimeoutMs: o.syncTimeoutMs }),
  });
  const unregister = o.delivery.register(createMessengerAdapter({
    post: (room, text, signal, source) => bot.post(room, text, { signal, source }),
    defaultRoom: config.room,
    baseUrl: o.baseUrl,
  }));
  if (o.holdReplies !== false) {
    o.inbox.setHoldConfirmedHook(async (c) => {
      await bot.post(c.room, holdConfirmedText(c, o.baseUrl));
    });
  }
  bot.start();
  o.logger.log("info", "matrix bot started", {
    homeserver: config.homeserver,
    allowlist_size: config.allowlist.size,
    verbs: config.verbsSetting,
  });
  return {
    bot,
    status: () => bot.status(),
    async stop() {
      unregister();
      if (o.holdReplies !== false) o.inbox.setHoldConfirmedHook(null);
      await bot.stop().catch((err) =>
        o.logger.log("warn", "stopping the matrix bot failed", { error: errorText(err) })
      );
    },
  };
}
