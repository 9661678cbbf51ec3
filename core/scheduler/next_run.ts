// When a job fires next. `every` is anchored on its slot (the due time), not on when the
// tick happened to notice it or when the run ended, so intervals do not drift. After
// downtime that swallowed several slots, the job fires once and the next slot is computed
// from now (spec 3.1: missed fires collapse into one).

import { nextFire, type Schedule } from "./schedule.ts";
import { isoZ } from "../time.ts";

/** The first fire of a new (or re-scheduled, or re-enabled) job. Throws ScheduleError. */
export function firstRunAt(schedule: Schedule, now: Date): string | null {
  const next = nextFire(schedule, now);
  return next ? isoZ(next) : null;
}

/**
 * next_run_at after the slot `slot` fired at `now`: null for `at` (fires once), otherwise
 * the next slot after `slot`, or after `now` when that one is already past.
 * Throws ScheduleError when the schedule cannot be computed.
 */
export function nextRunAfterFire(schedule: Schedule, slot: Date, now: Date): string | null {
  if (schedule.kind === "at") return null;
  let next = nextFire(schedule, slot);
  if (next !== null && next.getTime() <= now.getTime()) next = nextFire(schedule, now);
  return next ? isoZ(next) : null;
}
