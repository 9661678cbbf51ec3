// Audit rows for refusals that anyone can cause, without letting them flood the trail. An
// unauthenticated door (the webhook door) wrote one row per refused request: 2,300 requests in
// 5 s added 2,310 rows (issue 37). Here the first refusal of a source for a reason writes its
// row at once, so the trail shows when a burst began and what it looked like; the ones that
// follow within the minute are only counted, and the count is written as one row when that
// minute is over ("…: 2,299 more in the minute after 09:00:00Z"). So a source costs at most
// two rows a minute per reason, whatever it sends.
//
// The count is written by a timer on the injected clock (one while any minute is open) or,
// whichever comes first, by the next refusal after the minute; close() writes what is still
// counted. Memory is bounded: past `maxKeys` open minutes, the oldest is written out early
// (one extra row, never a lost count).

import type { Logger } from "../logger.ts";
import type { Clock } from "../ports.ts";
import type { NewAuditRow, Store } from "../store/store.ts";
import { isoZ } from "../time.ts";
import { audit, type AuditChannel } from "./audit.ts";

/** A refusal's row: the door it came through is always known. */
export type TalliedRow = NewAuditRow & { channel: AuditChannel };

export interface BurstTallyOptions {
  /** How long a first row stands for its source and reason. Default one minute. */
  windowMs?: number;
  /** Most (source, reason) minutes open at once. Default 10,000. */
  maxKeys?: number;
}

interface OpenBurst {
  startMs: number;
  /** The first row (its action, target, actor and channel are the summary's). */
  first: TalliedRow;
  source: string;
  reason: string;
  /** Refusals counted after the first. */
  more: number;
}

export class AuditBurstTally {
  readonly #store: Pick<Store, "appendAudit">;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  /** Map order is the order bursts opened: the oldest first. */
  readonly #open = new Map<string, OpenBurst>();
  #timer: AbortController | null = null;

  constructor(
    store: Pick<Store, "appendAudit">,
    logger: Logger,
    clock: Clock,
    options: BurstTallyOptions = {},
  ) {
    this.#store = store;
    this.#logger = logger;
    this.#clock = clock;
    this.#windowMs = options.windowMs ?? 60_000;
    this.#maxKeys = options.maxKeys ?? 10_000;
    if (!(this.#windowMs > 0) || !(this.#maxKeys >= 1)) {
      throw new RangeError("AuditBurstTally: windowMs must be > 0 and maxKeys >= 1");
    }
  }

  /**
   * One refusal from `source` for `reason`: `row` is written when it opens a burst (the
   * source added to its detail); otherwise it is counted.
   */
  record(source: string, reason: string, row: TalliedRow): void {
    const now = this.#clock.now().getTime();
    this.#closeExpired(now);
    const key = `${source}\u0000${reason}`;
    const burst = this.#open.get(key);
    if (burst) {
      burst.more++;
      return;
    }
    audit(this.#store, this.#logger, { ...row, detail: `${row.detail} [from ${source}]` });
    this.#open.set(key, { startMs: now, first: row, source, reason, more: 0 });
    while (this.#open.size > this.#maxKeys) this.#write(this.#open.keys().next().value!);
    this.#arm();
  }

  /** Bursts still open (for tests of the bound). */
  get size(): number {
    return this.#open.size;
  }

  /** Writes every count still held and stops the timer. */
  close(): void {
    this.#timer?.abort();
    this.#timer = null;
    for (const key of [...this.#open.keys()]) this.#write(key);
  }

  #closeExpired(now: number): void {
    for (const [key, burst] of this.#open) {
      // A clock that stepped back also ends the minute: the count is never held for long.
      if (now - burst.startMs < this.#windowMs && now >= burst.startMs) break;
      this.#write(key);
    }
  }

  #write(key: string): void {
    const burst = this.#open.get(key)!;
    this.#open.delete(key);
    if (burst.more === 0) return;
    audit(this.#store, this.#logger, {
      action: burst.first.action,
      target: burst.first.target,
      actor: burst.first.actor,
      channel: burst.first.channel,
      detail: `${burst.more} more ${burst.reason} from ${burst.source} in the minute after ` +
        `${isoZ(new Date(burst.startMs))} (counted, not written one by one)`,
    });
  }

  /** One timer while any burst is open: it writes the expired ones, then re-arms. */
  #arm(): void {
    if (this.#timer !== null || this.#open.size === 0) return;
    const timer = new AbortController();
    this.#timer = timer;
    const oldest = this.#open.values().next().value!;
    const wait = Math.max(0, oldest.startMs + this.#windowMs - this.#clock.now().getTime());
    this.#clock.sleep(wait, timer.signal).then(() => {
      if (this.#timer !== timer) return;
      this.#timer = null;
      this.#closeExpired(this.#clock.now().getTime());
      this.#arm();
    }, () => {/* aborted by close() */});
  }
}
