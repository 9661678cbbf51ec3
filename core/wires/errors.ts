// WireError: every way a model call can fail, with a message that says what went wrong
// and what to do about it. The explanations live here so both wires word them alike.

import type { WireKind } from "../settings/types.ts";
import type { Endpoint } from "./types.ts";

export type WireErrorKind = "http" | "transport" | "stream" | "timeout";

export interface WireErrorInit {
  kind: WireErrorKind;
  url: string;
  retryable: boolean;
  status?: number;
  /** The server's error text, trimmed (for logs and `--verbose`). */
  body?: string;
  /** How many HTTP attempts were made before giving up. */
  attempts?: number;
  cause?: unknown;
}

export class WireError extends Error {
  override name = "WireError";
  readonly kind: WireErrorKind;
  readonly status?: number;
  readonly url: string;
  readonly retryable: boolean;
  readonly body?: string;
  readonly attempts?: number;

  constructor(message: string, init: WireErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = init.kind;
    this.url = init.url;
    this.retryable = init.retryable;
    if (init.status !== undefined) this.status = init.status;
    if (init.body !== undefined) this.body = init.body;
    if (init.attempts !== undefined) this.attempts = init.attempts;
  }
}

/** Statuses worth retrying with backoff: timeouts, conflicts, rate limits, server errors. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

const SAMPLING_KNOBS = ["temperature", "top_p", "top_k"];

export interface HttpFailure {
  wire: WireKind;
  endpoint: Endpoint;
  url: string;
  status: number;
  bodyText: string;
  /** Whether an API key was sent with the request. */
  keySent: boolean;
  attempts: number;
  /** Overrides the status-based verdict (the server's x-should-retry header). */
  retryable?: boolean;
}

/** Builds the explained WireError for a non-2xx answer. */
export function httpError(f: HttpFailure): WireError {
  const serverSays = serverMessage(f.bodyText);
  const head = `${f.status} from POST ${f.url}` + (serverSays ? `: ${serverSays}` : "");
  const lower = f.bodyText.toLowerCase();
  let advice = "";
  if (f.status === 401 || f.status === 403) {
    const where = f.endpoint.key_hint ?? "the provider's key settings";
    advice = f.keySent
      ? `The server rejected the API key. The key was taken from ${where}; ` +
        `replace it with /providers${f.endpoint.preset ? ` ${f.endpoint.preset}` : ""}.`
      : `No API key was sent: none was found in ${where}. ` +
        `Enter one with /providers${f.endpoint.preset ? ` ${f.endpoint.preset}` : ""}.`;
  } else if (f.status === 400 && lower.includes("no connected db")) {
    // LiteLLM's proxy with a master key but no database answers an unknown key this way.
    const where = f.endpoint.key_hint ?? "the provider's key settings";
    advice = `A LiteLLM proxy without a database answers a key it does not know this way: ` +
      `check the API key (taken from ${where}).`;
  } else if (f.status === 404 && f.wire === "messages") {
    advice = trimmedV1(f.endpoint.base_url)
      ? `base_url "${f.endpoint.base_url}" ends in /v1; the Messages wire trims it and posts to ` +
        `{base_url without /v1}/v1/messages, and this server has no route there. If the server ` +
        `only speaks Chat Completions, set provider = "chat_completions" ` +
        `(AGENT_PROVIDER=chat_completions); otherwise set base_url to the server root without /v1.`
      : `This server has no Messages route at ${f.url}. Check base_url, or set ` +
        `provider = "chat_completions" (AGENT_PROVIDER=chat_completions) if it only speaks ` +
        `Chat Completions.`;
  } else if (f.status === 404) {
    advice = `Check base_url ("${f.endpoint.base_url}") and the model name.`;
  } else if (f.status === 400 && lower.includes("priority")) {
    advice = `The server does not run priority scheduling. Unset request_priority ` +
      `(AGENT_REQUEST_PRIORITY), or start the server with priority scheduling ` +
      `(vLLM: --scheduling-policy priority).`;
  } else if (f.status === 400 && f.wire === "messages" && lower.includes("budget_tokens")) {
    advice = `budget_tokens goes out only with thinking.type = "enabled", and this server ` +
      `refuses it; set thinking.type = "adaptive" (the default) or "disabled" in settings.toml.`;
  } else if (
    f.status === 400 && f.wire === "messages" && SAMPLING_KNOBS.some((k) => lower.includes(k))
  ) {
    advice = `The Messages wire accepts no per-request sampling (temperature, top_p, top_k); ` +
      `set sampling on the server instead.`;
  } else if (f.status === 400 && f.wire === "messages" && lower.includes("reasoning_effort")) {
    // Gateways (LiteLLM) translate the Messages `thinking` field into reasoning_effort for a
    // backend that may not take it; the setting that sends `thinking` is what to change.
    advice = `A gateway translated the request's thinking setting into reasoning_effort, which ` +
      `its backend refuses. Set thinking.type = "disabled" in settings.toml (then no thinking ` +
      `field is sent), or let the gateway drop unsupported parameters (LiteLLM: drop_params).`;
  } else if (f.status === 400 && f.wire === "messages" && lower.includes("thinking")) {
    advice = `The server rejected the thinking settings; try thinking.type = "adaptive" ` +
      `(the default) or "disabled" in settings.toml.`;
  } else if (f.retryable ?? isRetryableStatus(f.status)) {
    advice = f.attempts > 1
      ? `Gave up after ${f.attempts} attempts; try again later.`
      : `The server is busy or failing; try again later.`;
  }
  // The server's own text may already end in a full stop; never print two.
  return new WireError(advice ? `${head.replace(/[.\s]+$/, "")}. ${advice}` : head, {
    kind: "http",
    status: f.status,
    url: f.url,
    retryable: f.retryable ?? isRetryableStatus(f.status),
    body: f.bodyText.slice(0, 2000),
    attempts: f.attempts,
  });
}

