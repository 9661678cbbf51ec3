// The fake's Messages side: request invariants the real Messages API enforces (required
// max_tokens and anthropic-version, no sampling knobs, no unknown top-level fields, tool
// results answering earlier calls, signed thinking replayed unmodified, no thinking with a
// forced tool), and the rendering of a scripted reply as Messages stream events
// (message_start, ping, content_block_start/delta/stop, message_delta, message_stop).

import { MessagesPromptCache } from "./prompt_cache.ts";
import type { Rejection, StreamAction } from "./model_server_chat.ts";
import {
  fakeSignature,
  type ReplyBuilder,
  roughTokens,
  signatureMatches,
  splitFragments,
  splitPieces,
} from "./model_server_reply.ts";

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const ALLOWED_KEYS = new Set([
  "model",
  "messages",
  "max_tokens",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
  "stream",
  "metadata",
  "stop_sequences",
  "service_tier",
]);
const SAMPLING = ["temperature", "top_p", "top_k"];

export function checkMessagesRequest(body: unknown, headers: Headers): Rejection | null {
  const base = checkVersionAndBody(body, headers);
  if (base) return base;
  if (!isRecord(body)) return { status: 400, message: "the body must be a JSON object" };
  for (const knob of SAMPLING) {
    if (knob in body) {
      return {
        status: 400,
        message: `${knob} is not supported on this model; sampling is set on the server`,
      };
    }
  }
  const thinking = body.thinking;
  // As the Messages API documents: "enabled" requires budget_tokens (at least 1024, below
  // max_tokens); "adaptive" and "disabled" take none.
  if (isRecord(thinking) && thinking.type === "enabled") {
    const budget = thinking.budget_tokens;
    if (typeof budget !== "number" || !Number.isInteger(budget)) {
      return { status: 400, message: "thinking.enabled.budget_tokens: Field required" };
    }
    if (budget < 1024 || typeof body.max_tokens !== "number" || budget >= body.max_tokens) {
      return {
        status: 400,
        message: "thinking.enabled.budget_tokens: must be >= 1024 and less than max_tokens",
      };
    }
  } else if (isRecord(thinking) && "budget_tokens" in thinking) {
    return {
      status: 400,
      message: `thinking.${String(thinking.type)}.budget_tokens: Extra inputs are not permitted`,
    };
  }
  for (const key of Object.keys(body)) {
    if (!ALLOWED_KEYS.has(key)) {
      return { status: 400, message: `${key}: Extra inputs are not permitted` };
    }
  }
  if (typeof body.model !== "string" || body.model === "") {
    return { status: 400, message: "model: Field required" };
  }
  const breakpoints = MessagesPromptCache.check(body);
  if (breakpoints) return { status: 400, message: breakpoints };
  if (
    typeof body.max_tokens !== "number" || !Number.isInteger(body.max_tokens) || body.max_tokens < 1
  ) {
    return { status: 400, message: "max_tokens: Field required (a positive integer)" };
  }
  if (body.stream !== true) {
    return { status: 400, message: "this fake only streams: send `stream: true`" };
  }
  if (Array.isArray(body.tools)) {
    for (const t of body.tools) {
      if (isRecord(t) && "strict" in t) {
        return {
          status: 400,
          message: `tools.${String(t.name)}.strict: the Messages wire never sends strict`,
        };
      }
    }
  }
  return checkPrompt(body);
}

/** The anthropic-version header and a JSON object body, required on every Messages route. */
export function checkVersionAndBody(body: unknown, headers: Headers): Rejection | null {
  if (!headers.get("anthropic-version")) {
    return { status: 400, message: "anthropic-version: header is required" };
  }
  if (!isRecord(body)) return { status: 400, message: "the body must be a JSON object" };
  return null;
}

/** Thinking against a forced tool, and the history (shared with count_tokens). */
export function checkPrompt(body: Json): Rejection | null {
  const choice = body.tool_choice;
  const forced = isRecord(choice) && (choice.type === "tool" || choice.type === "any");
  if (forced && isRecord(body.thinking) && body.thinking.type !== "disabled") {
    return {
      status: 400,
      message: "Thinking may not be enabled when tool_choice forces tool use.",
    };
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return { status: 400, message: "messages: at least one message is required" };
  }
  return checkHistory(body.messages);
}

/** Message-by-message rules shared with count_tokens (model_server_count.ts). */
export function checkHistory(messages: unknown[]): Rejection | null {
  const calls = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (!isRecord(m) || (m.role !== "user" && m.role !== "assistant")) {
      return { status: 400, message: `messages.${i}: role must be user or assistant` };
    }
    const content = typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (!Array.isArray(content)) {
      return { status: 400, message: `messages.${i}.content is required` };
    }
    for (const [j, block] of content.entries()) {
      const at = `messages.${i}.content.${j}`;
      if (!isRecord(block)) return { status: 400, message: `${at} is not an object` };
      switch (block.type) {
        case "text":
          if (typeof block.text !== "string" || block.text === "") {
            return { status: 400, message: `${at}: text content blocks must be non-empty` };
          }
          break;
        case "thinking":
          if (m.role !== "assistant") {
            return { status: 400, message: `${at}: thinking in a user turn` };
          }
          if (typeof block.signature !== "string" || block.signature === "") {
            return { status: 400, message: `${at}.signature: Field required` };
          }
          if (!signatureMatches(block.signature, String(block.thinking))) {
            return { status: 400, message: `${at}: Invalid signature in thinking block` };
          }
          break;
        case "tool_use":
          if (typeof block.id !== "string" || !/^[a-zA-Z0-9_-]+$/.test(block.id)) {
            return { status: 400, message: `${at}.id: String should match ^[a-zA-Z0-9_-]+$` };
          }
          calls.add(block.id);
          break;
        case "tool_result":
          if (typeof block.tool_use_id !== "string" || !calls.has(block.tool_use_id)) {
            return {
              status: 400,
              message: `${at}: unexpected tool_use_id ${JSON.stringify(block.tool_use_id)} in ` +
                `tool_result blocks: each tool_result block must have a corresponding tool_use ` +
                `block earlier`,
            };
          }
          break;
        default:
          break;
      }
    }
  }
  return null;
}

