// The landing page's one line at the top: what is running now, what failed today, what waits
// for the operator and what today cost, each a link to where it is dealt with. "Today" is the
// UTC day, as in the usage totals (usage.tsx).

import type { FC } from "hono/jsx";
import type { UsageTotals } from "../../core/store/store.ts";
import { count } from "./format.ts";
import { costText } from "./usage.tsx";

export interface SummaryData {
  running: number;
  /** Today's runs that ended error, killed or lost. */
  failedToday: number;
  openInbox: number;
  today: UsageTotals;
  /** Midnight UTC today as "2026-03-02", for the /runs link of today's failures. */
  day: string;
}

export const SummaryLine: FC<{ data: SummaryData }> = ({ data }) => (
  <p class="summary-line" id="summary-line">
    <a href="/runs?status=running" data-summary="running">
      <strong class="num">{count(data.running)}</strong> running now
    </a>
    <a
      href={`/runs?status=error&from=${data.day}`}
      data-summary="failed"
      class={data.failedToday ? "summary-bad" : undefined}
    >
      <strong class="num">{count(data.failedToday)}</strong> failed today
    </a>
    <a
      href="/#card-inbox"
      data-summary="inbox"
      class={data.openInbox ? "summary-attn" : undefined}
    >
      <strong class="num">{count(data.openInbox)}</strong> waiting for you
    </a>
    <a href="/runs#card-usage" data-summary="spent">
      <strong class="num">{costText(data.today)}</strong> spent today
    </a>
  </p>
);
