// A time limit on the injected clock: the task gets a signal that aborts when the limit
// passes, and the caller gets a DeadlineError instead of waiting on. No timer is left behind.

import type { Clock } from "./ports.ts";

export class DeadlineError extends Error {
  override readonly name = "DeadlineError";
  readonly ms: number;
  constructor(what: string, ms: number) {
    super(`${what} took over ${ms} ms`);
    this.ms = ms;
  }
}

export async function withDeadline<T>(
  clock: Clock,
  ms: number,
  what: string,
  task: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const abort = new AbortController();
  const timer = new AbortController();
  const expired = clock.sleep(ms, timer.signal).then(
    () => {
      const err = new DeadlineError(what, ms);
      abort.abort(err);
      throw err;
    },
    () => new Promise<never>(() => {}), // timer cancelled: the task settled first
  );
  try {
    // The task starts in a microtask so one that throws synchronously still rejects here.
    return await Promise.race([Promise.resolve().then(() => task(abort.signal)), expired]);
  } finally {
    timer.abort();
  }
}

/** Waits for `promise` to settle, or until `signal` aborts, whichever comes first; never rejects. */
export function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      signal.removeEventListener("abort", done);
      resolve();
    };
    signal.addEventListener("abort", done, { once: true });
    void promise.then(done, done);
  });
}
