// The push wire envelope (spec 6): what an installed service worker receives for each
// delivery event. Only kinds, integers and capped text ride the wire, never a URL: the
// worker builds its tap targets from the integers itself, and links inside the text are
// neutralized (core/delivery/links.ts: hxxps://host[.]example). The envelope only ever gains
// fields (installed workers update lazily), and inbox events stay type "inbox".

import { neutralizeLinks } from "../delivery/links.ts";
import { sanitizeText } from "../delivery/sanitize.ts";
import type { DeliveryEvent } from "../delivery/types.ts";

export const PUSH_TITLE_MAX = 200;
export const PUSH_BODY_MAX = 120;

export interface PushAction {
  action: "approve" | "dismiss";
  title: "Approve" | "Dismiss";
}

export type PushEnvelope =
  | { type: "inbox"; id: number; title: string; body: string; actions?: PushAction[] }
  | { type: "run_report"; job: number; run: number; title: string; body: string }
  | { type: "alert"; title: string; body: string };

/** The one-tap buttons, offered only for medium-risk inbox items. */
export const INBOX_ACTIONS: readonly PushAction[] = Object.freeze([
  { action: "approve", title: "Approve" },
  { action: "dismiss", title: "Dismiss" },
]);

/** The notification tag (and the push Topic header): one notification per item or run. */
export function pushTag(envelope: PushEnvelope): string {
  switch (envelope.type) {
    case "inbox":
      return `inbox-${envelope.id}`;
    case "run_report":
      return `run-${envelope.job}-${envelope.run}`;
    case "alert":
      return "alert";
  }
}

function title(text: string): string {
  return sanitizeText(neutralizeLinks(text), { max: PUSH_TITLE_MAX, singleLine: true });
}

function body(text: string): string {
  // A lock screen shows a line or two: newlines become spaces so the cap is all content.
  return sanitizeText(neutralizeLinks(text), { max: PUSH_BODY_MAX, singleLine: true });
}

/** Builds the envelope of one event (text re-sanitized and capped for this surface). */
export function pushEnvelope(event: DeliveryEvent): PushEnvelope {
  switch (event.kind) {
    case "inbox_item": {
      const base = {
        type: "inbox" as const,
        id: event.item_id,
        title: title(event.title),
        body: body(event.body),
      };
      return event.risk === "medium"
        ? { ...base, actions: INBOX_ACTIONS.map((a) => ({ ...a })) }
        : base;
    }
    case "run_report":
      return {
        type: "run_report",
        job: event.job_id,
        run: event.run_id,
        title: title(event.title),
        body: body(event.body),
      };
    case "alert":
      return { type: "alert", title: title(event.title), body: body(event.body) };
  }
}
