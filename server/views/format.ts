// Small text formatters shared by the views. Times are rendered in UTC on the server and
// carried in <time datetime> so the page script can show them in the viewer's zone.

/** A stored ISO-Z second whose fields Date would print back unchanged (any month has day 28). */
const PLAIN_ISO_Z =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{1,3})?Z$/;

/**
 * "2026-03-02 09:00:15" of a timestamp in UTC, as Date prints it; null for garbage. The
 * stored form (ISO-Z, fields in range) is cut, not parsed and printed again: Date did that in
 * 0.6 µs a call, 10% of /jobs/<id> (150 calls). Other text (days 29 to 31 included, which
 * Date may roll over) still goes through Date, so the result is the same.
 */
export function utcSeconds(iso: string): string | null {
  if (PLAIN_ISO_Z.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return null;
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** "2026-03-02 09:00 UTC" from a UTC ISO-Z timestamp; "—" for null or garbage. */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  const text = utcSeconds(iso);
  return text === null ? "—" : `${text.slice(0, 16)} UTC`;
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
  // Whole non-negative numbers (nearly every count) are grouped here, as Intl would: 0.03 µs
  // a call against format's 0.23, and a page of runs formats hundreds (6% of /jobs/<id>).
  if (Number.isSafeInteger(n) && (n > 0 || Object.is(n, 0))) return thousands(String(n));
  grouped ??= new Intl.NumberFormat("en-US");
  return grouped.format(n);
}

/** "1234567" → "1,234,567". */
function thousands(digits: string): string {
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}

/** Cuts `text` to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
