import assert from "node:assert/strict";
import {
  intervalMs,
  nextFire,
  passedOverNote,
  previewFires,
  type Schedule,
  ScheduleError,
  validateSchedule,
} from "./schedule.ts";
import { isoZ } from "../time.ts";

const NOW = new Date("2026-03-01T12:00:00Z");

/** Asserts a ScheduleError on `field` whose message contains every `parts` string. */
function rejects(fn: () => unknown, field: ScheduleError["field"], ...parts: string[]): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ScheduleError, `expected ScheduleError, got ${String(e)}`);
    assert.equal(e.name, "ScheduleError");
    assert.equal(e.field, field);
    assert.ok(e.message.startsWith(`${field}: `), e.message);
    assert.equal(e.message, `${field}: ${e.detail}`);
    for (const part of parts) assert.ok(e.message.includes(part), `${e.message} lacks ${part}`);
    return true;
  });
}

Deno.test("isoZ prints UTC with Z and whole seconds", () => {
  assert.equal(isoZ(new Date("2026-03-09T06:30:00.000Z")), "2026-03-09T06:30:00Z");
  assert.equal(isoZ(new Date("2026-03-09T06:30:00.999Z")), "2026-03-09T06:30:00Z");
});

Deno.test("validateSchedule normalizes kind, zone and cron spacing", () => {
  assert.deepEqual(
    validateSchedule({ kind: " CRON ", expr: "  0   9 *\t* 1-5 ", tz: "america/new_york" }, NOW),
    { kind: "cron", expr: "0 9 * * 1-5", tz: "America/New_York" },
  );
  for (const tz of [undefined, null, "", "  "]) {
    assert.equal(validateSchedule({ kind: "every", expr: "5m", tz }, NOW).tz, "UTC");
  }
  assert.deepEqual(validateSchedule({ kind: "every", expr: " 015M " }, NOW), {
    kind: "every",
    expr: "15m",
    tz: "UTC",
  });
  assert.equal(validateSchedule({ kind: "every", expr: "2 h" }, NOW).expr, "2h");
  assert.throws(() => validateSchedule({ kind: "every", expr: "5m" }, new Date(NaN)), RangeError);
  // The zone is stored in the database's spelling; the subprocess gets TZ=this.
  assert.equal(validateSchedule({ kind: "every", expr: "1h", tz: "utc" }, NOW).tz, "UTC");
});

Deno.test("schedule zones: UTC and region names only; aliases and non-strings are refused by name", () => {
  const zone = (tz: unknown) => validateSchedule({ kind: "every", expr: "1h", tz }, NOW).tz;
  // Every name the runtime lists as canonical is accepted as is, and so are kept links.
  for (const name of Intl.supportedValuesOf("timeZone")) assert.equal(zone(name), name);
  assert.equal(zone("UTC"), "UTC");
  assert.equal(zone("Asia/Kolkata"), "Asia/Kolkata");
  assert.equal(zone(" europe/paris "), "Europe/Paris");
  const refused = (tz: unknown, ...parts: string[]) =>
    rejects(() => zone(tz), "schedule.tz", ...parts);
  refused("EST", '"EST" is a legacy alias', '"America/Panama"', "the region you mean");
  refused("US/Eastern", '"US/Eastern" is a legacy alias', '"America/New_York"');
  refused("EST5EDT", "legacy alias", '"America/New_York"');
  refused("GMT", '"GMT" is a legacy alias of UTC; use "UTC"');
  refused("Etc/UTC", "legacy alias of UTC");
  refused("Etc/GMT+5", "UTC offset", "cannot follow DST");
  refused(5, "must be a string", "got number");
  refused(["UTC"], "must be a string", "got an array");
  // A stored row from before the rule keeps computing (nothing stored stops firing).
  const legacy: Schedule = { kind: "cron", expr: "0 9 * * *", tz: "US/Eastern" };
  assert.equal(isoZ(nextFire(legacy, NOW)!), "2026-03-01T14:00:00Z");
});

Deno.test('schedule fields that are not strings say so (not "required")', () => {
  rejects(
    () => validateSchedule({ kind: "cron", expr: 1 }, NOW),
    "schedule.expr",
    "must be a string",
    "got number",
  );
  rejects(() => validateSchedule({ kind: "every", expr: {} }, NOW), "schedule.expr", "an object");
  rejects(
    () => validateSchedule({ kind: 3, expr: "5m" }, NOW),
    "schedule.kind",
    "must be a string",
  );
});

