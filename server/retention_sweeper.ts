// The outpost's history retention job (core/scheduler/retention.ts): sweep at start-up and
// then once a day on the injected clock. A sweep that removed anything (or had to leave a
// file on disk) writes one `retention_sweep` audit row after it, so the row outlives the
// sweep that wrote it; a failing sweep is logged and retried the next day, never stopping
// the service. stop() ends the loop with no timer left behind.

import { AUDIT, audit } from "../core/audit/audit.ts";
import { errorText, type Logger } from "../core/logger.ts";
import type { Clock } from "../core/ports.ts";
import {
  type RetentionPolicy,
  type RetentionReport,
  retentionSummary,
  sweepHistory,
} from "../core/scheduler/retention.ts";
import type { Store } from "../core/store/store.ts";

export const RETENTION_SWEEP_INTERVAL_MS = 86_400_000;
const DETAIL_FILES = 5;

export interface RetentionSweeperOptions {
  store: Pick<Store, "pruneRuns" | "pruneOneShots" | "pruneAudit" | "appendAudit">;
  home: string;
  policy: RetentionPolicy;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
}

export class RetentionSweeper {
  readonly #o: RetentionSweeperOptions;
  #abort: AbortController | null = null;
  #loop: Promise<void> | null = null;
  #count = 0;
  #waiters: { n: number; resolve: () => void }[] = [];

  constructor(o: RetentionSweeperOptions) {
    this.#o = o;
  }

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

  /** Resolves once `n` sweeps have finished (tests wait on this instead of sleeping). */
  swept(n: number): Promise<void> {
    if (this.#count >= n) return Promise.resolve();
    return new Promise((resolve) => this.#waiters.push({ n, resolve }));
  }

  /** Ends the loop: cancels the pending sleep and waits for a sweep in progress. */
  async stop(): Promise<void> {
    this.#abort?.abort(new Error("retention sweeper stopped"));
    await this.#loop;
    this.#loop = null;
    this.#abort = null;
  }

  async #run(signal: AbortSignal): Promise<void> {
    for (;;) {
      await this.#sweepOnce(signal);
      // Parked before anyone hears of the sweep, so a waiter can move the clock at once.
      const nap = this.#o.clock.sleep(this.#o.intervalMs ?? RETENTION_SWEEP_INTERVAL_MS, signal);
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

  async #sweepOnce(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    try {
      const report = await sweepHistory({
        store: this.#o.store,
        home: this.#o.home,
        now: this.#o.clock.now(),
        policy: this.#o.policy,
      });
      this.#record(report);
    } catch (err) {
      this.#log("retention sweep failed; the outpost goes on and retries tomorrow", {
        error: errorText(err),
      });
    }
  }

  #record(report: RetentionReport): void {
    const removed = report.oneShotJobs + report.runs + report.auditRows + report.filesRemoved;
    const kept = report.filesKept;
    if (removed === 0 && kept.length === 0) return;
    let detail = retentionSummary(report);
    if (kept.length > 0) {
      const more = kept.length > DETAIL_FILES ? ` and ${kept.length - DETAIL_FILES} more` : "";
      detail += `; left on disk: ${kept.slice(0, DETAIL_FILES).join(", ")}${more}`;
      this.#log("retention sweep left report files on disk", { files: kept });
    }
    audit(this.#o.store, this.#o.logger, {
      action: AUDIT.retentionSweep,
      target: "history",
      actor: "outpost",
      detail,
    });
  }

  #log(message: string, data: Record<string, unknown>): void {
    try {
      this.#o.logger.log("warn", message, data);
    } catch { /* a broken logger must not stop the loop */ }
  }
}
