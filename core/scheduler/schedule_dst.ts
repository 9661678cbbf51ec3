// Zone arithmetic for the project's DST policy (design.md "Scheduling and DST"), on the
// Temporal global: which IANA zone a name means, what instant a wall-clock time is, and
// how to read an ISO-8601 timestamp that may or may not carry an offset.

/** A wall-clock time in some zone, resolved to the instant the policy fires at. */
export type WallInstant =
  /** The time exists; epochMs is its first occurrence (the only one unless it repeats). */
  | { kind: "exists"; epochMs: number }
  /** The time falls in a spring-forward gap: clocks jump from gapStart to gapEnd. */
  | { kind: "gap"; gapStart: Temporal.PlainDateTime; gapEnd: Temporal.PlainDateTime };

/**
 * The zone id Temporal knows `name` by (case normalized, e.g. "america/new_york" ->
 * "America/New_York"), or null when it is not an IANA zone. UTC offsets such as "+05:30"
 * are refused: they cannot follow DST and mean the opposite sign in a POSIX TZ variable.
 */
export function zoneId(name: string): string | null {
  const hit = zones.get(name);
  if (hit !== undefined) return hit;
  let id: string | null = null;
  if (/^[A-Za-z]/.test(name)) {
    try {
      id = new Temporal.ZonedDateTime(0n, name).timeZoneId;
    } catch {
      id = null;
    }
  }
  if (zones.size >= 512) zones.clear();
  zones.set(name, id);
  return id;
}

// nextFire checks the zone on every call; the answer for a name never changes in-process.
const zones = new Map<string, string | null>();

/** The wall-clock time an instant reads in `tz`. */
export function wallAt(epochMs: number, tz: string): Temporal.PlainDateTime {
  return Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(tz).toPlainDateTime();
}

/** Maps a wall-clock time to the instant the policy uses: gap -> none, repeated -> first. */
export function resolveWall(wall: Temporal.PlainDateTime, tz: string): WallInstant {
  // "earlier" gives the first occurrence of a repeated time; inside a gap it gives a
  // different wall time (shifted back by the gap), which is how a gap is recognized.
  const first = wall.toZonedDateTime(tz, { disambiguation: "earlier" });
  if (Temporal.PlainDateTime.compare(first.toPlainDateTime(), wall) === 0) {
    return { kind: "exists", epochMs: first.epochMilliseconds };
  }
  const jump = first.getTimeZoneTransition("next");
  if (!jump) throw new RangeError(`no transition after ${first.toString()}`);
  const gapEnd = jump.toPlainDateTime();
  const gapStart = gapEnd.subtract({
    nanoseconds: jump.offsetNanoseconds - first.offsetNanoseconds,
  });
  return { kind: "gap", gapStart, gapEnd };
}

/**
 * When `wall` happens twice (fall back), the wall time at which the repeated stretch ends
 * (e.g. 02:00 for New York's 01:00-02:00 on the first Sunday of November); otherwise null.
 */
export function repeatEnd(wall: Temporal.PlainDateTime, tz: string): Temporal.PlainDateTime | null {
  const first = wall.toZonedDateTime(tz, { disambiguation: "earlier" });
  const last = wall.toZonedDateTime(tz, { disambiguation: "later" });
  if (first.epochNanoseconds === last.epochNanoseconds) return null;
  const back = first.getTimeZoneTransition("next");
  if (!back) return null;
  return back.toPlainDateTime().add({
    nanoseconds: first.offsetNanoseconds - back.offsetNanoseconds,
  });
}

/** "02:00", or "02:00:30" when seconds matter. */
function clockText(t: Temporal.PlainDateTime): string {
  return t.toPlainTime().toString({ smallestUnit: t.second === 0 ? "minute" : "second" });
}

/** "2026-03-08T02:30", or with seconds when they matter. */
export function wallText(t: Temporal.PlainDateTime): string {
  const exact = t.second === 0 && t.millisecond === 0 && t.microsecond === 0 &&
    t.nanosecond === 0;
  return t.toString({ smallestUnit: exact ? "minute" : "second" });
}

/** The sentence used whenever a naive time falls in a gap. */
export function gapText(
  wall: Temporal.PlainDateTime,
  tz: string,
  gap: { gapStart: Temporal.PlainDateTime; gapEnd: Temporal.PlainDateTime },
): string {
  return `${wallText(wall)} does not exist in ${tz} (clocks jump from ${
    clockText(gap.gapStart)
  } to ${clockText(gap.gapEnd)})`;
}

export type TimestampResult =
  | { ok: true; epochMs: number }
  | { ok: false; reason: "format" | "range"; message: string }
  /** A naive time in a spring-forward gap; `gapEndMs` is the first instant after it. */
  | { ok: false; reason: "gap"; message: string; gapEndMs: number };

// Date, time to at least minutes, optional seconds and fraction, optional Z or offset.
const ISO_TIMESTAMP =
  /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * Reads an ISO-8601 timestamp. With Z or an offset it is absolute; without one it is a wall
 * time in `tz`: a gap time is refused with a message naming the gap and the instant the gap
 * ends (the caller decides: an `at` fire is passed over to it), a repeated time takes its
 * first occurrence. Sub-second digits are dropped (the scheduler works in seconds).
 */
export function parseTimestamp(text: string, tz: string): TimestampResult {
  const m = ISO_TIMESTAMP.exec(text);
  if (!m) {
    const hint = /^\d{4}-\d{2}-\d{2}$/.test(text)
      ? "it needs a time of day too, e.g. " + text + "T09:00"
      : "natural language is not parsed";
    return {
      ok: false,
      reason: "format",
      message: `${quote(text)} is not an ISO-8601 timestamp (${hint}); use e.g. ` +
        `2026-03-09T09:00 (read in ${tz}) or 2026-03-09T14:00:00Z`,
    };
  }
  const [, date, time, offset] = m;
  const iso = `${date}T${(time ?? "").replace(",", ".")}`;
  try {
    if (offset) {
      const ms = Temporal.Instant.from(iso + offset.toUpperCase()).epochMilliseconds;
      return { ok: true, epochMs: ms - mod(ms, 1000) };
    }
    const wall = Temporal.PlainDateTime.from(iso).with({
      millisecond: 0,
      microsecond: 0,
      nanosecond: 0,
    });
    const at = resolveWall(wall, tz);
    if (at.kind === "gap") {
      const gapEndMs = at.gapEnd.toZonedDateTime(tz).epochMilliseconds;
      return { ok: false, reason: "gap", message: gapText(wall, tz, at), gapEndMs };
    }
    return { ok: true, epochMs: at.epochMs };
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    return {
      ok: false,
      reason: "range",
      message: `${quote(text)} is not a real date and time (check month, day, hour and minute)`,
    };
  }
}

function mod(a: number, b: number): number {
  return ((a % b) + b) % b;
}

/** Quotes user input for a message, cut short so one bad value cannot flood a log line. */
export function quote(text: string): string {
  return JSON.stringify(text.length > 60 ? text.slice(0, 57) + "..." : text);
}
