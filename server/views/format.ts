// Small text formatters shared by the views. Times are rendered in UTC on the server and
// carried in <time datetime> so the page script can show them in the viewer's zone.

import type { Schedule } from "../../core/scheduler/schedule.ts";

/** "2026-03-02 09:00 UTC" from a UTC ISO-Z timestamp; "—" for null or garbage. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return "—";
  return new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";
}

/** "3 min ago", "in 2 h", "just now"; relative to `now`. Empty for null or garbage. */
export function relativeTime(iso: string | null | undefined, now: Date): string {
  if (!iso) return "";
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return "";
  const diff = ms - now.getTime();
  const abs = Math.abs(diff);
  if (abs < 45_000) return "just now";
  const units: [number, string][] = [[86_400_000, "d"], [3_600_000, "h"], [60_000, "min"]];
  for (const [size, unit] of units) {
    if (abs >= size || unit === "min") {
      const n = Math.round(abs / size);
      return diff < 0 ? `${n} ${unit} ago` : `in ${n} ${unit}`;
    }
  }
  return "";
}

/** "every 1h", "cron 0 9 * * 1-5", "at 2026-04-01T09:00"; the zone is appended unless UTC. */
export function scheduleText(schedule: Schedule): string {
  const zone = schedule.tz && schedule.tz !== "UTC" ? ` (${schedule.tz})` : "";
  return `${schedule.kind} ${schedule.expr}${zone}`;
}

/** Seconds as "90 s", "15 min", "2 h". */
export function durationText(seconds: number): string {
  if (seconds % 3600 === 0 && seconds >= 3600) return `${seconds / 3600} h`;
  if (seconds % 60 === 0 && seconds >= 60) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** Elapsed time between two ISO timestamps ("1 min 5 s"); empty when either is missing. */
export function elapsedText(from: string | null, to: string | null): string {
  if (!from || !to) return "";
  return msText(Date.parse(to) - Date.parse(from));
}

/** Milliseconds as "40 ms" below a second (never "0 s"), "12 s", "1 min 5 s", "2 h 3 min". */
export function msText(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** One formatter for every count: toLocaleString builds a new one per call (~20 µs). Made on
 * first use, not at import: the first Intl object loads ICU's locale data, ~5 MiB of resident
 * memory the outpost would otherwise carry from start-up (issue 16) before any page is drawn. */
let grouped: Intl.NumberFormat | undefined;

/** 12345 → "12,345"; null → "—". */
export function count(n: number | null | undefined): string {
  if (n === null || n === undefined) return "—";
  grouped ??= new Intl.NumberFormat("en-US");
  return grouped.format(n);
}

/** Cuts `text` to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
