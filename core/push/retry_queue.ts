// Envelopes a push service did not take (5xx, 429, network error, timeout), kept per
// subscription endpoint and sent again, oldest first, at that endpoint's next fan-out
// (spec 3.3). In memory only: a restart forgets them. Bounded: a newer envelope with the
// same tag replaces an older one (the notification would be replaced anyway), at most
// `max` per endpoint are kept (oldest dropped), and anything older than the push TTL is
// dropped, since the push service would have discarded it by then.

import type { PushEnvelope } from "./envelope.ts";

export interface PushMessage {
  envelope: PushEnvelope;
  tag: string;
  urgency: "normal" | "high";
  /** When the event was first sent (epoch ms, on the injected clock). */
  at: number;
}

export class PushRetryQueue {
  readonly #max: number;
  readonly #ttlMs: number;
  readonly #byEndpoint = new Map<string, PushMessage[]>();

  constructor(options: { max: number; ttlMs: number }) {
    this.#max = options.max;
    this.#ttlMs = options.ttlMs;
  }

  /** Removes and returns the endpoint's waiting messages that are still fresh, oldest first. */
  take(endpoint: string, now: number): PushMessage[] {
    const list = this.#byEndpoint.get(endpoint) ?? [];
    this.#byEndpoint.delete(endpoint);
    return list.filter((m) => now - m.at < this.#ttlMs);
  }

  /** Keeps messages for the endpoint's next fan-out (same tag: the newer one wins). */
  keep(endpoint: string, messages: PushMessage[]): void {
    if (messages.length === 0) return;
    let list = this.#byEndpoint.get(endpoint) ?? [];
    for (const m of messages) list = [...list.filter((old) => old.tag !== m.tag), m];
    this.#byEndpoint.set(endpoint, list.slice(-this.#max));
  }

  /** Forgets endpoints that are no longer subscribed (pruned or unsubscribed). */
  retain(endpoints: Set<string>): void {
    for (const e of [...this.#byEndpoint.keys()]) if (!endpoints.has(e)) this.#byEndpoint.delete(e);
  }

  drop(endpoint: string): void {
    this.#byEndpoint.delete(endpoint);
  }

  /** Waiting messages for one endpoint, or in all (tests, status). */
  size(endpoint?: string): number {
    if (endpoint !== undefined) return this.#byEndpoint.get(endpoint)?.length ?? 0;
    let n = 0;
    for (const list of this.#byEndpoint.values()) n += list.length;
    return n;
  }
}
