// The room's reply when the dashboard confirms a held chat command (spec 5.6): posted by the
// bot on a single box (server/messenger/start.ts), and in a fleet by the bot's node, whichever
// node's dashboard confirmed it (server/fleet_wiring.ts, through the fleet's outbox).

import type { HoldConfirmation } from "../inbox/service.ts";
import { runLinkUrl } from "./commands.ts";

export function holdConfirmedText(c: HoldConfirmation, baseUrl: string): string {
  const resumed = c.run
    ? ` The run resumes as run ${c.run.id}: ${runLinkUrl(baseUrl, c.item.job_id, c.run.id)}`
    : "";
  return `Confirmed on the dashboard: ${c.hold.verb} on item ${c.item.id} (held by ` +
    `${c.hold.sender}) is applied.${resumed}`;
}
