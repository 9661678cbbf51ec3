// The browser push delivery adapter (spec 6): registered on the delivery seam beside the log
// and chat adapters, it fans each event out to every stored subscription. Per subscription:
// envelopes that failed before are sent first, then the new one; 404/410 prunes the
// subscription (with an audit row), 5xx/429/network errors keep the envelope for the next
// fan-out, other refusals are logged. At most `concurrency` subscriptions are in flight.
// A dormant lane (no key file) sends nothing; a broken key file fails each send with why.
// Every envelope's text passes the publish gate's secret scanner first (core/publish/gate.ts):
// a held one reaches no browser until a person releases it on the dashboard.

import { AUDIT, audit } from "../audit/audit.ts";
import type { DeliveryAdapter, DeliveryEvent } from "../delivery/types.ts";
import type { Logger } from "../logger.ts";
import type { Clock, Fetch } from "../ports.ts";
import { withDeadline } from "../deadline.ts";
import type { PublishGate } from "../publish/gate.ts";
import type { PushSubscription, Store } from "../store/store.ts";
import type { HostResolver } from "./endpoint_guard.ts";
import { type PushEnvelope, pushEnvelope, pushTag } from "./envelope.ts";
import { type PushOutcome, sendErrorText, sendPush, yieldTurn } from "./push_request.ts";
import { type PushMessage, PushRetryQueue } from "./retry_queue.ts";
import type { VapidState } from "./vapid.ts";

export const PUSH_TTL_SECONDS = 24 * 60 * 60;
export const PUSH_CONCURRENCY = 16;
export const PUSH_RETRY_MAX = 8;
/** How long a released envelope's fan-out may take. */
const RELEASE_TIMEOUT_MS = 30_000;

type Urgency = PushMessage["urgency"];

/** What a held push keeps for its release. */
interface HeldPush {
  envelope: PushEnvelope;
  urgency: Urgency;
}

export interface PushAdapterOptions {
  store: Pick<
    Store,
    "listPushSubscriptions" | "deletePushSubscription" | "recordPushResult" | "appendAudit"
  >;
  /** The VAPID keys as of now (VapidKeyFile.load). */
  keys: () => VapidState;
  fetch: Fetch;
  resolve: HostResolver;
  /** AGENT_PUSH_ALLOW_LOOPBACK=1: http and private or loopback endpoints allowed. */
  allowLoopback: boolean;
  clock: Clock;
  logger: Logger;
  /** The secret scanner every envelope passes before it is sent. */
  gate: PublishGate;
  ttlSeconds?: number;
  concurrency?: number;
  retryMax?: number;
}

/** What one fan-out did, per subscription (returned by fanOut; the seam only needs send). */
export interface FanOutReport {
  delivered: number;
  pruned: number;
  retrying: number;
  refused: number;
}

export class PushAdapter implements DeliveryAdapter {
  readonly name = "push";
  readonly retries: PushRetryQueue;
  readonly #o: PushAdapterOptions;
  readonly #ttlSeconds: number;

  constructor(options: PushAdapterOptions) {
    this.#o = options;
    this.#ttlSeconds = options.ttlSeconds ?? PUSH_TTL_SECONDS;
    this.retries = new PushRetryQueue({
      max: options.retryMax ?? PUSH_RETRY_MAX,
      ttlMs: this.#ttlSeconds * 1000,
    });
    options.gate.register("push", async (payload) => {
      const { envelope, urgency } = payload as HeldPush;
      const report = await withDeadline(
        options.clock,
        RELEASE_TIMEOUT_MS,
        "push release",
        (signal) => this.#fanOutEnvelope(envelope, urgency, signal),
      );
      if (report.delivered === 0 && report.retrying + report.refused > 0) {
        throw new Error(`push: no subscription took it (${report.retrying} kept for later)`);
      }
    });
  }

  /** The seam's entry: fails (for the seam's log and outcome) when any subscription failed. */
  async send(event: DeliveryEvent, signal: AbortSignal): Promise<void> {
    const report = await this.fanOut(event, signal);
    if (report.retrying + report.refused > 0) {
      throw new Error(
        `push: ${report.retrying + report.refused} of ${
          report.delivered + report.pruned + report.retrying + report.refused
        } subscriptions failed (${report.retrying} kept for the next fan-out)`,
      );
    }
  }

