// Turns Messages stream events (message_start, content_block_start/delta/stop,
// message_delta, message_stop, ping, error) into WireEvents and the final assistant Message.
// Thinking text and its signature are kept verbatim: the next request must send them back.

import { droppedError, streamError } from "./errors.ts";
import type { SseSink } from "./sse.ts";
import { readToolArguments } from "./strict_tools.ts";
import type { Message, Part, StopReason, Usage, WireEvent } from "./types.ts";

type Block =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "redacted_thinking"; data: string }
  | {
    type: "tool_use";
    id: string;
    name: string;
    json: string;
    parsed?: { input: Record<string, unknown>; invalid?: string };
  }
  | { type: "ignored" };

interface RawUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
}

interface StreamEvent {
  type?: string;
  index?: number;
  message?: { model?: string; usage?: RawUsage };
  content_block?: Record<string, unknown>;
  delta?: Record<string, unknown>;
  usage?: RawUsage;
  error?: { type?: string; message?: string };
}

const NON_RETRYABLE_ERRORS = new Set([
  "invalid_request_error",
  "authentication_error",
  "permission_error",
  "not_found_error",
  "request_too_large",
]);

export class MessagesAssembler implements SseSink {
  /** Events produced by onEvent, drained by the wire after each network read. */
  readonly events: WireEvent[] = [];
  #url: string;
  #blocks: Block[] = [];
  #usage: Usage = { input_tokens: 0, output_tokens: 0 };
  #sawUsage = false;
  #model: string | undefined;
  #stop: string | undefined;
  #complete = false;

  constructor(url: string) {
    this.#url = url;
  }

  /** True once message_stop arrived; the caller stops reading. */
  get complete(): boolean {
    return this.#complete;
  }

  onEvent(data: string): void {
    this.push(data, this.events);
  }

