// When a job fires next. `every` is anchored on its slot (the due time), not on when the
// tick happened to notice it or when the run ended, so intervals do not drift. After
// downtime that swallowed several slots, the job fires once and the next slot is computed
// from now (spec 3.1: missed fires collapse into one).

import { intervalMs, nextFire, type Schedule } from "./schedule.ts";
import { isoZ } from "../time.ts";

/** The first fire of a new (or re-scheduled, or re-enabled) job. Throws ScheduleError. */
export function firstRunAt(schedule: Schedule, now: Date): string | null {
  const next = nextFire(schedule, now);
  return next ? isoZ(next) : null;
}

/**
 * next_run_at of a job enabled again (a resume after a pause, a dead-letter cleared). An
 * `every` keeps its phase: the first slot strictly after `now` of the series its stored
 * `previous` slot belongs to, so pause then resume does not shift the schedule (slots missed
 * while paused are not fired). A cron is phase-locked to the clock anyway; it and a job with
 * no stored slot start from now. Throws ScheduleError.
 */
export function resumedRunAt(
  schedule: Schedule,
  previous: string | null,
  now: Date,
): string | null {
  const slot = previous === null ? NaN : Date.parse(previous);
  if (schedule.kind !== "every" || !Number.isFinite(slot)) return firstRunAt(schedule, now);
  const step = intervalMs(schedule.expr);
  const missed = slot > now.getTime() ? 0 : Math.floor((now.getTime() - slot) / step) + 1;
  return isoZ(new Date(slot + missed * step));
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
