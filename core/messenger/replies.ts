// The bot's refusals and help text. Every refusal carries a typed reason (spec 7.4 rule 4),
// shown in brackets at the start of the reply so an operator (and a test) can tell them apart.

import { USAGE } from "./grammar.ts";

export type RefusalReason =
  | "untrusted_room"
  | "usage"
  | "too_long"
  | "verb_disabled"
  | "rate_limited"
  | "no_such_item"
  | "item_closed"
  | "no_such_job"
  | "no_such_workspace"
  | "invalid"
  | "conflict"
  | "capacity"
  | "job_limit";

export class RefusalError extends Error {
  override readonly name = "RefusalError";
  readonly reason: RefusalReason;
  constructor(reason: RefusalReason, detail: string) {
    super(detail);
    this.reason = reason;
  }

  /** The chat reply: "refused [reason]: detail". */
  get reply(): string {
    return `refused [${this.reason}]: ${this.message}`;
  }
}

export const refusal = {
  noSuchItem: (id: number) =>
    new RefusalError("no_such_item", `there is no inbox item ${id}; "list" shows the open ones`),
  itemClosed: (id: number, detail: string) =>
    new RefusalError("item_closed", `${detail}; item ${id} is no longer open`),
  noSuchJob: (id: number) =>
    new RefusalError("no_such_job", `there is no job ${id}; "list jobs" shows them`),
};

export function helpText(): string {
  return [
    "Commands (ids come from `list`):",
    ...Object.values(USAGE).map((u) => `  ${u}`),
    "  <text>  or  N: <text>  answers the most recent open inbox item (or item N)",
    "High-risk approve/reject/revise are held until confirmed on the dashboard.",
  ].join("\n");
}
