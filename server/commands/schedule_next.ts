// `agent-outpost schedule next`: preview the next fires of a schedule, one UTC ISO-Z
// instant per line, so an operator can check a cron or zone before saving a job.

import { parseArgs } from "node:util";
import { type Clock, systemClock } from "../../core/ports.ts";
import { previewFires, ScheduleError, validateSchedule } from "../../core/scheduler/schedule.ts";
import { isoZ } from "../../core/time.ts";
import { parseTimestamp, zoneId } from "../../core/scheduler/schedule_dst.ts";

export const SCHEDULE_NEXT_USAGE =
  `usage: agent-outpost schedule next --kind KIND --expr EXPR [--tz ZONE] [--from ISO] [--count N]

Prints the next N fires of a schedule as UTC ISO-8601 instants, one per line.

  --kind   every | cron | at
  --expr   every: 90s, 15m, 2h, 1d (60 s minimum)
           cron:  5 fields, minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5"
           at:    ISO-8601 timestamp, e.g. 2026-03-09T09:00 (read in --tz) or 2026-03-09T14:00Z
  --tz     time zone the schedule is read in: UTC (default) or an IANA region name such as
           America/New_York; legacy aliases (EST, US/Eastern) and fixed offsets are refused
  --from   evaluate as of this instant instead of now (ISO-8601; without an offset it is read in --tz)
  --count  how many fires to print, 1..100 (default 5)

DST: a local time skipped by spring-forward does not fire; a time repeated by fall-back fires once,
at its first occurrence. every intervals are elapsed time.`;

const DEFAULT_COUNT = 5;
const MAX_COUNT = 100;

const FLAG_OF: Record<ScheduleError["field"], string> = {
  "schedule.kind": "--kind",
  "schedule.expr": "--expr",
  "schedule.tz": "--tz",
};

export interface ScheduleNextDeps {
  /** Source of "now" when --from is absent. */
  clock?: Clock;
  /** Where the one-line error goes; defaults to `out`. */
  err?: (line: string) => void;
}

class UsageError extends Error {
  override readonly name = "UsageError";
}

/**
 * Runs `schedule next` with the arguments after those two words. Prints fires to `out` and
 * returns the exit code: 0 on success or --help, 1 on bad input (one line naming the flag).
 */
export function runScheduleNext(
  args: string[],
  out: (line: string) => void,
  deps: ScheduleNextDeps = {},
): number {
  const err = deps.err ?? out;
  try {
    const { values, positionals } = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        kind: { type: "string" },
        expr: { type: "string" },
        tz: { type: "string" },
        from: { type: "string" },
        count: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    if (values.help) {
      for (const line of SCHEDULE_NEXT_USAGE.split("\n")) out(line);
      return 0;
    }
    if (positionals.length > 0) {
      throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}; see --help`);
    }
    if (values.kind === undefined) throw new UsageError("--kind: required (every, cron or at)");
    if (values.expr === undefined) throw new UsageError("--expr: required; see --help");
    const count = parseCount(values.count);
    const from = parseFrom(values.from, values.tz, deps.clock ?? systemClock);
    const schedule = validateSchedule(
      { kind: values.kind, expr: values.expr, tz: values.tz },
      from,
    );
    for (const fire of previewFires(schedule, from, count)) out(isoZ(fire));
    return 0;
  } catch (e) {
    err(`error: ${describe(e)}`);
    return 1;
  }
}

function parseCount(text: string | undefined): number {
  if (text === undefined) return DEFAULT_COUNT;
  const n = /^\d{1,3}$/.test(text.trim()) ? Number(text.trim()) : NaN;
  if (!(n >= 1 && n <= MAX_COUNT)) {
    throw new UsageError(
      `--count: expected a whole number from 1 to ${MAX_COUNT}, got ${JSON.stringify(text)}`,
    );
  }
  return n;
}

function parseFrom(text: string | undefined, tz: string | undefined, clock: Clock): Date {
  if (text === undefined) return clock.now();
  // A naive --from is read in --tz; a bad --tz is reported under its own flag later.
  const zone = zoneId((tz ?? "").trim() || "UTC") ?? "UTC";
  const r = parseTimestamp(text.trim(), zone);
  if (!r.ok) throw new UsageError(`--from: ${r.message}`);
  return new Date(r.epochMs);
}

function describe(e: unknown): string {
  if (e instanceof ScheduleError) return `${FLAG_OF[e.field]}: ${e.detail}`;
  if (e instanceof UsageError) return e.message;
  // node:util parseArgs reports unknown flags and missing values as TypeErrors with a code.
  if (e instanceof TypeError && "code" in e && String(e.code).startsWith("ERR_PARSE_ARGS")) {
    return `${e.message.split("\n")[0]}; see --help`;
  }
  throw e;
}
