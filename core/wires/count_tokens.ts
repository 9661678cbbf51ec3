// Token counting with the server (spec 4.3 rule 5), shared by both wires:
// - Messages: POST {base without /v1}/v1/messages/count_tokens → { "input_tokens": N }
// - Chat Completions: vLLM's POST {base without /v1}/tokenize → { "count": N, ... }
// Each wire renders the body from the same render as its real request (so the count matches
// what would be sent) and keeps only the fields the endpoint documents. Counting is
// advisory: every server problem becomes null plus a short reason, never an exception. A
// 404/405 means the server has no such endpoint (hosted Chat Completions servers have no
// /tokenize); it is remembered per wire instance so the endpoint is never asked again. So is a
// 200 that holds a `tokens` list but no count: llama-server has a /tokenize of its own that
// takes only `content`, so it answers vLLM's chat-form body with {"tokens": []} every time.

import type { WireFetch, WireResponse } from "../ports.ts";
import { errorText } from "../logger.ts";
import { serverMessage } from "./errors.ts";

/** Statuses that mean "this server has no counting endpoint" (remembered, never retried). */
const ABSENT_STATUSES = new Set([404, 405]);

export const ABSENT_REASON = "the server has no token-counting endpoint";
export const UNUSABLE_REASON =
  "the server's counting endpoint does not take this request form (it answered an empty " +
  "token list)";

/** The body fields /v1/messages/count_tokens documents (max_tokens, stream, … are refused). */
export const COUNT_TOKENS_FIELDS: readonly string[] = [
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
  "cache_control",
  "speed",
];

/**
 * The body fields of vLLM's chat-form /tokenize request we may send (TokenizeChatRequest:
 * model, messages, tools, chat_template_kwargs, add_generation_prompt; the rest we never set).
 */
export const TOKENIZE_FIELDS: readonly string[] = [
  "model",
  "messages",
  "tools",
  "chat_template_kwargs",
  "add_generation_prompt",
];

/** `body` reduced to `fields`, in the order of `fields`. */
export function pickFields(
  body: Record<string, unknown>,
  fields: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (body[f] !== undefined) out[f] = body[f];
  return out;
}

export interface CountCall {
  headers: Record<string, string>;
  body: Record<string, unknown>;
  signal?: AbortSignal | undefined;
}

/** One counting endpoint of one wire instance, with its absent-endpoint memory. */
export class TokenCountEndpoint {
  readonly url: string;
  #fetch: WireFetch;
  #field: string;
  #absent = false;
  #absentReason = ABSENT_REASON;
  #problem: string | undefined;

  /** `field` is the response's count: "input_tokens" (Messages) or "count" (vLLM). */
  constructor(fetchFn: WireFetch, url: string, field: string) {
    this.#fetch = fetchFn;
    this.url = url;
    this.#field = field;
  }

  /** True once the server answered 404/405: the endpoint is not asked again. */
  get absent(): boolean {
    return this.#absent;
  }

  /** Why the last count() gave null; undefined after a successful count. */
  get problem(): string | undefined {
    return this.#problem;
  }

  async count(call: CountCall): Promise<number | null> {
    if (this.#absent) return this.#fail(this.#absentReason);
    const signal = call.signal;
    const aborted = () => signal?.aborted === true;
    let res: WireResponse;
    try {
      res = await this.#fetch(this.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json",
          ...call.headers,
        },
        body: JSON.stringify(call.body),
        ...(signal ? { signal } : {}),
      });
    } catch (e) {
      if (aborted()) throw signal?.reason;
      return this.#fail(`the server could not be reached (${clip(errorText(e))})`);
    }
    let text: string;
    try {
      text = await res.text();
    } catch (e) {
      if (aborted()) throw signal?.reason;
      return this.#fail(`the answer was cut off (${clip(errorText(e))})`);
    }
    if (ABSENT_STATUSES.has(res.status)) {
      this.#absent = true;
      return this.#fail(ABSENT_REASON);
    }
    if (!res.ok) {
      const said = serverMessage(text);
      return this.#fail(`HTTP ${res.status}${said ? `: ${clip(said)}` : ""}`);
    }
    const n = readCount(text, this.#field);
    if (n === null && answersAnotherForm(text, this.#field)) {
      this.#absent = true;
      this.#absentReason = UNUSABLE_REASON;
      return this.#fail(UNUSABLE_REASON);
    }
    if (n === null) return this.#fail(`the answer had no "${this.#field}" number`);
    this.#problem = undefined;
    return n;
  }

  #fail(problem: string): null {
    this.#problem = problem;
    return null;
  }
}

function readCount(text: string, field: string): number | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
  const n = (parsed as Record<string, unknown>)[field];
  return typeof n === "number" && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/**
 * A 200 with an empty `tokens` list and no count: a /tokenize for another request form that
 * found nothing to tokenize in ours (a real prompt is never zero tokens).
 */
function answersAnotherForm(text: string, field: string): boolean {
  try {
    const parsed: unknown = JSON.parse(text);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return false;
    const body = parsed as Record<string, unknown>;
    return Array.isArray(body.tokens) && body.tokens.length === 0 && !(field in body);
  } catch {
    return false;
  }
}

function clip(text: string): string {
  const one = text.replace(/\s+/g, " ").trim();
  return one.length > 120 ? `${one.slice(0, 120)}…` : one;
}
