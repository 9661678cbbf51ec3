// The outpost's history retention job (core/scheduler/retention.ts): sweep at start-up and
// then once a day on the injected clock. A sweep that removed anything (or had to leave a
// file on disk) writes one `retention_sweep` audit row after it, so the row outlives the
// sweep that wrote it; a failing sweep is logged and retried the next day, never stopping
// the service. The same sweep removes held publications' originals whose inbox item is
// closed or gone (core/publish/held_prune.ts). The loop itself is DailyLoop's.

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
import { pruneHeldOriginals } from "../core/publish/held_prune.ts";
import { DAILY_MS, DailyLoop } from "./daily_loop.ts";

export const RETENTION_SWEEP_INTERVAL_MS = DAILY_MS;
const DETAIL_FILES = 5;

export interface RetentionSweeperOptions {
  store: Pick<
    Store,
    "pruneRuns" | "pruneOneShots" | "pruneAudit" | "appendAudit" | "getInboxItem"
  >;
  home: string;
  policy: RetentionPolicy;
  clock: Clock;
  logger: Logger;
  intervalMs?: number;
}

export class RetentionSweeper extends DailyLoop {
  readonly #o: RetentionSweeperOptions;

  constructor(o: RetentionSweeperOptions) {
    super("retention sweeper", o.clock, o.intervalMs ?? RETENTION_SWEEP_INTERVAL_MS);
    this.#o = o;
  }

  protected override async sweepOnce(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    try {
      const report = await sweepHistory({
        store: this.#o.store,
        home: this.#o.home,
        now: this.#o.clock.now(),
        policy: this.#o.policy,
      });
      this.#record(report);
      // Originals of held publications whose item is gone or closed (a pruned one-shot's
      // items went with it): they hold secrets, so they do not outlive their item.
      const held = await pruneHeldOriginals(this.#o.store, this.#o.home, this.#o.clock.now());
      if (held.removed > 0 || held.failed.length > 0) {
        this.#log("removed held originals whose inbox item is closed or gone", { ...held });
      }
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
      channel: "outpost",
      detail,
    });
  }

  #log(message: string, data: Record<string, unknown>): void {
    try {
      this.#o.logger.log("warn", message, data);
    } catch { /* a broken logger must not stop the loop */ }
  }
}
