// Server-rendered SVG charts of the /runs page: runs per hour stacked by status, and tokens
// per hour stacked by class, over the last 24 hours or 7 days. No charting library and no
// script: bars are <rect>s coloured by CSS classes (the CSP forbids inline styles), each
// with a <title> for the hover text, and the numbers are also in a visually hidden table.

import type { FC } from "hono/jsx";
import type { HourCount } from "../../core/store/store.ts";
import { count } from "./format.ts";
import type { ChartSpan } from "./history_query.ts";

const HOUR = 3_600_000;

/** Status groups the runs chart stacks, bottom first. */
const RUN_GROUPS: { key: string; label: string; statuses: string[] }[] = [
  { key: "ok", label: "ok", statuses: ["ok"] },
  { key: "error", label: "error", statuses: ["error", "killed", "lost"] },
  { key: "needs_human", label: "needs human", statuses: ["needs_human"] },
  { key: "skipped", label: "skipped", statuses: ["skipped", "skipped_drift", "cancelled"] },
  { key: "running", label: "queued / running", statuses: ["queued", "running"] },
];
const TOKEN_GROUPS = [
  { key: "scheduled", label: "scheduled", statuses: ["scheduled"] },
  { key: "api", label: "api", statuses: ["api"] },
];

export interface ChartData {
  span: ChartSpan;
  /** UTC hour keys ("2026-03-02T09"), oldest first. */
  hours: string[];
  runs: HourCount[];
  tokens: HourCount[];
}

/** The hour keys a span covers, ending with the current hour. */
export function spanHours(now: Date, span: ChartSpan): string[] {
  const n = span === "7d" ? 168 : 24;
  const last = Math.floor(now.getTime() / HOUR) * HOUR;
  return Array.from(
    { length: n },
    (_, i) => new Date(last - (n - 1 - i) * HOUR).toISOString().slice(0, 13),
  );
}

/** Where a span's window starts (the first hour's start), as ISO-Z. */
export function spanStart(now: Date, span: ChartSpan): string {
  return `${spanHours(now, span)[0]}:00:00Z`;
}

interface Series {
  key: string;
  label: string;
  values: number[];
}

function stack(hours: string[], rows: HourCount[], groups: typeof RUN_GROUPS): Series[] {
  const at = new Map(hours.map((h, i) => [h, i]));
  return groups.map((g) => {
    const values = hours.map(() => 0);
    for (const r of rows) {
      const i = at.get(r.hour);
      if (i !== undefined && g.statuses.includes(r.key)) values[i]! += r.n;
    }
    return { key: g.key, label: g.label, values };
  });
}

const W = 720;
const H = 140;
const PAD_LEFT = 44;
const PAD_BOTTOM = 18;

const BarChart: FC<
  { id: string; title: string; unit: string; hours: string[]; series: Series[]; span: ChartSpan }
> = (p) => {
  const totals = p.hours.map((_, i) => p.series.reduce((s, x) => s + x.values[i]!, 0));
  const max = Math.max(1, ...totals);
  const plotW = W - PAD_LEFT;
  const plotH = H - PAD_BOTTOM;
  const barW = plotW / p.hours.length;
  const gap = barW > 6 ? 1 : 0;
  const labelEvery = p.span === "7d" ? 24 : 6;
  const sum = totals.reduce((a, b) => a + b, 0);
  return (
    <figure class="chart" id={p.id} data-total={sum}>
      <figcaption>
        <span class="chart-title">{p.title}</span>
        <span class="legend">
          {p.series.map((s) => (
            <span class="legend-item">
              <span class={`swatch fill-${s.key}`} aria-hidden="true"></span>
              {s.label}
            </span>
          ))}
        </span>
      </figcaption>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${p.title}: ${count(sum)} ${p.unit} in all`}
      >
        <line class="axis" x1={PAD_LEFT} y1={plotH} x2={W} y2={plotH} />
        <text class="tick" x={PAD_LEFT - 4} y={10} text-anchor="end">{count(max)}</text>
        <text class="tick" x={PAD_LEFT - 4} y={plotH} text-anchor="end">0</text>
        {p.hours.map((hour, i) => {
          let y = plotH;
          const x = PAD_LEFT + i * barW;
          const rects = p.series.map((s) => {
            const v = s.values[i]!;
            if (v === 0) return null;
            const h = (v / max) * (plotH - 4);
            y -= h;
            return (
              <rect
                class={`fill-${s.key}`}
                x={x + gap / 2}
                y={y}
                width={Math.max(barW - gap, 0.5)}
                height={h}
              >
                <title>
                  {`${hour.replace("T", " ")}:00 UTC · ${s.label}: ${count(v)} ${p.unit}`}
                </title>
              </rect>
            );
          });
          const label = i % labelEvery === 0
            ? (
              <text class="tick" x={x} y={H - 4}>
                {p.span === "7d" ? hour.slice(5, 10) : `${hour.slice(11, 13)}:00`}
              </text>
            )
            : null;
          return (
            <g>
              {rects}
              {label}
            </g>
          );
        })}
      </svg>
    </figure>
  );
};

export const HistoryCharts: FC<{ data: ChartData; spanLinks: Record<ChartSpan, string> }> = (
  { data, spanLinks },
) => (
  <div class="charts">
    <nav class="span-switch" aria-label="Chart span">
      {(["24h", "7d"] as const).map((s) => (
        <a href={spanLinks[s]} aria-current={s === data.span ? "true" : undefined} data-span={s}>
          {s === "24h" ? "Last 24 h" : "Last 7 days"}
        </a>
      ))}
    </nav>
    <BarChart
      id="chart-runs"
      title="Runs per hour by status"
      unit="runs"
      hours={data.hours}
      series={stack(data.hours, data.runs, RUN_GROUPS)}
      span={data.span}
    />
    <BarChart
      id="chart-tokens"
      title="Tokens per hour by class"
      unit="tokens"
      hours={data.hours}
      series={stack(data.hours, data.tokens, TOKEN_GROUPS)}
      span={data.span}
    />
  </div>
);
