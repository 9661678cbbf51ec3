// The outpost's memory lifecycle job (spec 8): sweep the memory root at start-up and then once
// a day on the injected clock. A sweep that deletes files writes a `memory_sweep` audit row;
// a failing sweep (memory root unusable, index broken) is logged and retried the next day,
// never stopping the service. The loop itself is DailyLoop's.

import { AUDIT, audit } from "../core/audit/audit.ts";
import { errorText, type Logger } from "../core/logger.ts";
import { DAY } from "../core/memory/limits.ts";
import type { SweepReport } from "../core/memory/sweep.ts";
import { type Sweepable, sweepCounts, sweepFailureLine } from "../core/memory/sweep_runner.ts";
import type { Clock } from "../core/ports.ts";
import type { Store } from "../core/store/store.ts";
import { DailyLoop } from "./daily_loop.ts";

/** Audit action of a sweep that deleted files. */
export const MEMORY_SWEEP_ACTION = AUDIT.memorySweep;
export const MEMORY_SWEEP_INTERVAL_MS = DAY;
const DETAIL_PATHS = 20;

export interface MemorySweeperOptions {
  /** Opens (or returns the already open) memory store; may reject. */
  memory: () => Promise<Sweepable>;
  store: Pick<Store, "appendAudit">;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
}

export class MemorySweeper extends DailyLoop {
  readonly #o: MemorySweeperOptions;

  constructor(o: MemorySweeperOptions) {
    super("memory sweeper", o.clock, o.intervalMs ?? MEMORY_SWEEP_INTERVAL_MS);
    this.#o = o;
  }

  protected override async sweepOnce(signal: AbortSignal): Promise<void> {
    try {
      const memory = await this.#o.memory();
      // Stopped while the store was opening: the store may be closing under us.
      if (signal.aborted) return;
      this.#record(memory.sweep());
    } catch (err) {
      this.#log("warn", "memory sweep failed; the outpost goes on and retries tomorrow", {
        error: errorText(err),
      });
    }
  }

  #record(report: SweepReport): void {
    const failure = sweepFailureLine(report);
    if (failure !== null) this.#log("warn", failure, { counts: sweepCounts(report) });
    if (report.deleted.length === 0) return;
    const shown = report.deleted.slice(0, DETAIL_PATHS).join(", ");
    const more = report.deleted.length > DETAIL_PATHS
      ? ` and ${report.deleted.length - DETAIL_PATHS} more`
      : "";
    audit(this.#o.store, this.#o.logger, {
      action: MEMORY_SWEEP_ACTION,
      target: "memory",
      actor: "outpost",
      channel: "outpost",
      detail: `${sweepCounts(report)}; deleted: ${shown}${more}`,
    });
  }

  #log(level: "warn", message: string, data: Record<string, unknown>): void {
    try {
      this.#o.logger.log(level, message, data);
    } catch { /* a broken logger must not stop the loop */ }
  }
}
