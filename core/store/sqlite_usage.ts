// The money queries of the SQLite store: cost, token and run-time totals per job and per
// window, per UTC day and per UTC hour, all read from the run_usage rollup (migration 10) that
// triggers keep as runs are written. A query reads at most hours × jobs rollup rows, never the
// runs, so the totals cost the same at 100,000 runs as at 100.

import type { StatementSync } from "node:sqlite";
import { plain } from "./sqlite_rows.ts";
import type { UsageBucket, UsageTotals } from "./store.ts";

type Prepare = (sql: string) => StatementSync;

const SUMS = `COALESCE(SUM(runs), 0) AS runs, COALESCE(SUM(failed), 0) AS failed,
  COALESCE(SUM(priced_runs), 0) AS priced_runs, COALESCE(SUM(unpriced_runs), 0) AS unpriced_runs,
  COALESCE(SUM(cost_usd), 0) AS cost_usd, COALESCE(SUM(tokens_in), 0) AS tokens_in,
  COALESCE(SUM(tokens_out), 0) AS tokens_out,
  COALESCE(SUM(cache_read_tokens), 0) AS cache_read_tokens,
  COALESCE(SUM(cache_write_tokens), 0) AS cache_write_tokens,
  COALESCE(SUM(duration_ms), 0) AS duration_ms`;

/** The rollup's hour key ("2026-03-02T09") of an ISO-Z instant. */
const hourOf = (iso: string) => iso.slice(0, 13);

/** Totals of runs queued in or after the UTC hour of `since`; one job's, or the outpost's. */
export function usageSince(prepare: Prepare, since: string, jobId?: number): UsageTotals {
  const row = jobId === undefined
    ? prepare(`SELECT ${SUMS} FROM run_usage WHERE hour >= ?`).get(hourOf(since))
    : prepare(`SELECT ${SUMS} FROM run_usage WHERE job_id = ? AND hour >= ?`)
      .get(jobId, hourOf(since));
  return plain<UsageTotals>(row!);
}

/** Totals per job of runs queued in or after the UTC hour of `since` (jobs with runs only). */
export function usageByJob(prepare: Prepare, since: string): Map<number, UsageTotals> {
  const rows = prepare(
    `SELECT job_id, ${SUMS} FROM run_usage WHERE hour >= ? GROUP BY job_id`,
  ).all(hourOf(since));
  const out = new Map<number, UsageTotals>();
  for (const r of rows) {
    const { job_id, ...totals } = plain<UsageTotals & { job_id: number }>(r);
    out.set(job_id, totals);
  }
  return out;
}

/**
 * Totals per UTC day ("2026-03-02") or hour ("2026-03-02T09") since `since`, oldest first;
 * one job's or the outpost's. Buckets without runs are absent.
 */
export function usageBuckets(
  prepare: Prepare,
  unit: "day" | "hour",
  since: string,
  jobId?: number,
): UsageBucket[] {
  const key = unit === "day" ? "substr(hour, 1, 10)" : "hour";
  const where = jobId === undefined ? "hour >= ?" : "job_id = ? AND hour >= ?";
  const args = jobId === undefined ? [hourOf(since)] : [jobId, hourOf(since)];
  return prepare(
    `SELECT ${key} AS bucket, ${SUMS} FROM run_usage WHERE ${where} GROUP BY 1 ORDER BY 1`,
  ).all(...args).map((r) => plain<UsageBucket>(r));
}
