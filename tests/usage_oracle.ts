// The usage totals of a list of runs computed the slow way, one run at a time: what the
// store's rollups (core/store/sqlite_usage.ts) must report for the same runs. Shared by the
// rollup's unit tests and the dashboard's budget test, so both check against one oracle.

import type { Run, UsageTotals } from "../core/store/store.ts";

/** Statuses the totals count as failed. */
const FAILED = ["error", "killed", "lost"];

export function sumOfRuns(runs: readonly Run[]): UsageTotals {
  const t: UsageTotals = {
    runs: 0,
    failed: 0,
    priced_runs: 0,
    unpriced_runs: 0,
    cost_usd: 0,
    tokens_in: 0,
    tokens_out: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    duration_ms: 0,
  };
  for (const r of runs) {
    t.runs++;
    if (FAILED.includes(r.status)) t.failed++;
    if (r.cost_usd !== null) t.priced_runs++;
    else if ((r.tokens_in ?? 0) + (r.tokens_out ?? 0) > 0) t.unpriced_runs++;
    t.cost_usd += r.cost_usd ?? 0;
    t.tokens_in += r.tokens_in ?? 0;
    t.tokens_out += r.tokens_out ?? 0;
    t.cache_read_tokens += r.cache_read_tokens ?? 0;
    t.cache_write_tokens += r.cache_write_tokens ?? 0;
    t.duration_ms += r.duration_ms ?? 0;
  }
  return t;
}
