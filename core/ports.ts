// The outside world, injected. Production code receives these; tests pass fakes
// (tests/fakes/clock.ts) so nothing patches Deno globals or sleeps to wait.

/** Wall clock plus a cancellable timer, so schedulers can run on virtual time. */
export interface Clock {
  now(): Date;
  /** Resolves after `ms` of this clock's time; rejects with the signal's reason if aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The real clock. Its sleep is an AbortSignal.timeout, not a setTimeout: the first setTimeout
 * of a Deno 2.9 process loads Node's timers layer (4–7 ms and ~2 MiB of a one-turn `agent -p`,
 * measured with scripts/bench_processes.ts --marks). Deno keeps the process alive while a
 * timeout signal has an abort listener, and no longer once it is removed, so this sleep holds
 * the process like a timer and a cancelled one leaves nothing behind (core/ports_test.ts).
 */
export const systemClock: Clock = {
  now: () => new Date(),
  sleep: async (ms, signal) => {
    // A timer fires at once beyond 2^31-1 ms (about 24.8 days): longer waits go in pieces.
    let left = Math.max(0, ms);
    do {
      const piece = Math.min(left, MAX_TIMER_MS);
      await timeoutSleep(piece, signal);
      left -= piece;
    } while (left > 0);
  },
};

const MAX_TIMER_MS = 2 ** 31 - 1;

function timeoutSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = AbortSignal.timeout(ms);
    const onTime = () => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    };
    const onAbort = () => {
      timer.removeEventListener("abort", onTime);
      reject(signal?.reason);
    };
    timer.addEventListener("abort", onTime, { once: true });
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Read-only view of environment variables. */
export interface Env {
  get(name: string): string | undefined;
  toObject(): Record<string, string>;
}

export const processEnv: Env = {
  get: (name) => Deno.env.get(name),
  toObject: () => Deno.env.toObject(),
};

export function envFrom(values: Record<string, string | undefined>): Env {
  const clean: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) clean[k] = v;
  return { get: (name) => clean[name], toObject: () => ({ ...clean }) };
}

/** The fetch function used for every outbound HTTP call (model servers, Matrix, push). */
export type Fetch = typeof fetch;

/**
 * How the wires call a model server: fetch itself fits, and so does the plain-http client
 * (core/wires/plain_http.ts), which answers with only what the wires read of a response.
 */
export type WireFetch = (url: string, init?: WireRequestInit) => Promise<WireResponse>;

export interface WireRequestInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** What the wires read of an HTTP response: a subset of fetch's Response. */
export interface WireResponse {
  readonly ok: boolean;
  readonly status: number;
  readonly headers: { get(name: string): string | null };
  readonly body: { getReader(): WireReader; cancel(reason?: unknown): Promise<void> } | null;
  text(): Promise<string>;
  json(): Promise<unknown>;
}

export interface WireReader {
  read(): Promise<ReadableStreamReadResult<Uint8Array>>;
  cancel(reason?: unknown): Promise<void>;
  releaseLock(): void;
}

/** A child process started in its own process group. */
export interface SpawnRequest {
  command: string;
  args: string[];
  cwd?: string;
  env: Record<string, string>;
  /** Where the child's stdout and stderr are appended; omitted means discarded. */
  logPath?: string;
  /**
   * When set, stdout is captured into `SpawnedProcess.stdout` instead of the log, keeping at
   * most this many bytes (the tail: a result printed at exit survives chatter before it).
   */
  captureStdout?: number;
}

export interface SpawnedProcess {
  readonly pid: number;
  /** Resolves with the exit code (128 + signal number when killed by a signal). */
  readonly exited: Promise<number>;
  /** Captured stdout when the request set `captureStdout`; resolves once stdout closes. */
  readonly stdout?: Promise<string>;
  /** SIGKILL the whole process group. Safe to call after exit. */
  killGroup(): void;
}

export interface Spawner {
  spawn(req: SpawnRequest): SpawnedProcess;
}
