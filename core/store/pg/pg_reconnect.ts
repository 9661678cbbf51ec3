// How long the PostgreSQL store waits for a server that stopped answering (a restart, a cut
// network) before a statement or a transaction is tried again, and when it gives up. The
// store is synchronous (core/store/README.md: "PostgreSQL: a synchronous bridge"), so the
// wait between tries is a blocking sleep of the calling thread, like its wait for a reply.
//
// One outage has one bound: it is counted from the first failure, so in a long outage only
// the first caller waits the whole bound and every later one fails at once (one connect
// attempt each) until the server answers again. A server that never answered this connection
// is not waited for: that is a wrong URL or a server not started, said at once at open.

/** The sleeps between tries, in ms; the last repeats. */
const BACKOFF_MS = [50, 100, 200, 400, 800, 1000] as const;

const sleeper = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the calling thread for `ms` (Atomics.wait on a word nobody changes). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(sleeper, 0, 0, ms);
}

export class Reconnect {
  readonly boundMs: number;
  /** When the current outage began (performance.now()), or null while the server answers. */
  #since: number | null = null;
  #tries = 0;
  #lastFailure = "";
  #everAnswered = false;

  constructor(boundMs: number) {
    this.boundMs = boundMs;
  }

  /** A reply came: the outage, if any, is over. */
  answered(): void {
    this.#everAnswered = true;
    this.#since = null;
    this.#tries = 0;
  }

  /** The server was lost (`message`: why). */
  lost(message: string): void {
    this.#since ??= performance.now();
    this.#lastFailure = message;
  }

  /**
   * Sleeps before the next try and returns true, or returns false at once when the outage
   * has lasted the bound (the caller gives up with `gaveUp()`).
   */
  waitAgain(): boolean {
    if (!this.#everAnswered) return false;
    const since = this.#since ?? performance.now();
    const left = since + this.boundMs - performance.now();
    if (left <= 0) return false;
    const delay = BACKOFF_MS[Math.min(this.#tries++, BACKOFF_MS.length - 1)]!;
    sleepSync(Math.min(delay, left));
    return true;
  }

  /** The one line a caller gets when the server did not come back within the bound. */
  gaveUp(): string {
    if (!this.#everAnswered) return `PostgreSQL: ${this.#lastFailure}`;
    const seconds = Math.round(this.boundMs / 100) / 10;
    return `PostgreSQL did not answer again within ${seconds} s (${this.#lastFailure})`;
  }
}
