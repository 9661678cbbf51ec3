// DST vectors for cron schedules. Expected fires were derived from each zone's rules
// (2026 transitions noted per block) and cross-checked by converting the expected instants
// back to wall time with Temporal, not copied from this implementation's output.

import assert from "node:assert/strict";
import { previewFires, type Schedule, validateSchedule } from "./schedule.ts";
import { isoZ } from "../time.ts";
import { wallAt } from "./schedule_dst.ts";

const NOW = new Date("2026-01-01T00:00:00Z");

function cron(expr: string, tz: string): Schedule {
  return validateSchedule({ kind: "cron", expr, tz }, NOW);
}

function fires(expr: string, tz: string, from: string, count: number): string[] {
  return previewFires(cron(expr, tz), new Date(from), count).map(isoZ);
}

// America/New_York: 2026-03-08 02:00 EST -> 03:00 EDT; 2026-11-01 02:00 EDT -> 01:00 EST.
Deno.test("design.md vectors, America/New_York 2026", () => {
  const ny = "America/New_York";
  // 2026-03-08 02:30 does not exist: skipped, not moved to 03:00.
  assert.deepEqual(fires("30 2 * * *", ny, "2026-03-07T12:00:00Z", 2), [
    "2026-03-09T06:30:00Z",
    "2026-03-10T06:30:00Z",
  ]);
  assert.deepEqual(fires("0 * * * *", ny, "2026-03-08T06:30:00Z", 1), ["2026-03-08T07:00:00Z"]);
  // 01:30 happens twice on 2026-11-01: fires at the first (EDT) one only.
  assert.deepEqual(fires("30 1 * * *", ny, "2026-10-31T12:00:00Z", 2), [
    "2026-11-01T05:30:00Z",
    "2026-11-02T06:30:00Z",
  ]);
  // A step pattern does not fire again in the second pass of 01:00-02:00.
  assert.deepEqual(fires("*/30 * * * *", ny, "2026-11-01T04:50:00Z", 4), [
    "2026-11-01T05:00:00Z",
    "2026-11-01T05:30:00Z",
    "2026-11-01T07:00:00Z",
    "2026-11-01T07:30:00Z",
  ]);
});

Deno.test("America/New_York: starting inside the gap's neighbourhood and the second pass", () => {
  const ny = "America/New_York";
  // From 01:10 EST (second pass): 01:30 already fired at 05:30Z, next is 02:00 EST.
  assert.deepEqual(fires("*/30 * * * *", ny, "2026-11-01T06:10:00Z", 2), [
    "2026-11-01T07:00:00Z",
    "2026-11-01T07:30:00Z",
  ]);
  assert.deepEqual(fires("* * * * *", ny, "2026-11-01T06:10:00Z", 1), ["2026-11-01T07:00:00Z"]);
  // Every minute across the spring gap: 01:59 EST, then 03:00 EDT.
  assert.deepEqual(fires("* * * * *", ny, "2026-03-08T06:58:00Z", 3), [
    "2026-03-08T06:59:00Z",
    "2026-03-08T07:00:00Z",
    "2026-03-08T07:01:00Z",
  ]);
  // Strictly after: starting exactly on a fire gives the following one.
  assert.deepEqual(fires("30 2 * * *", ny, "2026-03-09T06:30:00Z", 1), ["2026-03-10T06:30:00Z"]);
  // Sub-second start just past a fire.
  assert.deepEqual(fires("30 2 * * *", ny, "2026-03-09T06:30:00.001Z", 1), [
    "2026-03-10T06:30:00Z",
  ]);
});

