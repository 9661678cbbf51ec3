// The one Wire interface the agent loop talks to, and the wire-neutral history it keeps.
// History is stored neutrally and rendered per wire, which is what makes a
// cross-provider model swap possible mid-conversation.

import type { Endpoint, ThinkingType, WireKind } from "../settings/types.ts";

export type JsonSchema = Record<string, unknown>;

export type Part =
  | { type: "text"; text: string }
  /** Reasoning the model showed. `signature` (Messages wire) must be sent back verbatim. */
  | { type: "reasoning"; text: string; signature?: string }
  /** Opaque redacted thinking (Messages wire); echoed back only to the Messages wire. */
  | { type: "redacted_reasoning"; data: string }
  /**
   * `raw_arguments` is set only when the arguments text did not parse as a JSON object
   * (cut off by max_tokens, or malformed): `input` is then {} and the loop never runs the call.
   */
  | {
    type: "tool_call";
    id: string;
    name: string;
    input: Record<string, unknown>;
    raw_arguments?: string;
  }
  | {
    type: "tool_result";
    call_id: string;
    /** The result as text; an attached image also has a placeholder line here. */
    content: string;
    is_error?: boolean;
    /** Images a tool returned (MCP): sent on the Messages wire; others see the placeholder. */
    images?: ImageAttachment[];
  };

/** A call the model made; the loop runs it (or says why not) and answers with a tool_result. */
export type ToolCallPart = Extract<Part, { type: "tool_call" }>;

/** A base64 image carried with a tool result. */
export interface ImageAttachment {
  media_type: string;
  data: string;
}

/** user messages carry text and tool_result parts; assistant messages carry the rest. */
export interface Message {
  role: "user" | "assistant";
  parts: Part[];
}

export interface ToolSpec {
  name: string;
  description: string;
  input_schema: JsonSchema;
}

/**
 * Token counts of one response, the same on both wires: `input_tokens` excludes cached
 * prompt tokens (Chat Completions' prompt_tokens minus prompt_tokens_details.cached_tokens;
 * Messages' input_tokens as sent), so the whole prompt is input + cache_read + cache_creation.
 */
export interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
}

export type StopReason =
  | "end_turn"
  | "tool_use"
  | "max_tokens"
  | "stop_sequence"
  | "refusal"
  | "other";

export interface WireRequest {
  /** Sent verbatim, including the `default` sentinel. */
  model: string;
  /** The frozen system prompt (cached prefix on the Messages wire). */
  system: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  /** Force one tool (a structuring call); grammar-constrained on self-hosted servers. */
  force_tool?: string;
  /** Volatile per-turn text (memory recall), appended to the last user turn, never to `system`. */
  reminder?: string;
  /**
   * A per-session value that keeps a session's requests on one prompt cache: Chat Completions'
   * `prompt_cache_key`, sent only to hosted OpenAI (api.openai.com), which documents it.
   */
  cache_key?: string;
  /** Reasoning effort level from the backend's vocabulary (see effort.ts); absent = server default. */
  effort?: string;
  max_tokens?: number;
  signal?: AbortSignal;
}

/** Streamed events. Exactly one `done` ends a successful stream; failures throw WireError. */
export type WireEvent =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  /** A tool call's name became known (its arguments are still streaming). */
  | { type: "tool_call"; id: string; name: string }
  | { type: "usage"; usage: Usage }
  | {
    type: "done";
    message: Message;
    stop_reason: StopReason;
    usage: Usage;
    /** The model name the server reported (response.model), when it did. */
    model?: string;
  };

export interface ServedModel {
  id: string;
  max_model_len?: number;
}

/** What a wire needs to reach its endpoint (built by core/settings/keys.ts). */
export type { Endpoint } from "../settings/types.ts";

/** Knobs that travel on every request of one wire. */
export interface WireOptions {
  temperature?: number;
  top_p?: number;
  top_k?: number;
  enable_thinking?: boolean;
  request_priority?: number;
  max_tokens?: number;
  thinking_type: ThinkingType;
  strict_tools: boolean;
}

export interface Wire {
  readonly kind: WireKind;
  readonly endpoint: Endpoint;
  stream(req: WireRequest): AsyncIterable<WireEvent>;
  /** GET /v1/models; null on transport errors or an empty listing (a silent no-op). */
  listModels(signal?: AbortSignal): Promise<ServedModel[] | null>;
  /**
   * The whole prompt's input tokens as the server counts them (spec 4.3 rule 5), rendered
   * exactly as stream() would send `req`. Null when the server cannot say: no counting
   * endpoint (remembered per wire after a 404/405), a transport error, a non-2xx answer or a
   * malformed body. Never throws for server trouble; an abort of `signal` (default
   * `req.signal`) rejects with the signal's reason. There is no built-in timeout.
   */
  countTokens(req: WireRequest, signal?: AbortSignal): Promise<number | null>;
  /** Why the last countTokens() gave null, short enough for one line; unset after a count. */
  readonly countProblem?: string | undefined;
  /**
   * The reply cap a request without its own max_tokens gets (the Messages wire always sends
   * one); undefined when the server decides. The token budget may lower a request's cap,
   * never raise it above this (a server refuses a cap above the model's own).
   */
  readonly defaultMaxTokens?: number | undefined;
}
