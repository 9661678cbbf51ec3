// The arithmetic shortcut of zone_offsets.ts agrees with Temporal (schedule_dst.ts) around
// real transitions: spring-forward gaps, fall-back repeats, Lord Howe's 30-minute shift and
// Samoa's skipped day; and it is really taken away from them.

import assert from "node:assert/strict";
import { resolveWall, wallAt } from "./schedule_dst.ts";
import { plainInstantOfWall, wallMsAt } from "./zone_offsets.ts";

const HOUR = 3_600_000;

function utcOf(t: Temporal.PlainDateTime): number {
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.millisecond);
}

function plainOf(ms: number): Temporal.PlainDateTime {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO("UTC").toPlainDateTime();
}

const CASES: [string, string][] = [
  ["America/New_York", "2026-03-08T07:00:00Z"], // spring forward, 02:00 -> 03:00
  ["America/New_York", "2026-11-01T06:00:00Z"], // fall back, 01:00-02:00 twice
  ["Australia/Lord_Howe", "2026-04-04T15:00:00Z"], // back 30 minutes
  ["Australia/Lord_Howe", "2026-10-03T15:30:00Z"], // forward 30 minutes
  ["Pacific/Apia", "2011-12-30T10:00:00Z"], // 29 December 2011 -> 31 December: a day skipped
];

Deno.test("wall clock and first instant match Temporal across transitions, every 10 minutes", () => {
  let shortcuts = 0;
  for (const [tz, transition] of CASES) {
    const around = Date.parse(transition);
    for (let t = around - 3 * 24 * HOUR; t <= around + 3 * 24 * HOUR; t += HOUR / 6) {
      // Walking forward and jumping back both refresh the cached stretch.
      for (const at of [t, around - (t - around)]) {
        assert.equal(wallMsAt(at, tz), utcOf(wallAt(at, tz)), `${tz} wall at ${at}`);
        const wall = utcOf(wallAt(at, tz)) + 7 * 60_000;
        const fast = plainInstantOfWall(wall, tz);
        if (fast === null) continue;
        shortcuts++;
        const slow = resolveWall(plainOf(wall), tz);
        assert.deepEqual({ kind: "exists", epochMs: fast }, slow, `${tz} ${plainOf(wall)}`);
      }
    }
  }
  assert.ok(shortcuts > 2000, `the shortcut was taken (${shortcuts} times)`);
});

Deno.test("a repeated or missing wall time is never answered by the shortcut", () => {
  const ny = "America/New_York";
  wallMsAt(Date.parse("2026-11-01T07:00:00Z"), ny); // cache the EST stretch that starts at 06:00Z
  assert.equal(plainInstantOfWall(Date.parse("2026-11-01T01:30:00Z"), ny), null, "repeated");
  wallMsAt(Date.parse("2026-03-08T08:00:00Z"), ny); // the EDT stretch from 07:00Z
  assert.equal(plainInstantOfWall(Date.parse("2026-03-08T02:30:00Z"), ny), null, "in the gap");
  assert.equal(
    plainInstantOfWall(Date.parse("2026-03-12T09:00:00Z"), ny),
    Date.parse("2026-03-12T13:00:00Z"),
    "four days on, plain arithmetic",
  );
  wallMsAt(0, "UTC");
  assert.equal(plainInstantOfWall(1_000, "UTC"), 1_000, "UTC has no transitions");
});
