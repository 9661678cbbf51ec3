// The fake's Chat Completions side: request invariants a real server (vLLM / OpenAI) would
// enforce, and the rendering of a scripted reply as `chat.completion.chunk` SSE frames in the
// documented format (usage: null on every chunk when include_usage is set, a final chunk with
// empty choices carrying usage, then `data: [DONE]`).

import {
  type ReplyBuilder,
  roughTokens,
  splitFragments,
  splitPieces,
} from "./model_server_reply.ts";

export type StreamAction =
  | { type: "frame"; text: string }
  | { type: "hang" }
  | { type: "gate"; opened: Promise<void> }
  | { type: "reset" };

export interface Rejection {
  status: number;
  message: string;
}

export interface ChatRules {
  priorityScheduling: boolean;
}

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The first rule a request breaks, or null. */
export function checkChatRequest(body: unknown, rules: ChatRules): Rejection | null {
  if (!isRecord(body)) return { status: 400, message: "the body must be a JSON object" };
  if (typeof body.model !== "string" || body.model === "") {
    return { status: 400, message: "`model` is required" };
  }
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return { status: 400, message: "`messages` must be a non-empty array" };
  }
  if (body.stream !== true) {
    return { status: 400, message: "this fake only streams: send `stream: true`" };
  }
  if (body.priority !== undefined && body.priority !== 0 && !rules.priorityScheduling) {
    return {
      status: 400,
      message: `Got priority ${JSON.stringify(body.priority)} but Priority scheduling is not ` +
        `enabled.`,
    };
  }
  return checkChatPrompt(body, body.messages);
}

/** Tool calls answered in order and tool_choice naming a sent tool (shared with /tokenize). */
export function checkChatPrompt(body: Json, messages: unknown[]): Rejection | null {
  const calls = new Set<string>();
  for (const [i, m] of messages.entries()) {
    if (!isRecord(m)) return { status: 400, message: `messages[${i}] is not an object` };
    if (m.role === "assistant" && Array.isArray(m.tool_calls)) {
      for (const tc of m.tool_calls) {
        if (!isRecord(tc) || typeof tc.id !== "string") {
          return { status: 400, message: `messages[${i}].tool_calls has a call without an id` };
        }
        const fn = tc.function;
        if (!isRecord(fn) || typeof fn.arguments !== "string") {
          return {
            status: 400,
            message: `messages[${i}].tool_calls[].function.arguments must be a JSON string`,
          };
        }
        calls.add(tc.id);
      }
    }
    if (m.role === "tool") {
      if (typeof m.tool_call_id !== "string" || !calls.has(m.tool_call_id)) {
        return {
          status: 400,
          message: `messages[${i}] is a tool result for ${JSON.stringify(m.tool_call_id)}, ` +
            `which no earlier assistant message called`,
        };
      }
    }
  }
  const choice = body.tool_choice;
  if (isRecord(choice) && isRecord(choice.function)) {
    const name = choice.function.name;
    const tools = Array.isArray(body.tools) ? body.tools : [];
    const known = tools.some((t) =>
      isRecord(t) && isRecord(t.function) && t.function.name === name
    );
    if (!known) return { status: 400, message: `tool_choice names unknown tool ${name}` };
  }
  return null;
}

/** vLLM/OpenAI error body. */
export function chatErrorBody(status: number, message: string): Json {
  const type = status === 401
    ? "AuthenticationError"
    : status === 404
    ? "NotFoundError"
    : status >= 500
    ? "InternalServerError"
    : "BadRequestError";
  return { error: { message, type, param: null, code: status } };
}

let serial = 0;

/** Whose chunk layout the fake writes: vLLM/OpenAI's, or llama-server's (see below). */
export type ChatDialect = "vllm" | "llama-server";