Deno.test("bad kind, zone and missing expr name their field", () => {
  rejects(() => validateSchedule({ expr: "5m" }, NOW), "schedule.kind", "every, cron, at");
  rejects(() => validateSchedule({ kind: "daily", expr: "5m" }, NOW), "schedule.kind", '"daily"');
  rejects(() => validateSchedule({ kind: 3, expr: "5m" }, NOW), "schedule.kind", "number");
  rejects(
    () => validateSchedule({ kind: "cron", expr: "0 9 * * *", tz: "Mars/Olympus_Mons" }, NOW),
    "schedule.tz",
    '"Mars/Olympus_Mons" is not a known IANA time zone',
    "America/New_York",
  );
  rejects(
    () => validateSchedule({ kind: "cron", expr: "0 9 * * *", tz: "+05:30" }, NOW),
    "schedule.tz",
    "UTC offset",
  );
  rejects(() => validateSchedule({ kind: "cron", expr: "0 9 * * *", tz: 5 }, NOW), "schedule.tz");
  rejects(() => validateSchedule({ kind: "cron" }, NOW), "schedule.expr", "required", "5-field");
  rejects(() => validateSchedule({ kind: "at", expr: "   " }, NOW), "schedule.expr", "ISO-8601");
  rejects(() => validateSchedule({ kind: "every", expr: 60 }, NOW), "schedule.expr", "interval");
  rejects(
    () => validateSchedule({ kind: "cron", expr: "0 ".repeat(150) }, NOW),
    "schedule.expr",
    "longer than 200",
  );
});

Deno.test("every: intervals, the 60-second floor and malformed input", () => {
  assert.equal(intervalMs("60s"), 60_000);
  assert.equal(intervalMs("90s"), 90_000);
  assert.equal(intervalMs("1m"), 60_000);
  assert.equal(intervalMs("2h"), 7_200_000);
  assert.equal(intervalMs("1d"), 86_400_000);
  assert.equal(intervalMs(" 15M "), 900_000);
  assert.equal(intervalMs("365d"), 365 * 86_400_000);
  rejects(() => intervalMs("59s"), "schedule.expr", "60-second floor");
  rejects(() => intervalMs("0m"), "schedule.expr", "60-second floor");
  rejects(() => validateSchedule({ kind: "every", expr: "30s" }, NOW), "schedule.expr", "floor");
  for (const bad of ["", "5", "m", "1.5h", "1h30m", "-5m", "5 minutes", "every 5m", "5w"]) {
    rejects(() => intervalMs(bad), "schedule.expr", "not an interval", "s, m, h or d");
  }
  rejects(() => intervalMs("366d"), "schedule.expr", "longer than 365d");
});

Deno.test("every: next fire is elapsed time and ignores DST", () => {
  const s: Schedule = { kind: "every", expr: "1h", tz: "America/New_York" };
  // Across the spring-forward jump the interval is still exactly one hour.
  assert.equal(isoZ(nextFire(s, new Date("2026-03-08T06:30:00Z"))!), "2026-03-08T07:30:00Z");
  assert.deepEqual(
    previewFires({ kind: "every", expr: "90m", tz: "UTC" }, new Date("2026-11-01T05:00:00Z"), 3)
      .map(isoZ),
    ["2026-11-01T06:30:00Z", "2026-11-01T08:00:00Z", "2026-11-01T09:30:00Z"],
  );
});

Deno.test("cron: bad expressions are refused with what to write instead", () => {
  const bad = (expr: string, ...parts: string[]) =>
    rejects(() => validateSchedule({ kind: "cron", expr }, NOW), "schedule.expr", ...parts);
  bad("0 30 9 * * *", "got 6", "seconds and year fields are not supported");
  bad("0 30 9 * * * 2027", "got 7");
  bad("9 * * *", "expected 5 fields");
  bad("tomorrow at 9", "natural language is not parsed");
  bad("every day at 9am", "natural language");
  bad("@daily", "nicknames", "`0 0 * * *`");
  bad("@hourly", "`0 * * * *`");
  bad("@reboot", "not a cron expression");
  bad("0 9 ? * *", '"?" is not supported');
  bad("0 9 L * *", "day-of-month", '"L" is not supported');
  bad("0 9 15W * *", '"W" is not supported');
  bad("0 9 * * 5#2", '"#" is not supported');
  bad("0 9 1 * +MON", '"+" is not supported');
  bad("0 9 * * JAN", "day-of-week", "SUN-SAT");
  bad("0 9 * MON *", "month", "JAN-DEC");
  bad("MON 9 * * *", "minute", "numbers only");
  bad("60 * * * *", "not a valid cron expression", "minute");
  bad("0 24 * * *", "hour");
  bad("0 0 32 * *", "not a valid cron expression");
  bad("0 0 * 13 *", "not a valid cron expression");
  bad("*/0 * * * *", "not a valid cron expression");
  bad("5-1 * * * *", "not a valid cron expression");
  bad("0 0 30 2 *", "never matches");
  bad("0 0 31 4,6,9,11 *", "never matches");
});

