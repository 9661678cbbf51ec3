// Cron schedules: croner parses and enumerates the pattern on a DST-free clock (UTC offset
// 0, so croner's own DST handling never runs), and each matching wall-clock time is then
// placed in the job's zone with Temporal under the project's policy: a time in a
// spring-forward gap does not fire, a repeated fall-back time fires once, at its first
// occurrence, whatever the pattern.

import { Cron } from "croner";
import { quote, repeatEnd, resolveWall, wallAt } from "./schedule_dst.ts";
import { isoZ } from "../time.ts";
import { plainInstantOfWall, wallMsAt } from "./zone_offsets.ts";

const FIELD_NAMES = ["minute", "hour", "day-of-month", "month", "day-of-week"] as const;
const MONTHS = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const DAYS = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const NICKNAMES: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};
const EXAMPLE = "e.g. `0 9 * * 1-5` for 09:00 on weekdays";
const SHAPE = "minute hour day-of-month month day-of-week";

/** A cron expression that cannot be used; the message says what to write instead. */
export class CronSyntaxError extends Error {
  override readonly name = "CronSyntaxError";
}

/**
 * Checks that `expr` is a plain 5-field cron expression and returns it with single spaces.
 * Accepted per field: numbers, `*`, lists `,`, ranges `-`, steps `/`, and month or weekday
 * names in their own fields. Refused on purpose: seconds and year fields, nicknames such as
 * @daily, and croner's extensions (`?`, `L`, `W`, `#`, `+`), so that an expression means
 * the same here as in any standard cron.
 */
export function normalizeCron(expr: string): string {
  const known = checked.get(expr);
  if (known !== undefined) return known;
  const text = expr.trim();
  if (text.startsWith("@")) {
    const word = text.toLowerCase();
    const same = NICKNAMES[word];
    throw new CronSyntaxError(
      same
        ? `nicknames like ${word} are not accepted; write the 5 fields instead: \`${same}\``
        : `${quote(text)} is not a cron expression; expected 5 fields (${SHAPE}), ${EXAMPLE}`,
    );
  }
  const fields = text.split(/\s+/);
  if (fields.length === 6 || fields.length === 7) {
    throw new CronSyntaxError(
      `expected 5 fields (${SHAPE}) but got ${fields.length}; seconds and year fields are ` +
        `not supported, ${EXAMPLE}`,
    );
  }
  if (fields.length !== 5) {
    throw new CronSyntaxError(
      `${quote(text)} is not a cron expression: expected 5 fields (${SHAPE}), ${EXAMPLE}; ` +
        `natural language is not parsed`,
    );
  }
  fields.forEach((field, i) => checkField(field, i));
  const normalized = fields.join(" ");
  compiled(normalized); // croner's own checks: ranges, steps, values
  if (checked.size >= CACHE_MAX) checked.clear();
  checked.set(expr, normalized);
  return normalized;
}

// Expressions already accepted (nextFire re-checks on every call); failures are not kept.
const checked = new Map<string, string>();

function checkField(field: string, index: number): void {
  const name = FIELD_NAMES[index] ?? "field";
  const odd = /[^0-9A-Za-z*,/-]/.exec(field);
  if (odd) {
    throw new CronSyntaxError(
      `${name} field ${quote(field)}: ${JSON.stringify(odd[0])} is not supported; use ` +
        `numbers, names, *, "," lists, "-" ranges and "/" steps`,
    );
  }
  const allowed = index === 3 ? MONTHS : index === 4 ? DAYS : [];
  for (const word of field.match(/[A-Za-z]+/g) ?? []) {
    if (!allowed.includes(word.toUpperCase())) {
      const what = allowed.length
        ? `use numbers or names like ${allowed[0]}-${allowed[allowed.length - 1]}`
        : "use numbers only";
      throw new CronSyntaxError(
        `${name} field ${quote(field)}: ${JSON.stringify(word)} is not supported; ${what}`,
      );
    }
  }
}