export function renderChat(
  reply: ReplyBuilder,
  body: Json,
  model: string,
  dialect: ChatDialect = "vllm",
): StreamAction[] {
  const id = `chatcmpl-fake${++serial}`;
  let created = 1767225600;
  const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  const actions: StreamAction[] = [];
  const frame = (data: unknown) =>
    actions.push({ type: "frame", text: `data: ${JSON.stringify(data)}\n\n` });
  let chunks = 0;
  const chunk = (delta: Json, finish: string | null = null) => {
    if (dialect === "llama-server") {
      // tools/server/server-task.cpp: the choice's keys in insertion order, then created
      // (the current second: it ticks within a stream), id, model, fingerprint, object.
      if (++chunks % 3 === 0) created++;
      frame({
        choices: [{ finish_reason: finish, index: 0, delta }],
        created,
        id,
        model,
        system_fingerprint: "b1-fake",
        object: "chat.completion.chunk",
      });
      return;
    }
    const c: Json = {
      id,
      object: "chat.completion.chunk",
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    };
    if (includeUsage) c.usage = null;
    frame(c);
  };
  if (reply.steps[0]?.kind === "raw") {
    for (const step of reply.steps) {
      if (step.kind === "raw") actions.push({ type: "frame", text: step.sse });
    }
    return actions;
  }
  chunk({ role: "assistant", content: dialect === "llama-server" ? null : "" });
  let toolIndex = 0;
  let emitted = "";
  for (const step of reply.steps) {
    switch (step.kind) {
      case "reasoning":
        for (const piece of splitPieces(step.text, reply.pieceSize)) {
          const f = reply.reasoningFieldValue;
          chunk(
            f === "both" ? { reasoning: piece, reasoning_content: piece } : { [f]: piece },
          );
        }
        emitted += step.text;
        break;
      case "redacted":
        break; // no Chat Completions equivalent
      case "text":
        for (const piece of splitPieces(step.text, reply.pieceSize)) chunk({ content: piece });
        emitted += step.text;
        break;
      case "tool": {
        const index = toolIndex++;
        const callId = step.id ?? `chatcmpl-tool-fake${serial}x${index}`;
        const json = step.raw ?? JSON.stringify(step.args);
        const frags = splitFragments(json, step.fragments);
        // llama-server sends the call's first argument fragment with its name.
        const first = dialect === "llama-server" ? frags.shift() ?? "" : "";
        chunk({
          tool_calls: [{
            index,
            id: callId,
            type: "function",
            function: { name: step.name, arguments: first },
          }],
        });
        for (const frag of frags) {
          chunk({ tool_calls: [{ index, function: { arguments: frag } }] });
        }
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
        frame({ error: { message: step.message, type: step.type, param: null, code: 500 } });
        return actions;
      case "reset":
        actions.push({ type: "reset" });
        return actions;
      case "raw":
        actions.push({ type: "frame", text: step.sse });
        break;
    }
  }
  const stop = reply.stopValue ?? (toolIndex > 0 ? "tool_use" : "end_turn");
  const finish = reply.finishReasonValue ?? FINISH[stop];
  chunk({}, finish);
  if (includeUsage) {
    const u = reply.usageValue ??
      { input: roughTokens(JSON.stringify(body.messages)), output: roughTokens(emitted) };
    const usage: Json = {
      prompt_tokens: u.input + (u.cacheRead ?? 0),
      total_tokens: u.input + (u.cacheRead ?? 0) + u.output,
      completion_tokens: u.output,
    };
    if (u.cacheRead !== undefined) usage.prompt_tokens_details = { cached_tokens: u.cacheRead };
    if (dialect === "llama-server") {
      // tools/server: usage always has prompt_tokens_details; timings split the prompt into
      // cache_n (read from the slot's cache) and prompt_n (processed).
      usage.prompt_tokens_details = { cached_tokens: u.cacheRead ?? 0 };
      frame({
        choices: [],
        created,
        id,
        model,
        system_fingerprint: "b1-fake",
        object: "chat.completion.chunk",
        usage,
        timings: { cache_n: u.cacheRead ?? 0, prompt_n: u.input, predicted_n: u.output },
      });
    } else frame({ id, object: "chat.completion.chunk", created, model, choices: [], usage });
  }
  actions.push({ type: "frame", text: "data: [DONE]\n\n" });
  return actions;
}

const FINISH: Record<string, string> = {
  end_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  stop_sequence: "stop",
  refusal: "content_filter",
};
