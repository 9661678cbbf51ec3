// Server-rendered SVG charts of the /runs page: runs per hour stacked by status, tokens per
// hour stacked by class, cost and run time per hour (the run_usage_hours rollup), over the last 24
// hours or 7 days. No charting library and no script: bars are <rect>s coloured by CSS classes
// (the CSP forbids inline styles), each with a <title> for the hover text and a link to that
// hour's runs. The bars are drawn in a nested SVG stretched to the width; the axis text sits
// in the outer SVG in CSS pixels, so a phone-width chart keeps its labels readable. The charts
// of one ChartData are rendered once (rendered_once.ts): it is kept until the store commits.

import type { FC } from "hono/jsx";
import type { HourCount, UsageBucket } from "../../core/store/store.ts";
import { count, msText } from "./format.ts";
import { dollars } from "./usage.tsx";
import type { ChartSpan } from "./history_query.ts";
import { renderedOncePer } from "./rendered_once.ts";

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
  /** Cost and run time per hour, from the usage rollup. */
  usage: UsageBucket[];
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

const H = 160;
const TOP = 16;
const BOTTOM = 20;
const PLOT_H = H - TOP - BOTTOM;

/**
 * Axis ticks from 0 to a round maximum at or above `max`: steps of 1, 2 or 5 × 10^k, whole
 * steps for counts (`integer`), so a chart of 1 run never ticks at 0.5.
 */
export function niceTicks(max: number, integer = false): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 3;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  if (integer) step = Math.max(1, Math.round(step));
  const top = Math.ceil(max / step - 1e-9) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= top + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return ticks;
}

/** The /runs link of one hour's runs ([hour, hour + 1 h), UTC). */
export function hourLink(hour: string): string {
  const next = new Date(Date.parse(`${hour}:00:00Z`) + HOUR).toISOString().slice(0, 16);
  return `/runs?from=${hour}:00&to=${next}`;
}

interface ChartProps {
  id: string;
  title: string;
  unit: string;
  hours: string[];
  series: Series[];
  span: ChartSpan;
  /** How a value reads on the axis and in the hover text. */
  format: (n: number) => string;
  /** Extra hover text of an hour (the cost chart's unpriced runs). */
  note?: (i: number) => string;
  /** The values are counts: ticks at whole numbers. */
  integer?: boolean;
}

const Bars: FC<{ p: ChartProps; top: number }> = ({ p, top }) => {
  const n = p.hours.length;
  const gap = n <= 24 ? 0.1 : 0;
  return (
    <>
      {p.hours.map((hour, i) => {
        let y = PLOT_H;
        const rects = p.series.map((s) => {
          const v = s.values[i]!;
          if (v === 0) return null;
          const h = (v / top) * PLOT_H;
          y -= h;
          return (
            <rect
              key={s.key}
              class={`fill-${s.key}`}
              x={i + gap}
              y={y}
              width={1 - 2 * gap}
              height={h}
            />
          );
        });
        if (rects.every((r) => r === null)) return null;
        const parts = p.series.filter((s) => s.values[i]).map((s) =>
          `${s.label}: ${p.format(s.values[i]!)}`
        );
        const text = `${hour.replace("T", " ")}:00 UTC · ${parts.join(", ")}${p.note?.(i) ?? ""}`;
        // Out of the tab order: the same hours are reachable from the filters and day table.
        // The <title> names the link (SVG's accessible name) and is the hover text.
        return (
          <a href={hourLink(hour)} tabindex={-1}>
            <title>{text}</title>
            {rects}
          </a>
        );
      })}
    </>
  );
};

