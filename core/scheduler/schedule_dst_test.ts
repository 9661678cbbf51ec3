import assert from "node:assert/strict";
import { parseTimestamp, repeatEnd, resolveWall, wallAt, zoneId } from "./schedule_dst.ts";

const pdt = (s: string) => Temporal.PlainDateTime.from(s);

Deno.test("zoneId: IANA names case-normalized; offsets and unknown names refused", () => {
  assert.equal(zoneId("America/New_York"), "America/New_York");
  assert.equal(zoneId("america/new_york"), "America/New_York");
  assert.equal(zoneId("utc"), "UTC");
  assert.equal(zoneId("Asia/Kolkata"), "Asia/Kolkata");
  assert.equal(zoneId("+05:30"), null);
  assert.equal(zoneId("-0800"), null);
  assert.equal(zoneId("Nowhere/Land"), null);
  assert.equal(zoneId(""), null);
  assert.equal(zoneId("Local"), null);
});

Deno.test("resolveWall: gap gives its bounds, repeated gives the first instant", () => {
  const ny = "America/New_York";
  assert.deepEqual(resolveWall(pdt("2026-03-08T01:59"), ny), {
    kind: "exists",
    epochMs: Date.parse("2026-03-08T06:59:00Z"),
  });
  const gap = resolveWall(pdt("2026-03-08T02:30"), ny);
  assert.equal(gap.kind, "gap");
  if (gap.kind === "gap") {
    assert.equal(gap.gapStart.toString(), "2026-03-08T02:00:00");
    assert.equal(gap.gapEnd.toString(), "2026-03-08T03:00:00");
  }
  assert.deepEqual(resolveWall(pdt("2026-11-01T01:00"), ny), {
    kind: "exists",
    epochMs: Date.parse("2026-11-01T05:00:00Z"),
  });
  const lh = resolveWall(pdt("2026-10-04T02:00"), "Australia/Lord_Howe");
  assert.equal(lh.kind, "gap");
  if (lh.kind === "gap") assert.equal(lh.gapEnd.toString(), "2026-10-04T02:30:00");
});

Deno.test("repeatEnd: where the repeated stretch ends, null elsewhere", () => {
  assert.equal(
    repeatEnd(pdt("2026-11-01T01:30"), "America/New_York")?.toString(),
    "2026-11-01T02:00:00",
  );
  assert.equal(repeatEnd(pdt("2026-11-01T02:00"), "America/New_York"), null);
  assert.equal(repeatEnd(pdt("2026-07-01T01:30"), "America/New_York"), null);
  assert.equal(
    repeatEnd(pdt("2026-04-05T01:40"), "Australia/Lord_Howe")?.toString(),
    "2026-04-05T02:00:00",
  );
});

Deno.test("wallAt reads an instant in a zone", () => {
  assert.equal(
    wallAt(Date.parse("2026-11-01T06:10:00Z"), "America/New_York").toString(),
    "2026-11-01T01:10:00",
  );
  assert.equal(
    wallAt(Date.parse("2026-03-08T00:00:00Z"), "Asia/Kolkata").toString(),
    "2026-03-08T05:30:00",
  );
});

Deno.test("parseTimestamp: reasons for refusal", () => {
  assert.deepEqual(parseTimestamp("2026-03-09T09:00", "UTC"), {
    ok: true,
    epochMs: Date.parse("2026-03-09T09:00:00Z"),
  });
  assert.deepEqual(parseTimestamp("2026-03-09T09:00:00,9Z", "UTC"), {
    ok: true,
    epochMs: Date.parse("2026-03-09T09:00:00Z"),
  });
  const r = (text: string, tz = "UTC") => {
    const got = parseTimestamp(text, tz);
    return got.ok ? "ok" : got.reason;
  };
  assert.equal(r("next tuesday"), "format");
  assert.equal(r("2026-3-9T09:00"), "format");
  assert.equal(r("2026-02-29T09:00"), "range");
  assert.equal(r("2026-03-08T02:30", "America/New_York"), "gap");
  const long = parseTimestamp("x".repeat(500), "UTC");
  assert.ok(!long.ok && long.message.length < 300, "long input is cut short in the message");
});