// Australia/Lord_Howe: +10:30 standard, +11 summer (a 30-minute shift).
// 2026-04-05 02:00 LHDT -> 01:30 LHST; 2026-10-04 02:00 LHST -> 02:30 LHDT.
Deno.test("Australia/Lord_Howe: 30-minute gap and repeat", () => {
  const lh = "Australia/Lord_Howe";
  // 02:15 on 10-04 is in the gap: skipped.
  assert.deepEqual(fires("15 2 * * *", lh, "2026-10-02T12:00:00Z", 2), [
    "2026-10-02T15:45:00Z",
    "2026-10-04T15:15:00Z",
  ]);
  // 02:00 itself is in the gap (croner would fire at 02:30 instead).
  assert.deepEqual(fires("0 2 * * *", lh, "2026-10-03T00:00:00Z", 1), ["2026-10-04T15:00:00Z"]);
  // 02:30 is the first valid time after the gap and does fire.
  assert.deepEqual(fires("30 2 * * *", lh, "2026-10-03T12:00:00Z", 1), ["2026-10-03T15:30:00Z"]);
  // 01:30-02:00 repeats on 04-05; the second pass is passed over.
  assert.deepEqual(fires("*/15 * * * *", lh, "2026-04-04T14:20:00Z", 4), [
    "2026-04-04T14:30:00Z",
    "2026-04-04T14:45:00Z",
    "2026-04-04T15:30:00Z",
    "2026-04-04T15:45:00Z",
  ]);
  assert.deepEqual(fires("45 1 * * *", lh, "2026-04-03T12:00:00Z", 3), [
    "2026-04-03T14:45:00Z",
    "2026-04-04T14:45:00Z",
    "2026-04-05T15:15:00Z",
  ]);
});

// Australia/Sydney (southern hemisphere): 2026-04-05 03:00 AEDT -> 02:00 AEST;
// 2026-10-04 02:00 AEST -> 03:00 AEDT.
Deno.test("Australia/Sydney: southern-hemisphere transitions", () => {
  const syd = "Australia/Sydney";
  assert.deepEqual(fires("30 2 * * *", syd, "2026-10-02T12:00:00Z", 2), [
    "2026-10-02T16:30:00Z",
    "2026-10-04T15:30:00Z",
  ]);
  assert.deepEqual(fires("0 * * * *", syd, "2026-10-03T15:30:00Z", 2), [
    "2026-10-03T16:00:00Z",
    "2026-10-03T17:00:00Z",
  ]);
  assert.deepEqual(fires("30 2 * * *", syd, "2026-04-03T12:00:00Z", 3), [
    "2026-04-03T15:30:00Z",
    "2026-04-04T15:30:00Z",
    "2026-04-05T16:30:00Z",
  ]);
  // A step limited to hour 2: 02:00 already fired in the first pass (15:00Z) before the
  // start; the second pass 02:00-02:40 AEST does not fire; the next day does.
  assert.deepEqual(fires("*/20 2 * * *", syd, "2026-04-04T15:10:00Z", 3), [
    "2026-04-04T15:20:00Z",
    "2026-04-04T15:40:00Z",
    "2026-04-05T16:00:00Z",
  ]);
});

// America/Santiago: transitions at local midnight. 2026-04-05 00:00 -03 -> 04-04 23:00 -04;
// 2026-09-06 00:00 -04 -> 01:00 -03.
Deno.test("America/Santiago: midnight gap and repeated last hour of the day", () => {
  const scl = "America/Santiago";
  assert.deepEqual(fires("0 0 * * *", scl, "2026-09-05T12:00:00Z", 2), [
    "2026-09-07T03:00:00Z",
    "2026-09-08T03:00:00Z",
  ]);
  assert.deepEqual(fires("30 23 * * *", scl, "2026-04-04T12:00:00Z", 2), [
    "2026-04-05T02:30:00Z",
    "2026-04-06T03:30:00Z",
  ]);
});

