// The outpost's inbox service, chat command runner and Matrix bot built on a scheduler kit,
// wired as server/wiring.ts and server/messenger/start.ts wire them, for the chat tests of
// core/messenger.

import { join } from "node:path";
import { InboxService } from "../../core/inbox/service.ts";
import { MatrixBot } from "../../core/messenger/bot.ts";
import { CommandRunner } from "../../core/messenger/commands.ts";
import { parseVerbs } from "../../core/messenger/config.ts";
import { Gate } from "../../core/messenger/gate.ts";
import { RoomTrust } from "../../core/messenger/room_trust.ts";
import { ScriptedTransport } from "./matrix_transport.ts";
import { testPublishGate } from "./publish_gate.ts";
import type { Kit } from "./scheduler_kit.ts";

/** The inbox service on the kit's store and scheduler; held items expire after a minute. */
export function kitInbox(kit: Kit): InboxService {
  return new InboxService({
    store: kit.store,
    clock: kit.clock,
    logger: kit.logger,
    resumer: kit.scheduler,
    holdTtlMs: 60_000,
  });
}

/** Where the runner's links point unless a test says otherwise. */
export const KIT_BASE_URL = "http://outpost.test";

/**
 * The chat command runner on the kit. Chat-made workspaces go under `workspacesRoot`
 * (default: `workspaces` in the kit's home); the kit's home is the agent home.
 */
export function kitCommandRunner(
  kit: Kit,
  inbox: InboxService,
  options: { workspacesRoot?: string; baseUrl?: string } = {},
): CommandRunner {
  return new CommandRunner({
    store: kit.store,
    scheduler: kit.scheduler,
    inbox,
    logger: kit.logger,
    baseUrl: options.baseUrl ?? KIT_BASE_URL,
    workspacesRoot: options.workspacesRoot ?? join(kit.home, "workspaces"),
    workdirPlaces: { agentHome: kit.home },
    clock: kit.clock,
  });
}

/**
 * The Matrix bot on the kit over a scripted transport: `room` holds the bot (user `botUser`)
 * and `operators`, who are the allowlist; the default verbs; the kit's inbox and a runner.
 */
export function kitChatBot(
  kit: Kit,
  { room, botUser, operators }: { room: string; botUser: string; operators: string[] },
) {
  const transport = new ScriptedTransport(room, botUser);
  transport.members_.set(room, [botUser, ...operators]);
  const allowlist = new Set(operators);
  const rooms = new RoomTrust((id) => transport.members(id), allowlist, "");
  const { verbs, setting } = parseVerbs(undefined);
  const inbox = kitInbox(kit);
  const runner = kitCommandRunner(kit, inbox);
  const gate = new Gate({
    allowlist,
    verbs,
    verbsSetting: setting,
    rooms,
    runner,
    clock: kit.clock,
    logger: kit.logger,
  });
  const publish = testPublishGate({ store: kit.store, home: kit.home, logger: kit.logger });
  const bot = new MatrixBot({
    transport,
    gate,
    rooms,
    clock: kit.clock,
    logger: kit.logger,
    publish,
  });
  return { transport, inbox, runner, publish, bot };
}
