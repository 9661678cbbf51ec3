// A zone's current stretch of constant UTC offset, cached, so the cron path can read wall
// clocks and place wall-clock times with plain arithmetic instead of Temporal objects:
// between two transitions, wall = instant + offset. Near a transition (a gap, a repeated
// stretch) the answer is left to the Temporal code in schedule_dst.ts. The 30-day
// simulation computes a cron fire ~25,000 times; Temporal was most of each one.

/** [fromMs, toMs): instants whose offset in the zone is offsetMs. */
interface Stretch {
  fromMs: number;
  toMs: number;
  offsetMs: number;
}

// One stretch per zone (the last one asked for): fires move forward through time, and a
// zone changes offset at most a few times a year.
const stretches = new Map<string, Stretch>();
const STRETCHES_MAX = 512;

// No two UTC offsets in the zone database are more than 26 hours apart (-12:00 to +14:00).
// A wall time placed at least this far after its stretch began cannot also have happened
// in an earlier stretch, nor fall in the gap that began it.
const MARGIN_MS = 2 * 86_400_000;

function stretchAt(epochMs: number, tz: string): Stretch | null {
  const hit = stretches.get(tz);
  if (hit && epochMs >= hit.fromMs && epochMs < hit.toMs) return hit;
  const zoned = Temporal.Instant.fromEpochMilliseconds(epochMs).toZonedDateTimeISO(tz);
  const offsetMs = zoned.offsetNanoseconds / 1e6;
  if (!Number.isInteger(offsetMs)) return null; // sub-millisecond offsets: Temporal only
  const previous = zoned.getTimeZoneTransition("previous");
  const next = zoned.getTimeZoneTransition("next");
  const stretch = {
    // No previous transition: the offset has always been this one. The previous one starts
    // this stretch only if it led to this offset (an instant exactly on a transition gets
    // the one before it); else the stretch is known from here.
    fromMs: previous === null
      ? -Infinity
      : previous.offsetNanoseconds === zoned.offsetNanoseconds
      ? previous.epochMilliseconds
      : epochMs,
    toMs: next ? next.epochMilliseconds : Infinity,
    offsetMs,
  };
  if (stretches.size >= STRETCHES_MAX) stretches.clear();
  stretches.set(tz, stretch);
  return stretch;
}

/** The wall-clock time `epochMs` reads in `tz`, as epoch ms of that time read as UTC. */
export function wallMsAt(epochMs: number, tz: string): number | null {
  const stretch = stretchAt(epochMs, tz);
  return stretch ? epochMs + stretch.offsetMs : null;
}

/**
 * The only instant the wall-clock time `wallMs` (epoch ms of that time read as UTC) has in
 * `tz`, when it lies well inside the zone's cached stretch; null when it may be near a
 * transition (a gap, a repeat) or outside the cached stretch: ask Temporal then.
 */
export function plainInstantOfWall(wallMs: number, tz: string): number | null {
  const stretch = stretches.get(tz);
  if (!stretch) return null;
  const at = wallMs - stretch.offsetMs;
  return at >= stretch.fromMs + MARGIN_MS && at < stretch.toMs ? at : null;
}
