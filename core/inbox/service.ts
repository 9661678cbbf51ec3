// The inbox service (spec 3.2): answer, dismiss, holds, high-risk confirm and the push
// one-tap action, shared by every surface (dashboard routes now, the chat bot and push
// worker later) so each applies the same rules and writes the same audit rows.
//
// - answer (any surface): the item becomes answered, any hold is cleared, and the halted
//   run resumes: a new run of the job continues the saved session with the answer
//   (Scheduler.resumeFromInbox).
// - dismiss: the item becomes dismissed, any hold is cleared, nothing resumes.
// - hold: a high-risk chat verb parks its canonical answer (replace semantics, TTL).
// - highRiskConfirm: applies a live hold through the same answer + resume composition
//   (via dashboard-high-risk-confirm) and hands the room back for the reply.
// - pushAction: re-classifies the live item; only medium risk may be answered by a tap, with
//   the canonical text "approved" or "dismissed" (both answer and resume; see
//   docs/dashboard-api.md).
// - held publications (kind publish_hold, core/publish/gate.ts) refuse all of the above:
//   they are released or dropped on the dashboard (core/publish/release.ts), which closes
//   them through settlePublishHold.

import { AUDIT, audit, type AuditChannel } from "../audit/audit.ts";
import { errorText, type Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import { isoZ } from "../time.ts";
import { InboxStateError, NotFoundError } from "../store/errors.ts";
import type { InboxItem, InboxState, ListOptions, Run, Store } from "../store/store.ts";
import { isPublishHold } from "../publish/gate.ts";
import { HighRiskError, InboxInputError, NoLiveHoldError, PublishHoldError } from "./errors.ts";
import { type Hold, type LiveHold, liveHold, parseHold, validateHold } from "./hold.ts";
import { classifyRisk, type Risk } from "./risk.ts";

/** Answers an item and queues the resume run (the Scheduler implements it). */
export interface Resumer {
  resumeFromInbox(
    itemId: number,
    answer: string,
    via: string,
  ): { item: InboxItem; run: Run | null };
}

/** An item as the surfaces show it: risk from the live classifier, the hold only if live. */
export type InboxView = Omit<InboxItem, "held_json"> & { risk: Risk; hold: LiveHold | null };

export interface InboxChange {
  change: "answered" | "dismissed" | "held";
  item: InboxItem;
  /** The resume run an answer queued (null when the halted run left no session). */
  run: Run | null;
}

export interface HoldConfirmation {
  item: InboxItem;
  run: Run | null;
  hold: Hold;
  room: string;
}

export interface InboxServiceOptions {
  store: Store;
  clock: Clock;
  logger: Logger;
  resumer: Resumer;
  /** Hold lifetime in ms (holdTtlMsFrom(env)). */
  holdTtlMs: number;
}

/**
 * Who acted and through which surface. `actor` and `channel` (the door) land in the audit
 * row; `via` is what the item records as answered via.
 */
export interface Acting {
  actor: string;
  via: string;
  channel: AuditChannel;
}

export const VIA_HIGH_RISK_CONFIRM = "dashboard-high-risk-confirm";
export const VIA_PUSH_ACTION = "push-action";

export type PushAction = "approve" | "dismiss";

export class InboxService {
  readonly holdTtlMs: number;
  readonly #o: InboxServiceOptions;
  readonly #listeners = new Set<(change: InboxChange) => void>();
  #onConfirmed: ((c: HoldConfirmation) => void | Promise<void>) | null = null;

  constructor(options: InboxServiceOptions) {
    this.#o = options;
    this.holdTtlMs = options.holdTtlMs;
  }

  // ---- reading ----

  /** Throws NotFoundError. */
  get(id: number): InboxView {
    return this.view(this.#item(id));
  }

  list(options: ListOptions & { state?: InboxState } = {}): InboxView[] {
    return this.#o.store.listInbox(options).map((item) => this.view(item));
  }

  view(item: InboxItem): InboxView {
    const { held_json, ...rest } = item;
    return {
      ...rest,
      risk: classifyRisk(item.questions),
      hold: item.state === "open" ? liveHold(held_json, this.#o.clock.now(), this.holdTtlMs) : null,
    };
  }

  /** The item's live hold, or null (none, expired, malformed or closed). */
  liveHold(item: InboxItem): LiveHold | null {
    return item.state === "open"
      ? liveHold(item.held_json, this.#o.clock.now(), this.holdTtlMs)
      : null;
  }

  // ---- acting ----

  /**
   * Answers an open item (clearing any hold) and resumes its halted run. `action` names the
   * audit row (default "answer"). Throws NotFoundError, InboxStateError, JobValidationError.
   */
  answer(
    id: number,
    text: string,
    acting: Acting,
    action: string = AUDIT.answer,
  ): { item: InboxItem; run: Run | null } {
    const before = this.#plainItem(id);
    if (before.state !== "open") throw new InboxStateError(id, before.state, "answered");
    const { item, run } = this.#o.resumer.resumeFromInbox(id, text, acting.via);
    this.#audit(action, item, acting, run ? `resume run ${run.id}` : "no session to resume");
    this.#emit({ change: "answered", item, run });
    return { item, run };
  }

  /** Dismisses an open item (clearing any hold); nothing resumes. */
  dismiss(id: number, acting: Acting, action: string = AUDIT.dismiss): InboxItem {
    this.#plainItem(id);
    const item = this.#o.store.dismissInbox(id, acting.via);
    this.#audit(action, item, acting, "no resume");
    this.#emit({ change: "dismissed", item, run: null });
    return item;
  }

  /** Places a hold on an open item (replace semantics). Throws InboxStateError, InboxInputError. */
  hold(id: number, request: Omit<Hold, "held_at">, actor: string): InboxItem {
    this.#plainItem(id);
    const clean = validateHold(request);
    const hold: Hold = { ...clean, held_at: isoZ(this.#o.clock.now()) };
    const item = this.#o.store.setHold(id, JSON.stringify(hold));
    this.#audit(
      AUDIT.highRiskHold,
      item,
      { actor, via: "chat", channel: "chat" },
      `${hold.verb} held for confirmation`,
    );
    this.#emit({ change: "held", item, run: null });
    return item;
  }

  /**
   * Applies the item's live hold: answers with the held text via
   * dashboard-high-risk-confirm (resuming the run), writes a high_risk_confirm row and
   * tells the confirmation hook (the chat bot replies in `room`).
   * Throws NotFoundError or NoLiveHoldError.
   */
  highRiskConfirm(id: number, actor: string): HoldConfirmation {
    const item = this.#item(id);
    if (item.state !== "open") throw new NoLiveHoldError(id, "closed");
    const hold = this.liveHold(item);
    if (!hold) throw new NoLiveHoldError(id, parseHold(item.held_json) ? "expired" : "none");
    const acting: Acting = { actor, via: VIA_HIGH_RISK_CONFIRM, channel: "dashboard" };
    const done = this.answer(id, hold.answer, acting, AUDIT.highRiskConfirm);
    const { expires_at: _, ...plain } = hold;
    const confirmation: HoldConfirmation = { ...done, hold: plain, room: hold.room };
    this.#notifyConfirmed(confirmation);
    return confirmation;
  }

  /**
   * The push one-tap: approve answers "approved", dismiss answers "dismissed" (both via
   * push-action, both resume). Throws InboxInputError (bad action), NotFoundError,
   * InboxStateError (closed → 409) or HighRiskError (→ 403).
   */
  pushAction(id: number, action: unknown, actor: string): { item: InboxItem; run: Run | null } {
    if (action !== "approve" && action !== "dismiss") {
      throw new InboxInputError(
        "action",
        `expected "approve" or "dismiss", got ${JSON.stringify(action)}`,
      );
    }
    const item = this.#plainItem(id);
    if (item.state !== "open") throw new InboxStateError(id, item.state, "acted on");
    if (classifyRisk(item.questions) !== "medium") throw new HighRiskError(id);
    const text = action === "approve" ? "approved" : "dismissed";
    const auditAction = action === "approve" ? AUDIT.pushApprove : AUDIT.pushDismiss;
    return this.answer(id, text, { actor, via: VIA_PUSH_ACTION, channel: "push" }, auditAction);
  }

  /**
   * Closes a held publication: "released" answers it (nothing resumes: the run had ended),
   * "dropped" dismisses it. Only core/publish/release.ts calls this, after it has sent or
   * discarded the original. Throws NotFoundError, PublishHoldError, InboxStateError.
   */
  settlePublishHold(
    id: number,
    outcome: "released" | "dropped",
    acting: Acting,
    action: string,
  ): InboxItem {
    const before = this.#item(id);
    if (!isPublishHold(before)) throw new PublishHoldError(id, "is not a held publication");
    const item = outcome === "released"
      ? this.#o.store.answerInbox(id, "released", acting.via)
      : this.#o.store.dismissInbox(id, acting.via);
    this.#audit(action, item, acting, outcome);
    this.#emit({ change: outcome === "released" ? "answered" : "dismissed", item, run: null });
    return item;
  }

  // ---- hooks ----

  /** Listens to every change (live pages). Returns the unsubscribe function. */
  on(listener: (change: InboxChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The chat bot registers here to reply in the hold's room after a confirm. */
  setHoldConfirmedHook(hook: ((c: HoldConfirmation) => void | Promise<void>) | null): void {
    this.#onConfirmed = hook;
  }

  // ---- plumbing ----

  #item(id: number): InboxItem {
    const item = this.#o.store.getInboxItem(id);
    if (!item) throw new NotFoundError("inbox item", id);
    return item;
  }

  /** The item, unless it is a held publication (those only release or drop). */
  #plainItem(id: number): InboxItem {
    const item = this.#item(id);
    if (isPublishHold(item) && item.state === "open") {
      throw new PublishHoldError(
        id,
        `is a held publication: release it or drop it on the dashboard (/inbox/${id})`,
      );
    }
    return item;
  }

  #audit(action: string, item: InboxItem, acting: Acting, detail: string): void {
    audit(this.#o.store, this.#o.logger, {
      action,
      target: `inbox:${item.id}`,
      actor: acting.actor,
      channel: acting.channel,
      detail: `via ${acting.via}; job ${item.job_id} run ${item.run_id}; ${detail}`,
    });
  }

  #emit(change: InboxChange): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(change);
      } catch (err) {
        this.#o.logger.log("warn", "inbox listener threw", { error: errorText(err) });
      }
    }
  }

  #notifyConfirmed(c: HoldConfirmation): void {
    const hook = this.#onConfirmed;
    if (!hook) return;
    // The reply is best effort: the answer already happened and must not be undone by it.
    Promise.resolve()
      .then(() => hook(c))
      .catch((err) =>
        this.#o.logger.log("warn", "hold confirmation reply failed", {
          item_id: c.item.id,
          room: c.room,
          error: errorText(err),
        })
      );
  }
}
