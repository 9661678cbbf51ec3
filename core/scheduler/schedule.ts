// Job schedules (spec 2.3): validation, next fire and preview for the three kinds.
// Policy (design.md "Scheduling and DST"): cron and naive `at` times are read in the job's
// IANA zone; a spring-forward gap time does not fire: it is passed over to the next valid
// fire (spec 2.3; for a naive `at`, the instant the gap ends, and the door says so with
// passedOverNote); a repeated fall-back time fires once, at its first occurrence; `every` is
// elapsed time and ignores DST.

import { CronNoFireError, CronSyntaxError, nextCronFire, normalizeCron } from "./schedule_cron.ts";
import { parseTimestamp, quote, wallAt, wallText, zoneId } from "./schedule_dst.ts";
import { isoZ } from "../time.ts";
import type { Schedule, ScheduleKind } from "../store/store.ts";

/** A validated schedule: the stored shape (the store, below the scheduler, defines it). */
export type { Schedule, ScheduleKind } from "../store/store.ts";

export type ScheduleField = "schedule.kind" | "schedule.expr" | "schedule.tz";

/** A schedule that cannot be accepted or computed; `field` says which part is wrong. */
export class ScheduleError extends Error {
  override readonly name = "ScheduleError";
  readonly field: ScheduleField;
  /** The message without the leading field name, for callers that name the field their way. */
  readonly detail: string;

  constructor(field: ScheduleField, detail: string) {
    super(`${field}: ${detail}`);
    this.field = field;
    this.detail = detail;
  }
}

const KINDS: readonly ScheduleKind[] = ["every", "cron", "at"];
const EXPR_MAX = 200;
const INTERVAL_FLOOR_MS = 60_000; // spec 8: interval floor
const INTERVAL_CEILING_MS = 365 * 86_400_000; // beyond a year, use cron or at
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Validates and normalizes a schedule: trims, lower-cases the kind, checks the zone is a
 * canonical name (missing or empty means "UTC"; see checkZone), collapses cron whitespace,
 * and rewrites `at` as UTC ISO-Z. `now` is the reference an `at` must lie after. Throws
 * ScheduleError.
 */
export function validateSchedule(
  input: { kind?: unknown; expr?: unknown; tz?: unknown },
  now: Date,
): Schedule {
  if (!Number.isFinite(now.getTime())) throw new RangeError("validateSchedule: `now` is invalid");
  const kind = checkKind(input.kind);
  const tz = checkZone(input.tz);
  if (input.expr !== undefined && input.expr !== null && typeof input.expr !== "string") {
    throw new ScheduleError(
      "schedule.expr",
      `must be a string (${EXPECTED[kind]}); got ${describeType(input.expr)}`,
    );
  }
  if (typeof input.expr !== "string" || input.expr.trim() === "") {
    throw new ScheduleError("schedule.expr", `required: ${EXPECTED[kind]}`);
  }
  const raw = input.expr.trim();
  if (raw.length > EXPR_MAX) {
    throw new ScheduleError("schedule.expr", `longer than ${EXPR_MAX} characters`);
  }
  switch (kind) {
    case "every":
      return { kind, expr: parseInterval(raw).text, tz };
    case "cron": {
      const expr = cronExpr(raw);
      // A pattern that can never match (e.g. 30 February) is refused now, not at first tick.
      nextFire({ kind, expr, tz }, now);
      return { kind, expr, tz };
    }
    case "at": {
      const fire = atInstant(raw, tz);
      if (fire <= now.getTime()) {
        throw new ScheduleError(
          "schedule.expr",
          `${isoZ(new Date(fire))} is not in the future (now is ${isoZ(now)}); give a later time`,
        );
      }
      return { kind, expr: isoZ(new Date(fire)), tz };
    }
  }
}

const EXPECTED: Record<ScheduleKind, string> = {
  every: "an interval like 90s, 15m, 2h or 1d",
  cron: "a 5-field cron expression like `0 9 * * 1-5`",
  at: "an ISO-8601 timestamp like 2026-03-09T09:00 or 2026-03-09T14:00:00Z",
};