Deno.test("cron: names, lists, steps and Sunday as 7 are accepted", () => {
  for (const expr of ["0 9 * * mon-fri", "0 9 1 jan,jul *", "*/5 8-18 * * 1-5", "0 9 * * 7"]) {
    assert.equal(validateSchedule({ kind: "cron", expr }, NOW).expr, expr);
  }
  // 2026-03-07 is a Saturday, so Sunday (7) is 03-08.
  const sunday = validateSchedule({ kind: "cron", expr: "0 9 * * 7" }, NOW);
  assert.equal(isoZ(nextFire(sunday, new Date("2026-03-07T00:00:00Z"))!), "2026-03-08T09:00:00Z");
});

Deno.test("at: absolute and naive timestamps, normalized to UTC ISO-Z", () => {
  const at = (expr: string, tz?: string) =>
    validateSchedule(tz === undefined ? { kind: "at", expr } : { kind: "at", expr, tz }, NOW);
  assert.equal(at("2026-03-09T14:00:00Z").expr, "2026-03-09T14:00:00Z");
  assert.equal(at("2026-03-09t14:00z").expr, "2026-03-09T14:00:00Z");
  assert.equal(at("2026-03-09 14:00:00.750Z").expr, "2026-03-09T14:00:00Z");
  // An offset is absolute, even when that wall time does not exist in the job's zone.
  assert.equal(at("2026-03-08T02:30:00-05:00", "America/New_York").expr, "2026-03-08T07:30:00Z");
  assert.equal(at("2026-03-09T19:30+0530", "UTC").expr, "2026-03-09T14:00:00Z");
  // Naive: read in the zone (EDT on 03-09).
  assert.equal(at("2026-03-09T09:00", "America/New_York").expr, "2026-03-09T13:00:00Z");
  assert.equal(at("2026-03-09T09:00").expr, "2026-03-09T09:00:00Z");
  // Naive repeated time: first occurrence (EDT).
  assert.equal(at("2026-11-01T01:30", "America/New_York").expr, "2026-11-01T05:30:00Z");
  assert.equal(at("2026-04-05T01:45", "Australia/Lord_Howe").expr, "2026-04-04T14:45:00Z");
  // Normalized values validate again to themselves, in any zone.
  const s = at("2026-11-01T01:30", "America/New_York");
  assert.deepEqual(validateSchedule(s, NOW), s);
});

Deno.test("at: a naive time inside a gap is passed over to the gap's end (spec 2.3), and the note says so", () => {
  const gap = (expr: string, tz: string, stored: string, note: string) => {
    const s = validateSchedule({ kind: "at", expr, tz }, NOW);
    assert.equal(s.expr, stored);
    assert.equal(isoZ(nextFire(s, NOW)!), stored);
    assert.equal(passedOverNote({ kind: "at", expr, tz }, s), note);
  };
  gap(
    "2026-03-08T02:30",
    "America/New_York",
    "2026-03-08T07:00:00Z",
    "2026-03-08T02:30 does not exist in America/New_York (clocks jump from 02:00 to 03:00): " +
      "passed over to the next valid instant, 2026-03-08T03:00 America/New_York " +
      "(2026-03-08T07:00:00Z)",
  );
  gap(
    "2026-10-04T02:15",
    "Australia/Lord_Howe",
    "2026-10-03T15:30:00Z",
    "2026-10-04T02:15 does not exist in Australia/Lord_Howe (clocks jump from 02:00 to 02:30): " +
      "passed over to the next valid instant, 2026-10-04T02:30 Australia/Lord_Howe " +
      "(2026-10-03T15:30:00Z)",
  );
  const london = validateSchedule(
    { kind: "at", expr: "2026-03-29T01:30:15", tz: "Europe/London" },
    NOW,
  );
  assert.equal(london.expr, "2026-03-29T01:00:00Z");
  const santiago = validateSchedule(
    { kind: "at", expr: "2026-09-06T00:30", tz: "America/Santiago" },
    NOW,
  );
  assert.equal(santiago.expr, "2026-09-06T04:00:00Z");
  // The first instant after the gap exists: stored as given, with no note.
  const after = { kind: "at", expr: "2026-03-08T03:00", tz: "America/New_York" };
  const s = validateSchedule(after, NOW);
  assert.equal(s.expr, "2026-03-08T07:00:00Z");
  assert.equal(passedOverNote(after, s), null);
  // An absolute time is never moved, nor is a stored (normalized) schedule noted again.
  assert.equal(passedOverNote(s, validateSchedule(s, NOW)), null);
  // A gap instant already past is refused like any past time.
  rejects(
    () =>
      validateSchedule(
        { kind: "at", expr: "2026-03-08T02:30", tz: "America/New_York" },
        new Date("2026-03-08T08:00:00Z"),
      ),
    "schedule.expr",
    "2026-03-08T07:00:00Z is not in the future",
  );
});

