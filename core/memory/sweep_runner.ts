// Running a lifecycle sweep where nothing may fail because of it: `agent` start-up sweeps once
// and the outpost daily (server/memory_sweeper.ts). A sweep is housekeeping, so every failure
// becomes a warning line and the caller goes on.

import type { SweepOptions, SweepReport } from "./sweep.ts";

/** What a sweep needs from the store (MemoryStore satisfies it). */
export interface Sweepable {
  sweep(opts?: SweepOptions): SweepReport;
}

/** "deleted 2, could not delete 1, stale 3" (audit details and logs). */
export function sweepCounts(report: SweepReport): string {
  return `deleted ${report.deleted.length}, could not delete ${report.failed.length}, ` +
    `stale ${report.stale.length}`;
}

/** One warning line for the files a sweep could not delete, or null when there were none. */
export function sweepFailureLine(report: SweepReport): string | null {
  const [first, ...rest] = report.failed;
  if (!first) return null;
  const n = report.failed.length;
  const more = rest.length > 0 ? ` (and ${rest.length} more)` : "";
  return `memory sweep could not delete ${n} expired file${n === 1 ? "" : "s"}: ` +
    `${first.path}: ${first.error}${more}; move or delete ${n === 1 ? "it" : "them"} by hand`;
}

/**
 * The start-up sweep of one `agent` run. Never throws: a sweep that throws, or files it could
 * not delete, become one `warn` line each and the run goes on. Returns the report, or null
 * when the sweep threw. Pass `refresh: false` right after openMemory (it has just reconciled).
 */
export function sweepAtStartup(
  memory: Sweepable,
  warn: (line: string) => void,
  opts: SweepOptions = {},
): SweepReport | null {
  let report: SweepReport;
  try {
    report = memory.sweep(opts);
  } catch (err) {
    safely(
      warn,
      `memory sweep failed: ${oneLine(err instanceof Error ? err.message : String(err))}; ` +
        "expired memory files stay until a later sweep",
    );
    return null;
  }
  const line = sweepFailureLine(report);
  if (line !== null) safely(warn, oneLine(line));
  return report;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim();
}

function safely(warn: (line: string) => void, line: string): void {
  try {
    warn(line);
  } catch { /* a closed stderr must not fail the run either */ }
}
