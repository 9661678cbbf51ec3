// The outpost's inbox service and chat command runner built on a scheduler kit, wired as
// server/wiring.ts and server/messenger/start.ts wire them, for the chat tests of core/messenger.

import { join } from "node:path";
import { InboxService } from "../../core/inbox/service.ts";
import { CommandRunner } from "../../core/messenger/commands.ts";
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