/** A compiled pattern and its last answer: jobs sharing an expression and a zone ask the
 * same question in a row (the same slot, the same tick). */
interface Compiled {
  cron: Cron;
  lastFrom: number;
  lastNext: number | null;
}

// Compiled patterns by normalized expression; 100 jobs share a handful of expressions.
const cache = new Map<string, Compiled>();
const CACHE_MAX = 512;

function compiled(expr: string): Compiled {
  const hit = cache.get(expr);
  if (hit) return hit;
  let cron: Cron;
  try {
    // No callback: croner only computes times and never starts a timer.
    cron = new Cron(expr, { mode: "5-part", utcOffset: 0 });
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^CronPattern:\s*/, "") : String(e);
    throw new CronSyntaxError(`${quote(expr)} is not a valid cron expression: ${why}`);
  }
  if (cache.size >= CACHE_MAX) cache.clear();
  const entry = { cron, lastFrom: NaN, lastNext: null };
  cache.set(expr, entry);
  return entry;
}

/** The pattern's first match strictly after the wall time `fromMs` (both read as UTC). */
function nextMatch(pattern: Compiled, fromMs: number): number | null {
  if (fromMs !== pattern.lastFrom) {
    pattern.lastNext = pattern.cron.nextRun(new Date(fromMs))?.getTime() ?? null;
    pattern.lastFrom = fromMs;
  }
  return pattern.lastNext;
}

/** A valid pattern whose next fire cannot be found (e.g. `0 0 30 2 *`, never matches). */
export class CronNoFireError extends Error {
  override readonly name = "CronNoFireError";
}

// Each skipped candidate is a gap or a second pass; jumps below keep this small, so hitting
// the cap means something is wrong rather than slow.
const MAX_CANDIDATES = 1000;

/**
 * The first fire of the normalized 5-field `expr` strictly after `afterMs`, with the wall
 * clock read in `tz`. Throws CronSyntaxError or CronNoFireError.
 */
export function nextCronFire(expr: string, tz: string, afterMs: number): number {
  const pattern = compiled(expr);
  // croner walks a clock that reads the zone's wall time as if it were UTC.
  let cursor = wallMsAt(afterMs, tz) ?? utcOf(wallAt(afterMs, tz));
  for (let i = 0; i < MAX_CANDIDATES; i++) {
    const next = nextMatch(pattern, cursor);
    if (next === null) {
      throw new CronNoFireError(
        `${quote(expr)} never matches a date after ${isoZ(new Date(afterMs))}; check that ` +
          `the day of month exists in the months given`,
      );
    }
    // Away from the zone's transitions a wall time is one instant, found by arithmetic.
    const plain = plainInstantOfWall(next, tz);
    if (plain !== null && plain > afterMs) return plain;
    const wall = plainOf(new Date(next));
    const at = resolveWall(wall, tz);
    if (at.kind === "gap") {
      // This time never happens; resume at the end of the gap.
      cursor = Math.max(next, utcOf(at.gapEnd) - 1000);
      continue;
    }
    if (at.epochMs > afterMs) return at.epochMs;
    // `after` is in the second pass of a repeated stretch; this time already fired in the
    // first pass. Nothing in the rest of the stretch fires again, so resume at its end.
    const end = repeatEnd(wall, tz);
    cursor = end ? Math.max(next, utcOf(end) - 1000) : next;
  }
  throw new CronNoFireError(
    `${quote(expr)}: no fire found in ${tz} after ${isoZ(new Date(afterMs))} within ` +
      `${MAX_CANDIDATES} candidates`,
  );
}

function utcOf(t: Temporal.PlainDateTime): number {
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.millisecond);
}

function plainOf(d: Date): Temporal.PlainDateTime {
  return new Temporal.PlainDateTime(
    d.getUTCFullYear(),
    d.getUTCMonth() + 1,
    d.getUTCDate(),
    d.getUTCHours(),
    d.getUTCMinutes(),
  );
}
