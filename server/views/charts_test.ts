// The charts' axis: ticks from 0 to a round top at or above the tallest bar, at 1/2/5 steps,
// whole steps for counts; an hour's bar links to exactly that hour's runs.

import assert from "node:assert/strict";
import { hourLink, niceTicks } from "./charts.tsx";

Deno.test("niceTicks: from 0 to a round top at or above the maximum", () => {
  for (const max of [1, 3, 7, 10, 11, 99, 1234, 0.0123, 0.5, 86_000]) {
    const t = niceTicks(max);
    assert.equal(t[0], 0, `${max}`);
    assert.ok(t.at(-1)! >= max, `${max}: top ${t.at(-1)}`);
    assert.ok(t.length >= 3 && t.length <= 6, `${max}: ${t}`);
    const step = t[1]! - t[0]!;
    assert.ok(t.every((v, i) => Math.abs(v - i * step) < step * 1e-6), `${max}: ${t}`);
  }
  assert.deepEqual(niceTicks(1, true), [0, 1]);
  assert.deepEqual(niceTicks(2, true), [0, 1, 2]);
  assert.ok(niceTicks(7, true).every(Number.isInteger));
  assert.deepEqual(niceTicks(0), [0, 1]);
});

Deno.test("hourLink names the hour and the next one, across midnight", () => {
  assert.equal(hourLink("2026-03-02T09"), "/runs?from=2026-03-02T09:00&to=2026-03-02T10:00");
  assert.equal(hourLink("2026-03-02T23"), "/runs?from=2026-03-02T23:00&to=2026-03-03T00:00");
});