const BarChart: FC<ChartProps> = (p) => {
  const totals = p.hours.map((_, i) => p.series.reduce((s, x) => s + x.values[i]!, 0));
  const ticks = niceTicks(Math.max(0, ...totals), p.integer ?? false);
  const top = ticks.at(-1)!;
  const n = p.hours.length;
  const labelEvery = p.span === "7d" ? 24 : 6;
  const sum = totals.reduce((a, b) => a + b, 0);
  return (
    <figure class="chart" id={p.id} data-total={sum} data-max={top}>
      <figcaption>
        <span class="chart-title">{p.title}</span>
        <span class="legend">
          {p.series.map((s) => (
            <span class="legend-item">
              <span class={`swatch fill-${s.key}`} aria-hidden="true"></span>
              {s.label}
            </span>
          ))}
          <span class="chart-sum">{p.format(sum)} {p.unit} in all</span>
        </span>
      </figcaption>
      <svg class="chart-svg" width="100%" height={H} aria-label={`${p.title}: bars per hour`}>
        <svg
          x="0"
          y={TOP}
          width="100%"
          height={PLOT_H}
          viewBox={`0 0 ${n} ${PLOT_H}`}
          preserveAspectRatio="none"
        >
          {ticks.map((t) => {
            const y = PLOT_H - (t / top) * PLOT_H;
            return <line key={t} class="grid-line" x1="0" x2={n} y1={y} y2={y} />;
          })}
          <Bars p={p} top={top} />
        </svg>
        {ticks.map((t) => (
          <text class="tick tick-y" x="2" y={TOP + PLOT_H - (t / top) * PLOT_H - 2}>
            {p.format(t)}
          </text>
        ))}
        {p.hours.map((hour, i) =>
          i % labelEvery === 0
            ? (
              <text class="tick" x={`${(i / n) * 100}%`} y={H - 5}>
                {p.span === "7d" ? hour.slice(5, 10) : `${hour.slice(11, 13)}:00`}
              </text>
            )
            : null
        )}
      </svg>
    </figure>
  );
};

/** One series per hour from the usage rollup: `pick` reads the bucket's number. */
function usageSeries(
  hours: string[],
  usage: UsageBucket[],
  key: string,
  label: string,
  pick: (b: UsageBucket) => number,
): Series[] {
  const at = new Map(usage.map((b) => [b.bucket, b]));
  return [{ key, label, values: hours.map((h) => (at.has(h) ? pick(at.get(h)!) : 0)) }];
}

/** The four charts of a span; rendered once per ChartData (a cached read, history_data.ts). */
const ChartGrid = renderedOncePer<ChartData>(({ data }) => {
  const byHour = new Map(data.usage.map((b) => [b.bucket, b]));
  const unpriced = (i: number) => {
    const n = byHour.get(data.hours[i]!)?.unpriced_runs ?? 0;
    return n ? ` (+ ${n} unpriced ${n === 1 ? "run" : "runs"})` : "";
  };
  const minutes = (ms: number) => msText(ms) || "0 s";
  return (
    <div class="chart-grid">
      <BarChart
        id="chart-runs"
        title="Runs per hour by status"
        unit="runs"
        hours={data.hours}
        series={stack(data.hours, data.runs, RUN_GROUPS)}
        span={data.span}
        format={count}
        integer
      />
      <BarChart
        id="chart-tokens"
        title="Tokens per hour by class"
        unit="tokens"
        hours={data.hours}
        series={stack(data.hours, data.tokens, TOKEN_GROUPS)}
        span={data.span}
        format={count}
        integer
      />
      <BarChart
        id="chart-cost"
        title="Cost per hour (priced runs)"
        unit=""
        hours={data.hours}
        series={usageSeries(data.hours, data.usage, "cost", "cost", (b) => b.cost_usd)}
        span={data.span}
        format={dollars}
        note={unpriced}
      />
      <BarChart
        id="chart-duration"
        title="Run time per hour"
        unit=""
        hours={data.hours}
        series={usageSeries(data.hours, data.usage, "duration", "run time", (b) => b.duration_ms)}
        span={data.span}
        format={minutes}
      />
    </div>
  );
});

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
    <ChartGrid data={data} />
  </div>
);
