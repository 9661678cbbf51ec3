// What runs cost: the totals of the usage rollups (migration 10) as text and tables (the job page's
// today / 7 days / 30 days, the jobs list's one line, the outpost's days on /runs). Windows are
// UTC days: "today" starts at 00:00 UTC, "7 days" at 00:00 UTC six days before. A run counts in
// the hour it was queued. Unpriced runs (tokens but no price) are shown as unpriced, never
// folded into the dollar sum as zero.

import type { FC } from "hono/jsx";
import type { UsageBucket, UsageTotals } from "../../core/store/store.ts";
import { count, msText } from "./format.ts";
import { renderedOncePer } from "./rendered_once.ts";

const DAY = 86_400_000;

export interface UsageWindows {
  today: UsageTotals;
  week: UsageTotals;
  month: UsageTotals;
}

/** The UTC days ("2026-03-02") "today", "7 days" and "30 days" start on. */
export function windowStarts(now: Date): { today: string; week: string; month: string } {
  const midnight = Math.floor(now.getTime() / DAY) * DAY;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { today: day(midnight), week: day(midnight - 6 * DAY), month: day(midnight - 29 * DAY) };
}

/** Every prompt and reply token: the uncached prompt, the cache's reads and writes, the reply. */
export function tokenTotal(t: UsageTotals): number {
  return t.tokens_in + t.cache_read_tokens + t.cache_write_tokens + t.tokens_out;
}

/** The hover text that breaks a token total down. */
export function tokenBreakdown(t: UsageTotals): string {
  return `${count(t.tokens_in)} prompt · ${count(t.cache_read_tokens)} cache read · ` +
    `${count(t.cache_write_tokens)} cache write · ${count(t.tokens_out)} reply`;
}

/** "$0.0123" with up to four decimals below a dollar, cents above. */
export function dollars(usd: number): string {
  return usd >= 1 ? `$${usd.toFixed(2)}` : `$${usd.toFixed(4)}`;
}

/**
 * "$1.2345", "$1.2345 + 3 unpriced", "unpriced (3 runs)", or "—" when no run used a model.
 * The unpriced count always shows: a sum over priced runs alone would read as the whole cost.
 */
export function costText(t: UsageTotals): string {
  const unpriced = t.unpriced_runs === 1 ? "1 unpriced run" : `${t.unpriced_runs} unpriced runs`;
  if (t.priced_runs === 0) return t.unpriced_runs === 0 ? "—" : unpriced;
  return t.unpriced_runs === 0 ? dollars(t.cost_usd) : `${dollars(t.cost_usd)} + ${unpriced}`;
}

const CostCell: FC<{ t: UsageTotals; what: string }> = ({ t, what }) => (
  <td
    class="num"
    data-usage={`cost-${what}`}
    data-cost={t.cost_usd}
    data-unpriced={t.unpriced_runs}
  >
    {costText(t)}
  </td>
);

const TokenCell: FC<{ t: UsageTotals; what: string }> = ({ t, what }) => (
  <td class="num" data-usage={`tokens-${what}`} title={tokenBreakdown(t)}>
    {count(tokenTotal(t))}
  </td>
);

/** The job page's (or the outpost's) totals: today, 7 days, 30 days. */
export const UsageTable: FC<{ usage: UsageWindows; label: string }> = ({ usage, label }) => (
  <div class="table-scroll" tabindex={0} role="region" aria-label={`${label}, scrollable`}>
    <table class="usage" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Window</th>
          <th scope="col" class="num">Runs</th>
          <th scope="col" class="num">Cost</th>
          <th scope="col" class="num">Tokens</th>
          <th scope="col" class="num">Run time</th>
        </tr>
      </thead>
      <tbody>
        {([["today", "Today"], ["week", "7 days"], ["month", "30 days"]] as const).map((
          [key, name],
        ) => {
          const t = usage[key];
          return (
            <tr data-window={key}>
              <th scope="row">{name}</th>
              <td class="num">{count(t.runs)}</td>
              <CostCell t={t} what={key} />
              <TokenCell t={t} what={key} />
              <td class="num">{t.duration_ms ? msText(t.duration_ms) : "—"}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  </div>
);

/**
 * The jobs list's one line: what a job cost today, in 7 days and in 30 days. Rendered once
 * per totals object (kept until the store commits, page_data.ts).
 */
const UsageLineOnce = renderedOncePer<UsageWindows>(({ data: usage }) => (
  // One text node: the list renders 50 of these, and /jobs/<id> has the breakdown.
  <div class="row-meta" data-usage="job-line">
    {`cost today ${costText(usage.today)} · 7 d ${costText(usage.week)} · 30 d ${
      costText(usage.month)
    } · 30 d tokens ${count(tokenTotal(usage.month))}`}
  </div>
));

export const UsageLine: FC<{ usage: UsageWindows }> = ({ usage }) => <UsageLineOnce data={usage} />;

/**
 * The outpost per UTC day, newest first; each day links to its runs. Rendered once per rows
 * array (kept until the store commits, history_data.ts).
 */
const DailyUsageOnce = renderedOncePer<UsageBucket[]>(({ data: days }) =>
  days.length === 0
    ? <p class="empty">No runs in the last 30 days.</p>
    : (
      <div class="table-scroll" tabindex={0} role="region" aria-label="Usage per day, scrollable">
        <table class="usage" aria-label="Usage per day (UTC)" id="usage-per-day">
          <thead>
            <tr>
              <th scope="col">Day (UTC)</th>
              <th scope="col" class="num">Runs</th>
              <th scope="col" class="num">Failed</th>
              <th scope="col" class="num">Cost</th>
              <th scope="col" class="num">Tokens</th>
              <th scope="col" class="num">Run time</th>
            </tr>
          </thead>
          <tbody>
            {[...days].reverse().map((d) => (
              <tr data-day={d.bucket}>
                <th scope="row">
                  <a href={`/runs?from=${d.bucket}&to=${d.bucket}`}>{d.bucket}</a>
                </th>
                <td class="num">{count(d.runs)}</td>
                <td class="num">{count(d.failed)}</td>
                <CostCell t={d} what="day" />
                <TokenCell t={d} what="day" />
                <td class="num">{d.duration_ms ? msText(d.duration_ms) : "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    )
);

export const DailyUsageTable: FC<{ days: UsageBucket[] }> = ({ days }) => (
  <DailyUsageOnce data={days} />
);
