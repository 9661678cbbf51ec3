// The HTTP half shared by both wires: POST with retries (429/5xx with exponential backoff,
// Retry-After honored), then the response body as SSE events, guarded by an idle watchdog.
// Time comes from the injected Clock so tests drive backoff and timeouts with a FakeClock.

import { type Clock, systemClock, type WireFetch, type WireResponse } from "../ports.ts";
import type { WireKind } from "../settings/types.ts";
import {
  droppedError,
  httpError,
  idleTimeoutError,
  isRetryableStatus,
  serverMessage,
  transportError,
  WireError,
} from "./errors.ts";
import type { Endpoint } from "./types.ts";
import { timingMark } from "../timing_marks.ts";

export interface RetryPolicy {
  /** Retries after the first attempt (so maxRetries + 1 attempts in all). */
  maxRetries: number;
  /** First backoff delay; doubles per retry. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for; the error is raised at once. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/** Queued requests on a busy self-hosted server send nothing until scheduled: be generous. */
export const DEFAULT_IDLE_TIMEOUT_MS = 600_000;

/** The outside world a wire uses; every field has a production default. */
export interface WireDeps {
  fetch?: WireFetch;
  clock?: Clock;
  retry?: Partial<RetryPolicy>;
  /** Give up when nothing arrives for this long (0 disables). */
  idleTimeoutMs?: number;
}

export interface ResolvedDeps {
  fetch: WireFetch;
  clock: Clock;
  retry: RetryPolicy;
  idleTimeoutMs: number;
}

export function resolveDeps(deps: WireDeps = {}): ResolvedDeps {
  return {
    fetch: deps.fetch ?? ((input, init) => fetch(input, init)),
    clock: deps.clock ?? systemClock,
    retry: { ...DEFAULT_RETRY, ...deps.retry },
    idleTimeoutMs: deps.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
  };
}

/** The auth header an endpoint asks for (none when there is no key, e.g. a local vLLM). */
export function authHeaders(endpoint: Endpoint): Record<string, string> {
  if (!endpoint.api_key) return {};
  return endpoint.auth_style === "x-api-key"
    ? { "x-api-key": endpoint.api_key }
    : { authorization: `Bearer ${endpoint.api_key}` };
}

export interface SseRequest {
  wire: WireKind;
  endpoint: Endpoint;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal?: AbortSignal | undefined;
}

/** Milliseconds the server asked us to wait (retry-after-ms, Retry-After seconds or date). */
export function retryAfterMs(headers: WireResponse["headers"], now: Date): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * POSTs the request and yields the response body's chunks (the caller parses SSE). Every
 * failure is a WireError, except a caller abort, which rethrows the signal's reason.
 */
export async function* postStream(deps: ResolvedDeps, req: SseRequest): AsyncGenerator<Uint8Array> {
  const internal = new AbortController();
  const signal = req.signal ? AbortSignal.any([req.signal, internal.signal]) : internal.signal;
  const dog = new Watchdog(deps.clock, deps.idleTimeoutMs, () => internal.abort());
  const fail = (e: unknown, wrap: (e: unknown) => WireError): never => {
    if (req.signal?.aborted) throw req.signal.reason;
    if (dog.fired) throw idleTimeoutError(req.url, deps.idleTimeoutMs);
    if (e instanceof WireError) throw e;
    throw wrap(e);
  };
  dog.start();
  try {
    const res = await postWithRetry(deps, req, signal, dog, fail);
    const body = res.body;
    if (!body) throw droppedError(req.url);
    const reader = body.getReader();
    let finished = false;
    try {
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await reader.read();
        } catch (e) {
          return fail(e, (c) => droppedError(req.url, c));
        }
        if (chunk.done) break;
        // The idle clock measures the server only, not a slow consumer of our events.
        dog.pause();
        yield chunk.value;
        dog.resume();
      }
      finished = true;
    } finally {
      if (!finished) reader.cancel().catch(() => {});
      reader.releaseLock();
    }
  } finally {
    dog.stop();
  }
}

async function postWithRetry(
  deps: ResolvedDeps,
  req: SseRequest,
  signal: AbortSignal,
  dog: Watchdog,
  fail: (e: unknown, wrap: (e: unknown) => WireError) => never,
): Promise<WireResponse> {
  const payload = JSON.stringify(req.body);
  const headers = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...req.headers,
  };
  const keySent = Boolean(req.endpoint.api_key);
  for (let attempt = 1;; attempt++) {
    let res: WireResponse;
    try {
      timingMark("request");
      res = await deps.fetch(req.url, { method: "POST", headers, body: payload, signal });
      timingMark("response");
    } catch (e) {
      return fail(e, (c) => transportError(req.url, c));
    }
    dog.touch();
    if (res.ok && isJson(res)) {
      // A server or proxy that ignored stream: true, or a 200 carrying an error object.
      const text = await res.text().catch(() => "");
      throw new WireError(
        `Expected an event stream from ${req.url} but got JSON: ${serverMessage(text)}`,
        { kind: "stream", url: req.url, retryable: false, body: text.slice(0, 2000) },
      );
    }
    if (res.ok) return res;
    let text = "";
    try {
      text = await res.text();
    } catch { /* the error body is best effort */ }
    const hint = res.headers.get("x-should-retry");
    const retryable = hint === "true" || (hint !== "false" && isRetryableStatus(res.status));
    const failure = {
      wire: req.wire,
      endpoint: req.endpoint,
      url: req.url,
      status: res.status,
      bodyText: text,
      keySent,
      attempts: attempt,
      retryable,
    };
    if (!retryable || attempt > deps.retry.maxRetries) throw httpError(failure);
    const asked = retryAfterMs(res.headers, deps.clock.now());
    if (asked !== undefined && asked > deps.retry.maxRetryAfterMs) {
      const err = httpError(failure);
      err.message += ` The server asked to wait ${Math.ceil(asked / 1000)} s before retrying.`;
      throw err;
    }
    const delay = asked ??
      Math.min(deps.retry.maxDelayMs, deps.retry.baseDelayMs * 2 ** (attempt - 1));
    dog.pause();
    try {
      if (delay > 0) await deps.clock.sleep(delay, signal);
    } catch (e) {
      return fail(e, (c) => transportError(req.url, c));
    }
    dog.resume();
  }
}

function isJson(res: WireResponse): boolean {
  return (res.headers.get("content-type") ?? "").includes("application/json");
}

/** Fires once when nothing has happened for `ms` while armed. One sleeper at a time. */
class Watchdog {
  fired = false;
  #last = 0;
  #armed = true;
  #stop = new AbortController();

  constructor(
    private readonly clock: Clock,
    private readonly ms: number,
    private readonly onFire: () => void,
  ) {}

  start(): void {
    if (this.ms <= 0) return;
    this.#last = this.clock.now().getTime();
    this.#loop().catch(() => {}); // rejected only by stop()
  }

  async #loop(): Promise<void> {
    while (!this.#stop.signal.aborted) {
      const wait = this.#armed ? this.#last + this.ms - this.clock.now().getTime() : this.ms;
      if (this.#armed && wait <= 0) {
        this.fired = true;
        this.onFire();
        return;
      }
      await this.clock.sleep(wait, this.#stop.signal);
    }
  }

  touch(): void {
    if (this.ms > 0) this.#last = this.clock.now().getTime();
  }

  pause(): void {
    this.#armed = false;
  }

  resume(): void {
    this.#armed = true;
    this.touch();
  }

  stop(): void {
    this.#stop.abort();
  }
}
