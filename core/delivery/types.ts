// Typed events of the delivery seam (spec 6). Emitters sanitize text before building an
// event; adapters (Matrix, push, log) sanitize again for their own surface.

import type { Risk } from "../inbox/risk.ts";

export type DeliveryKind = "inbox_item" | "run_report" | "alert";

/** Why an alert was raised. */
export type AlertKind = "drift" | "needs_human" | "dead_letter" | "schedule_error" | "setup_error";

export type DeliveryPriority = "normal" | "high";

interface EventBase {
  /** One line, sanitized, at most 200 characters. */
  title: string;
  /** Sanitized text; at most 1500 characters. */
  body: string;
  priority: DeliveryPriority;
  /** When the emitter built the event (UTC ISO-Z). */
  at: string;
  /** Chat room the job came from (job meta.room), when it came from chat. */
  room?: string;
}

export interface InboxItemEvent extends EventBase {
  kind: "inbox_item";
  item_id: number;
  job_id: number;
  run_id: number;
  risk: Risk;
}

export interface RunReportEvent extends EventBase {
  kind: "run_report";
  job_id: number;
  run_id: number;
  /** ok, or needs_human (a halt: the chat adapter posts the inbox item instead, spec 6). */
  outcome: "ok" | "needs_human";
  /** Deep link path, /runs/<job>/<run>. */
  link: string;
}

export interface AlertEvent extends EventBase {
  kind: "alert";
  alert: AlertKind;
  job_id?: number;
  run_id?: number;
  item_id?: number;
}

export type DeliveryEvent = InboxItemEvent | RunReportEvent | AlertEvent;

/** A surface events are delivered to. `send` should honour the signal (aborted on timeout). */
export interface DeliveryAdapter {
  readonly name: string;
  send(event: DeliveryEvent, signal: AbortSignal): Promise<void>;
}

export type AdapterOutcome =
  | { adapter: string; ok: true }
  | { adapter: string; ok: false; error: string; timed_out: boolean };
