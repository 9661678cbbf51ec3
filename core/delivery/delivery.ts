// delivery.send: fans one event out to every registered adapter. Each send runs on its own
// with a timeout, so an adapter that throws or hangs never blocks or fails another.

import type { Clock } from "../ports.ts";
import { DeadlineError, withDeadline } from "../deadline.ts";
import { errorText, type Logger } from "../logger.ts";
import { sanitizeBody, sanitizeTitle } from "./sanitize.ts";
import type { AdapterOutcome, DeliveryAdapter, DeliveryEvent } from "./types.ts";

export const DEFAULT_SEND_TIMEOUT_MS = 10_000;

export interface DeliveryOptions {
  clock: Clock;
  logger: Logger;
  /** Per-adapter, per-event limit; the adapter's signal is aborted when it passes. */
  timeoutMs?: number;
}

export class Delivery {
  readonly #adapters: DeliveryAdapter[] = [];
  readonly #pending = new Set<Promise<unknown>>();
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #timeoutMs: number;

  constructor(options: DeliveryOptions) {
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_SEND_TIMEOUT_MS;
  }

  /** Adds an adapter; the returned function removes it again. */
  register(adapter: DeliveryAdapter): () => void {
    this.#adapters.push(adapter);
    return () => {
      const i = this.#adapters.indexOf(adapter);
      if (i >= 0) this.#adapters.splice(i, 1);
    };
  }

  get adapterNames(): string[] {
    return this.#adapters.map((a) => a.name);
  }

  /**
   * Sends to every adapter at once and resolves when each has finished, failed or timed
   * out. Never rejects; failures are logged and reported per adapter.
   */
  send(event: DeliveryEvent): Promise<AdapterOutcome[]> {
    // Re-sanitize at the seam: an emitter that forgot cannot leak raw text to a surface.
    const clean = { ...event, title: sanitizeTitle(event.title), body: sanitizeBody(event.body) };
    const all = Promise.all(this.#adapters.map((a) => this.#sendOne(a, clean)));
    this.#pending.add(all);
    all.finally(() => this.#pending.delete(all));
    return all;
  }

  /** Resolves once every send started so far has settled (shutdown and tests). */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending]);
  }

  async #sendOne(adapter: DeliveryAdapter, event: DeliveryEvent): Promise<AdapterOutcome> {
    try {
      await withDeadline(
        this.#clock,
        this.#timeoutMs,
        `adapter ${adapter.name}`,
        (signal) => adapter.send(event, signal),
      );
      return { adapter: adapter.name, ok: true };
    } catch (err) {
      const timedOut = err instanceof DeadlineError;
      this.#logger.log("warn", "delivery adapter failed", {
        adapter: adapter.name,
        kind: event.kind,
        error: errorText(err),
        timed_out: timedOut,
      });
      return { adapter: adapter.name, ok: false, error: errorText(err), timed_out: timedOut };
    }
  }
}
