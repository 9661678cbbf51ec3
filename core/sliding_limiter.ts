// Sliding one-minute windows: at most `limit` hits a minute per key. Used by the chat gate
// (core/messenger/gate.ts: per sender and per target, spec 8) and the webhook door (per
// source address, server/routes/webhooks.ts). Time comes from the injected clock; memory
// stays bounded because empty windows are dropped and the number of keys is capped (oldest
// dropped first).

import type { Clock } from "./ports.ts";

export const WINDOW_MS = 60_000;
const MAX_KEYS = 10_000;

export class SlidingLimiter {
  readonly #hits = new Map<string, number[]>();
  readonly #clock: Clock;
  readonly #limit: number;

  constructor(clock: Clock, limit: number) {
    this.#clock = clock;
    this.#limit = limit;
  }

  /**
   * Records a hit for `key` when it fits; otherwise returns how many ms until it would.
   * A refused hit is not recorded, so a flood does not extend its own ban.
   */
  take(key: string): { ok: true } | { ok: false; retryInMs: number } {
    const now = this.#clock.now().getTime();
    const since = now - WINDOW_MS;
    const hits = (this.#hits.get(key) ?? []).filter((t) => t > since);
    if (hits.length >= this.#limit) {
      this.#hits.set(key, hits);
      return { ok: false, retryInMs: hits[0]! + WINDOW_MS - now };
    }
    hits.push(now);
    this.#hits.delete(key); // re-insert: Map order is the eviction order
    this.#hits.set(key, hits);
    if (this.#hits.size > MAX_KEYS) this.#sweep(since);
    return { ok: true };
  }

  get size(): number {
    return this.#hits.size;
  }

  #sweep(since: number): void {
    for (const [key, hits] of this.#hits) {
      if (hits.every((t) => t <= since)) this.#hits.delete(key);
    }
    while (this.#hits.size > MAX_KEYS) {
      const oldest = this.#hits.keys().next().value as string;
      this.#hits.delete(oldest);
    }
  }
}
