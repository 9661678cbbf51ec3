// Typed inbox errors; the dashboard maps them to statuses in server/http/errors.ts.

/** Bad input to an inbox operation (an unknown push action, a malformed hold). → 400 */
export class InboxInputError extends Error {
  override readonly name = "InboxInputError";
  readonly field: string;
  constructor(field: string, detail: string) {
    super(`${field}: ${detail}`);
    this.field = field;
  }
}

/** high-risk-confirm without a live hold (none, expired, or the item is closed). → 409 */
export class NoLiveHoldError extends Error {
  override readonly name = "NoLiveHoldError";
  readonly id: number;
  readonly reason: "none" | "expired" | "closed";
  constructor(id: number, reason: "none" | "expired" | "closed") {
    const why = reason === "expired"
      ? "its hold has expired"
      : reason === "closed"
      ? "it is no longer open"
      : "it has no hold";
    super(
      `inbox item ${id} cannot be confirmed: ${why}; answer it directly, or repeat the chat ` +
        `command to place a new hold`,
    );
    this.id = id;
    this.reason = reason;
  }
}

/** A one-tap action on a high-risk item (spec 6: the live re-check refuses it). → 403 */
export class HighRiskError extends Error {
  override readonly name = "HighRiskError";
  readonly id: number;
  constructor(id: number) {
    super(
      `inbox item ${id} is high risk; a one-tap action is refused. Open /inbox/${id} and ` +
        `answer it there`,
    );
    this.id = id;
  }
}

/** AGENT_MATRIX_HOLD_TTL is not a usable number of seconds (read once at startup). */
export class HoldConfigError extends Error {
  override readonly name = "HoldConfigError";
  readonly variable: string;
  constructor(variable: string, detail: string) {
    super(`${variable}: ${detail}`);
    this.variable = variable;
  }
}

/**
 * An answer, dismiss, hold or one-tap on a held publication (kind publish_hold), or a
 * release or drop of an item that is not one. Held publications are released or dropped
 * on the dashboard only (core/publish/release.ts). → 409
 */
export class PublishHoldError extends Error {
  override readonly name = "PublishHoldError";
  readonly id: number;
  constructor(id: number, detail: string) {
    super(`inbox item ${id} ${detail}`);
    this.id = id;
  }
}

/** A release whose surface could not send the original (the item stays open). → 502 */
export class PublishFailedError extends Error {
  override readonly name = "PublishFailedError";
  readonly id: number;
  constructor(id: number, detail: string) {
    super(`inbox item ${id} was not released: ${detail}`);
    this.id = id;
  }
}
