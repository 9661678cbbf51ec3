// format.ts makes no Intl object at import: the first one loads ICU's locale data, several MiB
// of resident memory the outpost would carry from start-up (issue 16). Counts still group.

import assert from "node:assert/strict";

Deno.test("importing format.ts builds no Intl formatter; count() builds one on first use", async () => {
  const Original = Intl.NumberFormat;
  let made = 0;
  // A counting stand-in for the constructor, restored after the test.
  const Counting = function (...args: ConstructorParameters<typeof Intl.NumberFormat>) {
    made++;
    return new Original(...args);
  } as unknown as typeof Intl.NumberFormat;
  Intl.NumberFormat = Counting;
  try {
    // A query makes a fresh module instance, so its top level runs under the stand-in.
    const format: typeof import("./format.ts") = await import(`./format.ts?fresh=${Date.now()}`);
    assert.equal(made, 0, "format.ts built an Intl.NumberFormat at import");
    assert.equal(format.count(12345), "12,345");
    assert.equal(format.count(7), "7");
    assert.equal(format.count(null), "—");
    assert.equal(made, 0, "whole counts are grouped without a formatter");
    assert.equal(format.count(1234.5), "1,234.5");
    assert.equal(format.count(-1234), "-1,234");
    assert.equal(made, 1, "one formatter, reused");
  } finally {
    Intl.NumberFormat = Original;
  }
});

Deno.test("count() groups whole numbers exactly as Intl does", async () => {
  const { count } = await import("./format.ts");
  const intl = new Intl.NumberFormat("en-US");
  const values = [0, -0, 1, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10_000, 99_999, 100_000];
  for (let p = 6; p <= 15; p++) values.push(10 ** p - 1, 10 ** p, 10 ** p + 1, 3 * 10 ** p + 7);
  values.push(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 1, 1e21, -5, -1000, 0.5, NaN);
  values.push(Infinity, -Infinity, 1234.5678);
  for (const n of values) assert.equal(count(n), intl.format(n), `count(${n})`);
});

Deno.test("utcSeconds and shortTime read every text as Date does", async () => {
  const { shortTime, utcSeconds } = await import("./format.ts");
  const viaDate = (iso: string) => {
    const ms = Date.parse(iso);
    return Number.isNaN(ms) ? null : new Date(ms).toISOString().slice(0, 19).replace("T", " ");
  };
  const texts = [
    "2026-03-02T09:00:15Z",
    "2026-03-02T09:00:15.123Z",
    "2026-03-02T09:00:15.1Z",
    "2026-03-02T09:00Z",
    "2026-03-02T09:00:15+02:00",
    "2026-03-02",
    "2026-02-28T23:59:59Z",
    "2026-02-29T10:00:00Z", // rolls over to March 1st
    "2026-02-30T10:00:00Z",
    "2024-02-29T10:00:00Z",
    "2026-04-31T10:00:00Z",
    "2026-12-31T23:59:59.999Z",
    "2026-01-01T24:00:00Z",
    "2026-01-01T23:60:00Z",
    "2026-01-01T23:59:60Z",
    "2026-13-01T10:00:00Z",
    "2026-00-01T10:00:00Z",
    "2026-01-00T10:00:00Z",
    "0000-01-01T00:00:00Z",
    "garbage",
    "",
  ];
  for (let d = 1; d <= 31; d++) texts.push(`2026-11-${String(d).padStart(2, "0")}T08:07:06Z`);
  for (const text of texts) {
    assert.equal(utcSeconds(text), viaDate(text), text);
    const want = viaDate(text);
    assert.equal(shortTime(text), text && want ? `${want.slice(0, 16)} UTC` : "—", text);
  }
});
