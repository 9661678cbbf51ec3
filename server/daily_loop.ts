// The loop behind the outpost's daily housekeeping (memory lifecycle, history retention): run
// once at start-up, then every interval on the injected clock, until stop(). One sweep's
// failure is the sweeper's to log; the loop itself never stops the service and leaves no timer
// behind. Tests wait on swept(n) instead of sleeping.

import type { Clock } from "../core/ports.ts";

export const DAILY_MS = 86_400_000;

export abstract class DailyLoop {
  readonly #clock: Pick<Clock, "sleep">;
  readonly #interval: number;
  readonly #name: string;
  #abort: AbortController | null = null;
  #loop: Promise<void> | null = null;
  #count = 0;
  #waiters: { n: number; resolve: () => void }[] = [];

  constructor(
    name: string,
    clock: Pick<Clock, "sleep">,
    intervalMs = DAILY_MS,
  ) {
    this.#name = name;
    this.#clock = clock;
    this.#interval = intervalMs;
  }

  /** One sweep; must not throw (log instead). `signal` aborts when stop() is called. */
  protected abstract sweepOnce(signal: AbortSignal): Promise<void>;

  /** Sweeps now, then every interval until stop(). A second call while running is a no-op. */
  start(): void {
    if (this.#loop) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#loop = this.#run(abort.signal);
  }

  /** Sweeps finished so far (successful or not). */
  get count(): number {
    return this.#count;
  }

  /** Resolves once `n` sweeps have finished. */
  swept(n: number): Promise<void> {
    if (this.#count >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }

  /** Ends the loop: cancels the pending sleep and waits for a sweep in progress. */
  async stop(): Promise<void> {
    this.#abort?.abort(new Error(`${this.#name} stopped`));
    await this.#loop;
    this.#loop = null;
    this.#abort = null;
  }

  async #run(signal: AbortSignal): Promise<void> {
    for (;;) {
      await this.sweepOnce(signal);
      // Parked before anyone hears of the sweep, so a waiter can move the clock at once.
      const nap = this.#clock.sleep(this.#interval, signal);
      this.#count++;
      const ready = this.#waiters.filter((w) => w.n <= this.#count);
      this.#waiters = this.#waiters.filter((w) => w.n > this.#count);
      for (const w of ready) w.resolve();
      try {
        await nap;
      } catch {
        return; // stopped
      }
    }
  }
}