// Europe/London: 2026-03-29 01:00 GMT -> 02:00 BST; 2026-10-25 02:00 BST -> 01:00 GMT.
Deno.test("Europe/London: lists and ranges follow the same policy", () => {
  const lon = "Europe/London";
  assert.deepEqual(fires("30 1 * * *", lon, "2026-03-28T00:00:00Z", 2), [
    "2026-03-28T01:30:00Z",
    "2026-03-30T00:30:00Z",
  ]);
  assert.deepEqual(fires("0,30 1 * * *", lon, "2026-10-24T12:00:00Z", 4), [
    "2026-10-25T00:00:00Z",
    "2026-10-25T00:30:00Z",
    "2026-10-26T01:00:00Z",
    "2026-10-26T01:30:00Z",
  ]);
  assert.deepEqual(fires("0 1-2 * * *", lon, "2026-10-24T23:30:00Z", 3), [
    "2026-10-25T00:00:00Z",
    "2026-10-25T02:00:00Z",
    "2026-10-26T01:00:00Z",
  ]);
});

Deno.test("UTC and Asia/Kolkata sanity", () => {
  // 2026-03-06 is a Friday.
  assert.deepEqual(fires("0 9 * * 1-5", "UTC", "2026-03-06T10:00:00Z", 2), [
    "2026-03-09T09:00:00Z",
    "2026-03-10T09:00:00Z",
  ]);
  assert.deepEqual(fires("0 9 * * MON-FRI", "UTC", "2026-03-06T10:00:00Z", 1), [
    "2026-03-09T09:00:00Z",
  ]);
  assert.deepEqual(fires("0 0 29 2 *", "UTC", "2026-01-01T00:00:00Z", 1), [
    "2028-02-29T00:00:00Z",
  ]);
  assert.deepEqual(fires("0 9 * * *", "Asia/Kolkata", "2026-03-08T00:00:00Z", 2), [
    "2026-03-08T03:30:00Z",
    "2026-03-09T03:30:00Z",
  ]);
});

/** All fires in [start, end) for a whole-year sweep. */
function sweep(expr: string, tz: string, start: string, end: string): Date[] {
  const s = cron(expr, tz);
  const out: Date[] = [];
  const stop = new Date(end).getTime();
  let cursor = new Date(new Date(start).getTime() - 1);
  for (;;) {
    const [next] = previewFires(s, cursor, 1);
    if (!next || next.getTime() >= stop) return out;
    out.push(next);
    cursor = next;
  }
}

function assertOncePerWallTime(list: Date[], tz: string): void {
  const seen = new Set<string>();
  for (let i = 0; i < list.length; i++) {
    const d = list[i]!;
    if (i > 0) assert.ok(d > list[i - 1]!, "fires strictly increase");
    const wall = wallAt(d.getTime(), tz).toString();
    assert.ok(!seen.has(wall), `wall time ${wall} fired twice`);
    seen.add(wall);
  }
}

Deno.test("year sweep: each existing wall time fires exactly once (New York, */30)", () => {
  const tz = "America/New_York";
  // Local year 2026 runs from 05:00Z on 01-01 to 05:00Z on 2027-01-01.
  const list = sweep("*/30 * * * *", tz, "2026-01-01T05:00:00Z", "2027-01-01T05:00:00Z");
  // 365 days x 48 slots, minus 02:00 and 02:30 on 03-08; the repeated hour adds nothing.
  assert.equal(list.length, 365 * 48 - 2);
  assertOncePerWallTime(list, tz);
  for (const d of list) assert.equal(wallAt(d.getTime(), tz).minute % 30, 0);
});

Deno.test("year sweep: Lord Howe */15 and a daily time inside the gap", () => {
  const tz = "Australia/Lord_Howe";
  // Local year 2026 starts at 2025-12-31T13:00Z (+11) and ends 2026-12-31T13:00Z (+11).
  const list = sweep("*/15 * * * *", tz, "2025-12-31T13:00:00Z", "2026-12-31T13:00:00Z");
  // 365 x 96 slots, minus 02:00 and 02:15 on 10-04.
  assert.equal(list.length, 365 * 96 - 2);
  assertOncePerWallTime(list, tz);
  const daily = sweep("15 2 * * *", tz, "2025-12-31T13:00:00Z", "2026-12-31T13:00:00Z");
  assert.equal(daily.length, 364);
  assertOncePerWallTime(daily, tz);
});