  /** Handles one SSE event's data, appending any WireEvents to `out`. */
  push(data: string, out: WireEvent[]): void {
    if (this.#complete) return;
    let ev: StreamEvent;
    try {
      ev = JSON.parse(data) as StreamEvent;
    } catch {
      throw streamError(this.#url, `an event is not valid JSON: ${data.slice(0, 200)}`, false);
    }
    switch (ev.type) {
      case "message_start":
        if (ev.message?.model) this.#model = ev.message.model;
        if (ev.message?.usage) {
          this.#mergeUsage(ev.message.usage);
          out.push({ type: "usage", usage: { ...this.#usage } });
        }
        break;
      case "content_block_start":
        this.#start(ev, out);
        break;
      case "content_block_delta":
        this.#delta(ev, out);
        break;
      case "content_block_stop": {
        const block = this.#blocks[ev.index ?? -1];
        if (block?.type === "tool_use") block.parsed = readToolArguments(block.json);
        break;
      }
      case "message_delta": {
        const stop = ev.delta?.stop_reason;
        if (typeof stop === "string") this.#stop = stop;
        if (ev.usage) this.#mergeUsage(ev.usage);
        break;
      }
      case "message_stop":
        this.#complete = true;
        break;
      case "error": {
        const type = ev.error?.type ?? "error";
        const message = ev.error?.message ?? "unknown error";
        throw streamError(this.#url, `${type}: ${message}`, !NON_RETRYABLE_ERRORS.has(type));
      }
      default:
        break; // ping and future event types
    }
  }

  #start(ev: StreamEvent, out: WireEvent[]): void {
    const cb = ev.content_block ?? {};
    const index = ev.index ?? this.#blocks.length;
    let block: Block;
    switch (cb.type) {
      case "text":
        block = { type: "text", text: str(cb.text) };
        if (block.text) out.push({ type: "text", text: block.text });
        break;
      case "thinking":
        block = { type: "thinking", thinking: str(cb.thinking), signature: str(cb.signature) };
        if (block.thinking) out.push({ type: "reasoning", text: block.thinking });
        break;
      case "redacted_thinking":
        block = { type: "redacted_thinking", data: str(cb.data) };
        break;
      case "tool_use":
        block = { type: "tool_use", id: str(cb.id), name: str(cb.name), json: "" };
        // Some servers put the whole input in the start block instead of streaming it.
        if (isRecord(cb.input) && Object.keys(cb.input).length > 0) {
          block.json = JSON.stringify(cb.input);
        }
        out.push({ type: "tool_call", id: block.id, name: block.name });
        break;
      default:
        block = { type: "ignored" }; // server tools, citations blocks, …
    }
    this.#blocks[index] = block;
  }

  #delta(ev: StreamEvent, out: WireEvent[]): void {
    const block = this.#blocks[ev.index ?? -1];
    const d = ev.delta ?? {};
    if (!block) return;
    switch (d.type) {
      case "text_delta":
        if (block.type === "text" && typeof d.text === "string") {
          block.text += d.text;
          out.push({ type: "text", text: d.text });
        }
        break;
      case "thinking_delta":
        if (block.type === "thinking" && typeof d.thinking === "string") {
          block.thinking += d.thinking;
          out.push({ type: "reasoning", text: d.thinking });
        }
        break;
      case "signature_delta":
        if (block.type === "thinking" && typeof d.signature === "string") {
          block.signature += d.signature;
        }
        break;
      case "input_json_delta":
        if (block.type === "tool_use" && typeof d.partial_json === "string") {
          block.json += d.partial_json;
        }
        break;
      default:
        break; // citations_delta and future deltas
    }
  }

  // message_delta usage is cumulative, so later values replace earlier ones.
  #mergeUsage(u: RawUsage): void {
    if (typeof u.input_tokens === "number") this.#usage.input_tokens = u.input_tokens;
    if (typeof u.output_tokens === "number") this.#usage.output_tokens = u.output_tokens;
    if (typeof u.cache_read_input_tokens === "number") {
      this.#usage.cache_read_tokens = u.cache_read_input_tokens;
    }
    if (typeof u.cache_creation_input_tokens === "number") {
      this.#usage.cache_write_tokens = u.cache_creation_input_tokens;
    }
    this.#sawUsage = true;
  }

  /** Ends the response. A stream with neither message_stop nor a stop_reason was cut off. */
  finish(): WireEvent[] {
    if (!this.#complete && this.#stop === undefined) throw droppedError(this.#url);
    const parts: Part[] = [];
    for (const block of this.#blocks) {
      if (!block) continue;
      switch (block.type) {
        case "text":
          if (block.text) parts.push({ type: "text", text: block.text });
          break;
        case "thinking":
          parts.push(
            block.signature
              ? { type: "reasoning", text: block.thinking, signature: block.signature }
              : { type: "reasoning", text: block.thinking },
          );
          break;
        case "redacted_thinking":
          parts.push({ type: "redacted_reasoning", data: block.data });
          break;
        case "tool_use": {
          const { input, invalid } = block.parsed ?? readToolArguments(block.json);
          parts.push(
            invalid === undefined ? { type: "tool_call", id: block.id, name: block.name, input } : {
              type: "tool_call",
              id: block.id,
              name: block.name,
              input,
              raw_arguments: invalid,
            },
          );
          break;
        }
        default:
          break;
      }
    }
    const usage = { ...this.#usage };
    const message: Message = { role: "assistant", parts };
    const stop_reason = mapStop(this.#stop, parts);
    const done: WireEvent = this.#model === undefined
      ? { type: "done", message, stop_reason, usage }
      : { type: "done", message, stop_reason, usage, model: this.#model };
    return this.#sawUsage ? [{ type: "usage", usage }, done] : [done];
  }
}

function mapStop(stop: string | undefined, parts: Part[]): StopReason {
  switch (stop) {
    case "end_turn":
    case "tool_use":
    case "max_tokens":
    case "stop_sequence":
    case "refusal":
      return stop;
    case "model_context_window_exceeded":
      return "max_tokens";
    case undefined:
      return parts.some((p) => p.type === "tool_call") ? "tool_use" : "end_turn";
    default:
      return "other"; // pause_turn and future reasons
  }
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
