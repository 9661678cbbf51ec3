import assert from "node:assert/strict";
import { isoZ } from "./time.ts";

Deno.test("isoZ drops the milliseconds and keeps the Z, for ordinary and extreme years", () => {
  assert.equal(isoZ(new Date("2026-03-09T06:30:00.999Z")), "2026-03-09T06:30:00Z");
  assert.equal(isoZ(new Date(0)), "1970-01-01T00:00:00Z");
  assert.equal(isoZ(new Date("+012345-01-02T03:04:05.678Z")), "+012345-01-02T03:04:05Z");
  assert.equal(isoZ(new Date("-000001-01-01T00:00:00.000Z")), "-000001-01-01T00:00:00Z");
});