/** A failure before any HTTP answer (refused, DNS, TLS, reset while connecting). */
export function transportError(url: string, cause: unknown): WireError {
  const text = causeChain(cause);
  const refused = /connection refused|ECONNREFUSED|os error 111/i.test(text);
  const message = refused
    ? `Could not connect to ${url}: connection refused. Is the model server running ` +
      `and is base_url right?`
    : `Could not reach ${url}: ${text}. Check base_url and the network.`;
  return new WireError(message, { kind: "transport", url, retryable: true, cause });
}

/** The connection ended before the response was complete. */
export function droppedError(url: string, cause?: unknown): WireError {
  const why = cause instanceof Error ? ` (${cause.message})` : "";
  return new WireError(
    `The model server closed the stream from ${url} before the response finished${why}. ` +
      `The turn was not completed; retry it.`,
    { kind: "stream", url, retryable: true, cause },
  );
}

/** The server sent an error in the middle of a stream. */
export function streamError(url: string, message: string, retryable: boolean): WireError {
  return new WireError(`The model server reported an error mid-stream from ${url}: ${message}`, {
    kind: "stream",
    url,
    retryable,
  });
}

/** Nothing arrived on the stream for `ms` milliseconds. */
export function idleTimeoutError(url: string, ms: number): WireError {
  return new WireError(
    `No data from ${url} for ${Math.round(ms / 1000)} s; gave up waiting. The server may be ` +
      `overloaded or stuck.`,
    { kind: "timeout", url, retryable: true },
  );
}

/** "fetch failed: <the real reason>" — fetch hides the useful part in `cause`. */
function causeChain(e: unknown): string {
  const parts: string[] = [];
  let cur: unknown = e;
  for (let i = 0; i < 4 && cur !== undefined && cur !== null; i++) {
    parts.push(cur instanceof Error ? cur.message : String(cur));
    cur = cur instanceof Error ? cur.cause : undefined;
  }
  return parts.join(": ");
}

/** The `message` of a JSON error body from either wire, or the raw text trimmed. */
export function serverMessage(bodyText: string): string {
  const text = bodyText.trim();
  if (!text) return "";
  try {
    const parsed: unknown = JSON.parse(text);
    const found = findMessage(parsed);
    if (found) return found;
  } catch { /* not JSON */ }
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function findMessage(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (!value || typeof value !== "object") return undefined;
  const obj = value as Record<string, unknown>;
  if (typeof obj.message === "string") return obj.message;
  if (typeof obj.detail === "string") return obj.detail;
  if (obj.error !== undefined) return findMessage(obj.error);
  return undefined;
}

function trimmedV1(base: string): boolean {
  return /\/v1\/*$/.test(base);
}

/**
 * Whether a 400 says the prompt does not fit the server's context window, in the wordings of
 * llama-server (exceed_context_size_error), vLLM ("maximum context length"), OpenAI
 * (context_length_exceeded) and the Messages API ("prompt is too long").
 */
export function isContextOverflow(err: unknown): boolean {
  if (!(err instanceof WireError) || err.status !== 400) return false;
  const text = `${err.body ?? ""} ${err.message}`.toLowerCase();
  return CONTEXT_OVERFLOW_WORDINGS.some((w) => text.includes(w));
}

const CONTEXT_OVERFLOW_WORDINGS = [
  "exceed_context_size_error",
  "exceeds the available context size",
  "context_length_exceeded",
  "maximum context length",
  "prompt is too long",
];

/** Whether a 400/404 says the requested model name is not served. */
export function isUnknownModel(err: unknown): boolean {
  if (!(err instanceof WireError) || (err.status !== 400 && err.status !== 404)) return false;
  const text = `${err.body ?? ""}`.toLowerCase();
  return /invalid model name|model .{0,80}(does not exist|not found)|model_not_found|unknown model/
    .test(text);
}