export function messagesErrorBody(status: number, message: string): Json {
  const type = status === 401
    ? "authentication_error"
    : status === 404
    ? "not_found_error"
    : status === 429
    ? "rate_limit_error"
    : status >= 500
    ? "api_error"
    : "invalid_request_error";
  return { type: "error", error: { type, message } };
}

let serial = 0;

export function renderMessages(reply: ReplyBuilder, body: Json, model: string): StreamAction[] {
  const actions: StreamAction[] = [];
  const event = (name: string, data: Json) =>
    actions.push({ type: "frame", text: `event: ${name}\ndata: ${JSON.stringify(data)}\n\n` });
  if (reply.steps[0]?.kind === "raw") {
    for (const step of reply.steps) {
      if (step.kind === "raw") actions.push({ type: "frame", text: step.sse });
    }
    return actions;
  }
  const u = reply.usageValue ?? { input: roughTokens(JSON.stringify(body.messages)), output: 0 };
  const startUsage: Json = {
    input_tokens: u.input,
    cache_creation_input_tokens: u.cacheCreation ?? 0,
    cache_read_input_tokens: u.cacheRead ?? 0,
    output_tokens: 1,
  };
  event("message_start", {
    type: "message_start",
    message: {
      id: `msg_fake${++serial}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: startUsage,
    },
  });
  event("ping", { type: "ping" });
  let index = 0;
  let tools = 0;
  let emitted = "";
  for (const step of reply.steps) {
    switch (step.kind) {
      case "reasoning": {
        const i = index++;
        event("content_block_start", {
          type: "content_block_start",
          index: i,
          content_block: { type: "thinking", thinking: "", signature: "" },
        });
        for (const piece of splitPieces(step.text, reply.pieceSize)) {
          event("content_block_delta", {
            type: "content_block_delta",
            index: i,
            delta: { type: "thinking_delta", thinking: piece },
          });
        }
        event("content_block_delta", {
          type: "content_block_delta",
          index: i,
          delta: { type: "signature_delta", signature: step.signature ?? fakeSignature(step.text) },
        });
        event("content_block_stop", { type: "content_block_stop", index: i });
        emitted += step.text;
        break;
      }
      case "redacted": {
        const i = index++;
        event("content_block_start", {
          type: "content_block_start",
          index: i,
          content_block: { type: "redacted_thinking", data: step.data },
        });
        event("content_block_stop", { type: "content_block_stop", index: i });
        break;
      }
      case "text": {
        const i = index++;
        event("content_block_start", {
          type: "content_block_start",
          index: i,
          content_block: { type: "text", text: "" },
        });
        for (const piece of splitPieces(step.text, reply.pieceSize)) {
          event("content_block_delta", {
            type: "content_block_delta",
            index: i,
            delta: { type: "text_delta", text: piece },
          });
        }
        event("content_block_stop", { type: "content_block_stop", index: i });
        emitted += step.text;
        break;
      }
      case "tool": {
        const i = index++;
        tools++;
        event("content_block_start", {
          type: "content_block_start",
          index: i,
          content_block: {
            type: "tool_use",
            id: step.id ?? `toolu_fake${serial}x${i}`,
            name: step.name,
            input: {},
          },
        });
        const json = step.raw ?? JSON.stringify(step.args);
        for (const frag of ["", ...splitFragments(json, step.fragments)]) {
          event("content_block_delta", {
            type: "content_block_delta",
            index: i,
            delta: { type: "input_json_delta", partial_json: frag },
          });
        }
        event("content_block_stop", { type: "content_block_stop", index: i });
        emitted += json;
        break;
      }
      case "hang":
        actions.push({ type: "hang" });
        break;
      case "gate":
        actions.push({ type: "gate", opened: step.opened });
        break;
      case "streamError":
        event("error", { type: "error", error: { type: step.type, message: step.message } });
        return actions;
      case "reset":
        actions.push({ type: "reset" });
        return actions;
      case "raw":
        actions.push({ type: "frame", text: step.sse });
        break;
    }
  }
  const stop = reply.stopValue ?? (tools > 0 ? "tool_use" : "end_turn");
  event("message_delta", {
    type: "message_delta",
    delta: { stop_reason: stop, stop_sequence: null },
    usage: { output_tokens: reply.usageValue?.output ?? roughTokens(emitted) },
  });
  event("message_stop", { type: "message_stop" });
  return actions;
}
