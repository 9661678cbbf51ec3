// Keeps an audit trail of repeated reads without letting them flood it: the first read of a
// target by an actor is recorded, repeats within the window are not (a dashboard reload,
// a pane polling). Time comes from the injected Clock. The memory used is bounded: entries
// older than the window are dropped, and past `maxKeys` the oldest go first; forgetting an
// entry early can only mean one extra row, never a missing one.

import type { Clock } from "../ports.ts";

export interface RepeatFilterOptions {
  /** How long a recorded (actor, target) suppresses repeats. Default one minute. */
  windowMs?: number;
  /** Most (actor, target) pairs remembered at once. Default 10,000. */
  maxKeys?: number;
}

export class AuditRepeatFilter {
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  /** Key -> when it was last recorded; Map order is oldest record first (re-set on record). */
  readonly #recordedAt = new Map<string, number>();

  constructor(clock: Clock, options: RepeatFilterOptions = {}) {
    this.#clock = clock;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#maxKeys = options.maxKeys ?? 10_000;
    if (!(this.#windowMs > 0) || !(this.#maxKeys >= 1)) {
      throw new RangeError("AuditRepeatFilter: windowMs must be > 0 and maxKeys >= 1");
    }
  }

  /**
   * True when this read should get an audit row (and remembers it): the pair was not
   * recorded within the window. A clock that stepped back counts as a new window.
   */
  shouldRecord(actor: string, target: string): boolean {
    const now = this.#clock.now().getTime();
    const key = `${actor}\u0000${target}`;
    const last = this.#recordedAt.get(key);
    if (last !== undefined && now >= last && now - last < this.#windowMs) return false;
    this.#recordedAt.delete(key);
    this.#recordedAt.set(key, now);
    this.#forget(now);
    return true;
  }

  /** Pairs remembered now (for tests of the bound). */
  get size(): number {
    return this.#recordedAt.size;
  }

  #forget(now: number): void {
    for (const [key, at] of this.#recordedAt) {
      const expired = now < at || now - at >= this.#windowMs;
      if (!expired && this.#recordedAt.size <= this.#maxKeys) break;
      this.#recordedAt.delete(key);
    }
  }
}
