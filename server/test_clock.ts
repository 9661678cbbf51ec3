// A test-only clock for whole-process tests (issue 32: the DST vectors across three outpost
// processes). AGENT_OUTPOST_TEST_CLOCK="<virtual> <real> <speed>" makes this process's clock
// read the ISO instant <virtual> at the real ISO instant <real> and run <speed> times as fast
// as the wall clock (sleeps shortened to match), so a test can walk a daylight-saving change
// months away in seconds. Several processes given the same value agree on the time, as the
// nodes of a fleet do. Unset (always, outside tests), the outpost runs on the system clock.
//
// It changes only what this process's own clock reads: lease times come from the database's
// clock (core/fleet/pg_fleet.ts), never this one. The outpost says so on stderr at start, so
// a clock set by mistake cannot go unnoticed (docs/fleet.md, "Testing a fleet's schedules").

import type { Clock } from "../core/ports.ts";

export const TEST_CLOCK_ENV = "AGENT_OUTPOST_TEST_CLOCK";

/** The clock the outpost runs on: `base` unless the test variable is set. Throws one line. */
export function outpostClock(value: string | undefined, base: Clock): Clock {
  const text = value?.trim();
  if (!text) return base;
  const [virtual, real, speed, ...rest] = text.split(/\s+/);
  const virtualMs = Date.parse(virtual ?? "");
  const realMs = Date.parse(real ?? "");
  const factor = Number(speed);
  if (
    rest.length > 0 || !isIso(virtual) || !isIso(real) || !Number.isFinite(virtualMs) ||
    !Number.isFinite(realMs) || !(factor >= 1 && factor <= 10_000)
  ) {
    throw new Error(
      `${TEST_CLOCK_ENV}: expected "<virtual ISO instant> <real ISO instant> <speed 1..10000>", ` +
        `got ${JSON.stringify(text)}`,
    );
  }
  return {
    now: () => new Date(virtualMs + (base.now().getTime() - realMs) * factor),
    sleep: (ms, signal) => base.sleep(ms / factor, signal),
  };
}

/** A whole instant with its zone: `2026-03-29T00:40:00Z`, `…+02:00`. */
function isIso(text: string | undefined): boolean {
  return /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/.test(text ?? "");
}
