// A virtual clock: time moves only when a test calls advance(). Sleepers wake in
// deadline order as time passes them, so schedulers can be tested without real waits.

import type { Clock } from "../../core/ports.ts";

interface Sleeper {
  at: number;
  resolve: () => void;
}

export class FakeClock implements Clock {
  #now: number;
  #sleepers: Sleeper[] = [];

  constructor(start: string | Date = "2026-01-01T00:00:00Z") {
    this.#now = new Date(start).getTime();
  }

  now(): Date {
    return new Date(this.#now);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const sleeper: Sleeper = { at: this.#now + Math.max(0, ms), resolve };
      this.#sleepers.push(sleeper);
      signal?.addEventListener("abort", () => {
        this.#sleepers = this.#sleepers.filter((s) => s !== sleeper);
        reject(signal.reason);
      }, { once: true });
    });
  }

  /** Number of pending sleepers (lets a test wait until a loop is parked). */
  get pending(): number {
    return this.#sleepers.length;
  }

  /** Moves time forward, waking every sleeper whose deadline passes, in order. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      this.#sleepers.sort((a, b) => a.at - b.at);
      const next = this.#sleepers[0];
      if (!next || next.at > target) break;
      this.#sleepers.shift();
      this.#now = Math.max(this.#now, next.at);
      next.resolve();
      // Let the woken task run up to its next await before waking the next one.
      await flushMicrotasks();
    }
    this.#now = target;
    await flushMicrotasks();
  }

  set(iso: string | Date): void {
    this.#now = new Date(iso).getTime();
  }
}

/** Yields to the event loop so resolved promises chains settle. */
export async function flushMicrotasks(rounds = 5): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((r) => setTimeout(r, 0));
}
