// The messenger as a delivery adapter (spec 6): inbox items, run reports of messenger-surface
// jobs and alerts become notices in the room the job came from (its meta.room), or in MX_ROOM
// for scheduled-job and webhook reports and alerts. Text is sanitized again here.
//
// Links in the event's text (written by a model) are neutralized (core/delivery/links.ts);
// the item and run links this adapter adds stay clickable. Every notice passes the publish
// gate's secret scanner in MatrixBot.post, with the event's job and run, so a held notice
// becomes an inbox item to release or drop.
//
// Two events are not posted, so the room does not hear the same halt twice: the run_report of
// a halt (spec 6: the inbox item is posted instead) and the needs_human alert that
// accompanies every new inbox item.

import { neutralizeLinks } from "../delivery/links.ts";
import { BODY_MAX, sanitizeBody, sanitizeTitle } from "../delivery/sanitize.ts";
import { INBOX_BODY_MAX } from "../delivery/events.ts";
import type { DeliveryAdapter, DeliveryEvent } from "../delivery/types.ts";
import { itemLink } from "./commands.ts";

/** The job and run a notice is about (a held notice opens its inbox item on them). */
export interface NoticeSource {
  job_id?: number;
  run_id?: number;
}

export interface MessengerAdapterOptions {
  post(room: string, text: string, signal: AbortSignal, source: NoticeSource): Promise<unknown>;
  /** MX_ROOM. */
  defaultRoom: string;
  baseUrl: string;
}

/** The notice for one event, or null when the messenger does not post it. */
export function messageFor(event: DeliveryEvent, baseUrl: string): string | null {
  const title = sanitizeTitle(neutralizeLinks(event.title));
  const base = baseUrl.replace(/\/+$/, "");
  switch (event.kind) {
    case "inbox_item": {
      // The question and what it would approve (diff or command, cut by inboxItemEvent).
      const body = sanitizeBody(neutralizeLinks(event.body), INBOX_BODY_MAX);
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
      return `${title}\n\n${sanitizeBody(neutralizeLinks(event.body), BODY_MAX)}\n\n` +
        `${base}${event.link}`;
    case "alert":
      if (event.alert === "needs_human") return null;
      return `Alert: ${title}\n${sanitizeBody(neutralizeLinks(event.body), 1000)}`;
  }
}

export function createMessengerAdapter(o: MessengerAdapterOptions): DeliveryAdapter {
  return {
    name: "matrix",
    async send(event, signal) {
      const text = messageFor(event, o.baseUrl);
      if (text === null) return;
      const source: NoticeSource = {
        ...(event.job_id !== undefined ? { job_id: event.job_id } : {}),
        ...(event.run_id !== undefined ? { run_id: event.run_id } : {}),
      };
      await o.post(event.room ?? o.defaultRoom, text, signal, source);
    },
  };
}