Deno.test("at: past, present, malformed and natural-language input", () => {
  const bad = (expr: string, ...parts: string[]) =>
    rejects(() => validateSchedule({ kind: "at", expr }, NOW), "schedule.expr", ...parts);
  bad("2026-03-01T11:59:59Z", "not in the future", "now is 2026-03-01T12:00:00Z");
  bad("2026-03-01T12:00:00Z", "not in the future"); // now itself is not the future
  bad("2026-03-01T12:00:00.500Z", "not in the future"); // sub-seconds are dropped
  bad("tomorrow at 9", "not an ISO-8601 timestamp", "natural language is not parsed");
  bad("in 5 minutes", "natural language");
  bad("2026-03-09", "needs a time of day", "2026-03-09T09:00");
  bad("09:00", "not an ISO-8601 timestamp");
  bad("2026-02-30T09:00", "not a real date and time");
  bad("2026-13-01T00:00Z", "not a real date and time");
  bad("2026-03-09T25:00", "not a real date and time");
  bad("1741510800", "not an ISO-8601 timestamp");
  bad("2026-03-09T09:00[Europe/Paris]", "not an ISO-8601 timestamp");
});

Deno.test("nextFire for at: the instant while ahead, then null", () => {
  const s = validateSchedule({ kind: "at", expr: "2026-03-09T14:00:00Z" }, NOW);
  assert.equal(isoZ(nextFire(s, NOW)!), "2026-03-09T14:00:00Z");
  assert.equal(nextFire(s, new Date("2026-03-09T14:00:00Z")), null);
  assert.equal(nextFire(s, new Date("2026-04-01T00:00:00Z")), null);
  assert.deepEqual(previewFires(s, NOW, 5).map(isoZ), ["2026-03-09T14:00:00Z"]);
  assert.deepEqual(previewFires(s, new Date("2026-05-01T00:00:00Z"), 5), []);
});

Deno.test("nextFire checks schedules it did not validate", () => {
  rejects(
    () => nextFire({ kind: "cron", expr: "0 9 * * *", tz: "Nowhere/Land" }, NOW),
    "schedule.tz",
  );
  rejects(() => nextFire({ kind: "cron", expr: "0 9 * *", tz: "UTC" }, NOW), "schedule.expr");
  rejects(() => nextFire({ kind: "cron", expr: "0 0 30 2 *", tz: "UTC" }, NOW), "schedule.expr");
  rejects(() => nextFire({ kind: "every", expr: "10s", tz: "UTC" }, NOW), "schedule.expr");
  // A naive gap time in a stored row fires when the gap ends, as validation would store it.
  assert.equal(
    isoZ(nextFire({ kind: "at", expr: "2026-03-08T02:30", tz: "America/New_York" }, NOW)!),
    "2026-03-08T07:00:00Z",
  );
  rejects(
    () => nextFire({ kind: "at", expr: "2026-02-30T09:00", tz: "UTC" }, NOW),
    "schedule.expr",
    "not a real date",
  );
  rejects(
    () => nextFire({ kind: "hourly" as Schedule["kind"], expr: "1h", tz: "UTC" }, NOW),
    "schedule.kind",
  );
  assert.throws(
    () => nextFire({ kind: "every", expr: "1h", tz: "UTC" }, new Date(NaN)),
    RangeError,
  );
  // An unnormalized but valid cron still computes.
  assert.equal(
    isoZ(nextFire({ kind: "cron", expr: " 0  9 * * * ", tz: "utc" }, NOW)!),
    "2026-03-02T09:00:00Z",
  );
});

Deno.test("previewFires returns exactly count fires, ascending", () => {
  const s = validateSchedule({ kind: "cron", expr: "*/30 * * * *", tz: "America/New_York" }, NOW);
  const from = new Date("2026-11-01T04:50:00Z");
  assert.deepEqual(previewFires(s, from, 0), []);
  assert.equal(previewFires(s, from, 1).length, 1);
  const hundred = previewFires(s, from, 100);
  assert.equal(hundred.length, 100);
  for (let i = 1; i < hundred.length; i++) assert.ok(hundred[i]! > hundred[i - 1]!);
  assert.ok(hundred[0]! > from);
  assert.throws(() => previewFires(s, from, -1), RangeError);
  assert.throws(() => previewFires(s, from, 1.5), RangeError);
});
