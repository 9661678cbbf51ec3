// The messenger as a delivery adapter (spec 6): inbox items, run reports of messenger-surface
// jobs and alerts become notices in the room the job came from (its meta.room), or in MX_ROOM
// for scheduled-job and webhook reports and alerts. Text is sanitized again here.
//
// Two events are not posted, so the room does not hear the same halt twice: the run_report of
// a halt (spec 6: the inbox item is posted instead) and the needs_human alert that
// accompanies every new inbox item.

import { BODY_MAX, sanitizeBody, sanitizeTitle } from "../delivery/sanitize.ts";
import { INBOX_BODY_MAX } from "../delivery/events.ts";
import type { DeliveryAdapter, DeliveryEvent } from "../delivery/types.ts";
import { itemLink } from "./commands.ts";

export interface MessengerAdapterOptions {
  post(room: string, text: string, signal: AbortSignal): Promise<unknown>;
  /** MX_ROOM. */
  defaultRoom: string;
  baseUrl: string;
}

/** The notice for one event, or null when the messenger does not post it. */
export function messageFor(event: DeliveryEvent, baseUrl: string): string | null {
  const title = sanitizeTitle(event.title);
  const base = baseUrl.replace(/\/+$/, "");
  switch (event.kind) {
    case "inbox_item": {
      // The question and what it would approve (diff or command, cut by inboxItemEvent).
      const body = sanitizeBody(event.body, INBOX_BODY_MAX);
      const how = event.risk === "high"
        ? `High risk: approve/reject/revise ${event.item_id} will be held for dashboard ` +
          `confirmation.`
        : `Reply "approve ${event.item_id}", "reject ${event.item_id} <reason>", ` +
          `"revise ${event.item_id}: <text>", or answer in plain text.`;
      return `${title}\nInbox item ${event.item_id} (job ${event.job_id}, run ${event.run_id}):\n` +
        `${body}\n${how}\n${itemLink(base, event.item_id)}`;
    }
    case "run_report":
      if (event.outcome === "needs_human") return null;
      return `${title}\n\n${sanitizeBody(event.body, BODY_MAX)}\n\n${base}${event.link}`;
    case "alert":
      if (event.alert === "needs_human") return null;
      return `Alert: ${title}\n${sanitizeBody(event.body, 1000)}`;
  }
}

export function createMessengerAdapter(o: MessengerAdapterOptions): DeliveryAdapter {
  return {
    name: "matrix",
    async send(event, signal) {
      const text = messageFor(event, o.baseUrl);
      if (text === null) return;
      await o.post(event.room ?? o.defaultRoom, text, signal);
    },
  };
}