function checkKind(value: unknown): ScheduleKind {
  const text = typeof value === "string" ? value.trim().toLowerCase() : "";
  const kind = KINDS.find((k) => k === text);
  if (kind) return kind;
  if (value !== undefined && value !== null && typeof value !== "string") {
    throw new ScheduleError(
      "schedule.kind",
      `must be a string (every, cron or at); got ${describeType(value)}`,
    );
  }
  const got = typeof value === "string" ? quote(value) : "nothing";
  throw new ScheduleError("schedule.kind", `expected one of every, cron, at; got ${got}`);
}

function describeType(value: unknown): string {
  return Array.isArray(value) ? "an array" : typeof value === "object" ? "an object" : typeof value;
}

/** Zone areas of the IANA database whose names are places ("Area/Location"). */
const REGION =
  /^(Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)\//;

/**
 * The zone of a schedule being saved, in the zone database's own spelling. Accepted: "UTC"
 * and region names ("Area/Location": every name of Intl.supportedValuesOf("timeZone"), and
 * the region names the database keeps as links, such as Asia/Kolkata), in any letter case
 * (`utc` is stored as `UTC`, `europe/paris` as `Europe/Paris`: zone names are
 * case-insensitive, and one stored spelling keeps the child's TZ and Temporal in agreement).
 * Refused, naming what to write instead: legacy aliases (`EST`, `US/Eastern`, `GMT`,
 * `Etc/UTC`), whose meaning is easy to get wrong (`EST` has no daylight time), and fixed
 * offsets (`Etc/GMT+5`, `+05:00`), which cannot follow DST.
 */
function checkZone(value: unknown): string {
  if (value === undefined || value === null) return "UTC";
  if (typeof value !== "string") {
    throw new ScheduleError(
      "schedule.tz",
      `must be a string (an IANA zone name such as America/New_York or UTC); got ${
        describeType(value)
      }`,
    );
  }
  const name = value.trim();
  if (name === "") return "UTC";
  const id = zoneId(name);
  if (id !== null && (id === "UTC" || REGION.test(id))) return id;
  throw new ScheduleError("schedule.tz", `${quote(name)} ${zoneRefusal(name, id)}`);
}

/** Why a zone name is refused and what to write instead. */
function zoneRefusal(name: string, id: string | null): string {
  const examples = "use a zone name such as America/New_York, Europe/London or UTC";
  const offset = "is a UTC offset, not an IANA zone (offsets cannot follow DST)";
  if (/^[+-]?\d/.test(name)) return `${offset}; ${examples}`;
  if (id === null) return `is not a known IANA time zone; ${examples}`;
  if (/^Etc\/GMT[+-]/.test(id)) return `${offset}; ${examples}`;
  const canonical = canonicalZone(id);
  if (canonical === "UTC") return `is a legacy alias of UTC; use "UTC"`;
  if (canonical !== null && REGION.test(canonical)) {
    return `is a legacy alias, not a region name; use ${quote(canonical)} (what it stands for) ` +
      `or the region you mean`;
  }
  return `is not a region name; ${examples}`;
}

/** The runtime's canonical name for a zone id (Intl, CLDR-based), or null. */
function canonicalZone(id: string): string | null {
  try {
    return new Intl.DateTimeFormat("en", { timeZone: id }).resolvedOptions().timeZone;
  } catch (err) {
    if (err instanceof RangeError) return null; // Temporal knows the id, Intl does not
    throw err;
  }
}

/**
 * The zone of a stored schedule, read leniently: rows saved before checkZone was strict may
 * hold `EST` or `US/Eastern`, and they must keep firing. Throws only for an unknown zone.
 */
function storedZone(value: string): string {
  const name = value.trim() || "UTC";
  const id = zoneId(name);
  if (id !== null) return id;
  throw new ScheduleError("schedule.tz", `${quote(name)} is not a known IANA time zone`);
}

/** Milliseconds of an `every` interval: a whole number and one unit s, m, h or d; floor 60 s. */
export function intervalMs(expr: string): number {
  return parseInterval(expr).ms;
}

