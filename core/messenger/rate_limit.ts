// The chat gate's limits (spec 8), counted by the shared sliding window (core/sliding_limiter.ts).

/** Commands a minute one operator may send. */
export const PER_SENDER = 30;
/** Commands a minute that may name one target (a job, an inbox item). */
export const PER_TARGET = 5;