  async fanOut(event: DeliveryEvent, signal: AbortSignal): Promise<FanOutReport> {
    const report: FanOutReport = { delivered: 0, pruned: 0, retrying: 0, refused: 0 };
    // The seam starts every adapter in the same turn: step aside first, so reading the
    // subscriptions and encrypting never runs ahead of the chat adapter or the tick.
    await yieldTurn();
    if (this.#o.keys().state === "dormant") return report;
    const envelope = pushEnvelope(event);
    const urgency: Urgency = event.priority === "high" ? "high" : "normal";
    const screened = await this.#o.gate.screen({
      surface: "push",
      where: "the subscribed browsers",
      job_id: "job_id" in event && event.job_id !== undefined ? event.job_id : null,
      run_id: "run_id" in event && event.run_id !== undefined ? event.run_id : null,
      // The event's whole text, not the capped envelope: a secret cut at the 120-character
      // cap would no longer match its rule, yet its visible half would still go out.
      text: `${event.title}\n${event.body}`,
      payload: { envelope, urgency } satisfies HeldPush,
    });
    if (screened.kind === "held") return report; // audited, and an inbox item when it can
    return await this.#fanOutEnvelope(envelope, urgency, signal);
  }

  async #fanOutEnvelope(
    envelope: PushEnvelope,
    urgency: Urgency,
    signal: AbortSignal,
  ): Promise<FanOutReport> {
    const report: FanOutReport = { delivered: 0, pruned: 0, retrying: 0, refused: 0 };
    const loaded = this.#o.keys();
    if (loaded.state === "dormant") return report;
    if (loaded.state === "error") throw new Error(`push lane: ${loaded.detail}`);
    const message: PushMessage = {
      envelope,
      tag: pushTag(envelope),
      urgency,
      at: this.#o.clock.now().getTime(),
    };
    const subs = this.#o.store.listPushSubscriptions();
    this.retries.retain(new Set(subs.map((s) => s.endpoint)));
    let next = 0;
    const worker = async () => {
      while (next < subs.length) {
        const sub = subs[next++]!;
        const result = await this.#deliverTo(sub, message, loaded.keys, signal);
        report[result]++;
      }
    };
    const lanes = Math.min(this.#o.concurrency ?? PUSH_CONCURRENCY, subs.length);
    await Promise.all(Array.from({ length: lanes }, worker));
    return report;
  }

  /** Sends what waits for this subscription, then the new message, stopping at a failure. */
  async #deliverTo(
    sub: PushSubscription,
    message: PushMessage,
    keys: Parameters<typeof sendPush>[2]["keys"],
    signal: AbortSignal,
  ): Promise<keyof FanOutReport> {
    const queue = [...this.retries.take(sub.endpoint, message.at), message];
    const ctx = {
      keys,
      fetch: this.#o.fetch,
      resolve: this.#o.resolve,
      allowLoopback: this.#o.allowLoopback,
      ttlSeconds: this.#ttlSeconds,
      signal,
    };
    let refused = false;
    for (let i = 0; i < queue.length; i++) {
      let outcome: PushOutcome;
      try {
        outcome = await sendPush(sub, queue[i]!, ctx);
      } catch (err) {
        outcome = { result: "retry", status: null, detail: sendErrorText(err, sub.endpoint) };
      }
      if (outcome.result === "delivered") {
        this.#o.store.recordPushResult(sub.endpoint, true);
        continue;
      }
      const host = hostOf(sub.endpoint);
      if (outcome.result === "gone") {
        this.#o.store.deletePushSubscription(sub.endpoint);
        this.retries.drop(sub.endpoint);
        this.#o.logger.log("info", "push subscription pruned", { host, status: outcome.status });
        audit(this.#o.store, this.#o.logger, {
          action: AUDIT.pushUnsubscribe,
          target: `push:${host}`,
          actor: "push-service",
          channel: "outpost",
          detail: `pruned: the push service answered ${outcome.status}`,
        });
        return "pruned";
      }
      this.#o.store.recordPushResult(sub.endpoint, false);
      if (outcome.result === "retry") {
        this.#o.logger.log("warn", "push send failed; retrying at the next fan-out", {
          host,
          status: outcome.status,
          error: outcome.detail,
        });
        this.retries.keep(sub.endpoint, queue.slice(i));
        return "retrying";
      }
      this.#o.logger.log("warn", "push send refused", {
        host,
        status: outcome.status,
        error: outcome.detail,
      });
      refused = true;
    }
    return refused ? "refused" : "delivered";
  }
}

function hostOf(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return "(bad endpoint)";
  }
}