/** The interval in ms and in its normal spelling ("015M " -> "15m"). */
function parseInterval(expr: string): { ms: number; text: string } {
  const text = expr.trim();
  const m = /^(\d{1,12})\s*([smhd])$/i.exec(text);
  if (!m) {
    throw new ScheduleError(
      "schedule.expr",
      `${quote(text)} is not an interval; expected a whole number and one unit s, m, h or d ` +
        `(e.g. 90s, 15m, 2h, 1d; for 1h30m write 90m)`,
    );
  }
  const count = Number(m[1]);
  const unit = (m[2] ?? "").toLowerCase();
  const ms = count * (UNIT_MS[unit] ?? NaN);
  if (!(ms >= INTERVAL_FLOOR_MS)) {
    throw new ScheduleError(
      "schedule.expr",
      `${quote(text)} is shorter than the 60-second floor; use 60s or more`,
    );
  }
  if (ms > INTERVAL_CEILING_MS) {
    throw new ScheduleError(
      "schedule.expr",
      `${quote(text)} is longer than 365d; use a cron or at schedule instead`,
    );
  }
  return { ms, text: `${count}${unit}` };
}

function cronExpr(expr: string): string {
  try {
    return normalizeCron(expr);
  } catch (e) {
    if (e instanceof CronSyntaxError) throw new ScheduleError("schedule.expr", e.message);
    throw e;
  }
}

/** The instant of an `at`; a naive time in a DST gap is passed over to the gap's end. */
function atInstant(expr: string, tz: string): number {
  const r = parseTimestamp(expr, tz);
  if (r.ok) return r.epochMs;
  if (r.reason === "gap") return r.gapEndMs;
  throw new ScheduleError("schedule.expr", r.message);
}

/**
 * What a door tells the operator when their naive `at` fell in a DST gap and `stored` (the
 * validated schedule) holds the instant it was passed over to; null when nothing moved.
 */
export function passedOverNote(
  input: { kind?: unknown; expr?: unknown; tz?: unknown } | undefined,
  stored: Schedule,
): string | null {
  if (stored.kind !== "at" || typeof input?.expr !== "string") return null;
  const r = parseTimestamp(input.expr.trim(), stored.tz);
  if (r.ok || r.reason !== "gap") return null;
  return `${r.message}: passed over to the next valid instant, ${
    wallText(wallAt(r.gapEndMs, stored.tz))
  } ${stored.tz} (${stored.expr})`;
}

/**
 * The first fire strictly after `after`, or null when there is none (an `at` already
 * passed). `every` returns after + interval (the caller anchors it). Throws ScheduleError
 * when the schedule is invalid or its next fire cannot be computed.
 */
export function nextFire(schedule: Schedule, after: Date): Date | null {
  const afterMs = after.getTime();
  if (!Number.isFinite(afterMs)) throw new RangeError("nextFire: `after` is an invalid Date");
  const kind = checkKind(schedule.kind);
  const tz = storedZone(schedule.tz);
  switch (kind) {
    case "every":
      return new Date(afterMs + intervalMs(schedule.expr));
    case "at": {
      const fire = atInstant(schedule.expr.trim(), tz);
      return fire > afterMs ? new Date(fire) : null;
    }
    case "cron":
      try {
        return new Date(nextCronFire(cronExpr(schedule.expr), tz, afterMs));
      } catch (e) {
        if (e instanceof CronNoFireError) throw new ScheduleError("schedule.expr", e.message);
        throw e;
      }
  }
}

/** The next `count` fires strictly after `from` (fewer for an `at`: one or none). */
export function previewFires(schedule: Schedule, from: Date, count: number): Date[] {
  if (!Number.isInteger(count) || count < 0) {
    throw new RangeError(`previewFires: count must be a whole number >= 0, got ${count}`);
  }
  const fires: Date[] = [];
  let cursor = from;
  while (fires.length < count) {
    const next = nextFire(schedule, cursor);
    if (!next) break;
    fires.push(next);
    cursor = next;
  }
  return fires;
}
