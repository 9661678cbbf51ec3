// Renders the wire-neutral history and knobs into a Chat Completions request body.
// - assistant tool calls go in `tool_calls`; each tool result is its own `role: "tool"` message
//   placed right after the assistant message that made the call;
// - reasoning is never sent back on this wire, and redacted reasoning is dropped;
// - "extra_body" knobs (top_k, priority, chat_template_kwargs) are top-level body keys,
//   which is what the OpenAI client's extra_body merge produces and what vLLM reads.
// Prompt caching on this wire is automatic (longest common prefix), so the body is kept
// byte-stable across a session's turns: tools in the session's order, each message rendered
// the same way every turn, nothing time-dependent, the volatile reminder last. Hosted OpenAI
// also gets `prompt_cache_key` (the session's key), which routes a session's requests to one
// cache; other servers are not sent it (a strict server may refuse an unknown field).
// llama-server's `cache_prompt` is on by default there and is left to that default.

import { type EffortBackend, effortPatch } from "./effort.ts";
import { normalizeStrict } from "./strict_tools.ts";
import type { JsonSchema, Message, WireOptions, WireRequest } from "./types.ts";

export interface RenderedChatRequest {
  body: Record<string, unknown>;
  /** Tool name → original schema for every tool sent strict-normalized. */
  strictOriginals: Map<string, JsonSchema>;
}

type ChatMessage = Record<string, unknown>;

/** The base URL's host name, lower-cased; "" when it does not parse. */
function hostOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).hostname.toLowerCase();
  } catch {
    return "";
  }
}

/** Hosts whose reasoning models reject `max_tokens` and want `max_completion_tokens`. */
function wantsMaxCompletionTokens(baseUrl: string): boolean {
  const host = hostOf(baseUrl);
  return host === "api.openai.com" || host.endsWith(".openai.azure.com");
}

/** Hosted OpenAI, the one server documented to take `prompt_cache_key`. */
function takesPromptCacheKey(baseUrl: string): boolean {
  return hostOf(baseUrl) === "api.openai.com";
}

export function renderChatRequest(
  req: WireRequest,
  options: WireOptions,
  backend: EffortBackend,
  baseUrl: string,
): RenderedChatRequest {
  const strictOriginals = new Map<string, JsonSchema>();
  const body: Record<string, unknown> = {
    model: req.model,
    messages: renderMessages(req),
  };
  if (req.tools.length > 0) {
    body.tools = req.tools.map((tool) => {
      const fn: Record<string, unknown> = {
        name: tool.name,
        description: tool.description,
        parameters: tool.input_schema,
      };
      // Strict when opted in, and always for the forced (structuring) call.
      if (options.strict_tools || tool.name === req.force_tool) {
        const result = normalizeStrict(tool.input_schema);
        if (result.ok) {
          fn.parameters = result.schema;
          fn.strict = true;
          strictOriginals.set(tool.name, tool.input_schema);
        }
      }
      return { type: "function", function: fn };
    });
    if (req.force_tool !== undefined) {
      body.tool_choice = { type: "function", function: { name: req.force_tool } };
    }
  }
  body.stream = true;
  body.stream_options = { include_usage: true };
  if (req.cache_key && takesPromptCacheKey(baseUrl)) body.prompt_cache_key = req.cache_key;
  const maxTokens = req.max_tokens ?? options.max_tokens;
  if (maxTokens !== undefined) {
    body[wantsMaxCompletionTokens(baseUrl) ? "max_completion_tokens" : "max_tokens"] = maxTokens;
  }
  if (options.temperature !== undefined) body.temperature = options.temperature;
  if (options.top_p !== undefined) body.top_p = options.top_p;
  if (options.top_k !== undefined) body.top_k = options.top_k;
  // Absent by default; never a made-up 0 (a server without priority scheduling rejects it).
  if (options.request_priority !== undefined) body.priority = options.request_priority;

  const patch = effortPatch(backend, req.effort);
  let enableThinking = options.enable_thinking;
  const fromEffort = (patch.chat_template_kwargs as { enable_thinking?: boolean } | undefined)
    ?.enable_thinking;
  // enable_thinking = false is a hard off that an effort level cannot turn back on.
  if (fromEffort !== undefined && enableThinking !== false) enableThinking = fromEffort;
  if (enableThinking !== undefined) {
    body.chat_template_kwargs = { enable_thinking: enableThinking };
  }
  if (patch.reasoning_effort !== undefined) body.reasoning_effort = patch.reasoning_effort;
  return { body, strictOriginals };
}

function renderMessages(req: WireRequest): ChatMessage[] {
  const out: ChatMessage[] = [];
  if (req.system) out.push({ role: "system", content: req.system });
  const lastUser = req.messages.findLastIndex((m) => m.role === "user");
  req.messages.forEach((message, i) => {
    const reminder = i === lastUser ? req.reminder : undefined;
    if (message.role === "assistant") renderAssistant(message, out);
    else renderUser(message, reminder, out);
  });
  if (lastUser === -1 && req.reminder) out.push({ role: "user", content: req.reminder });
  return out;
}

function renderAssistant(message: Message, out: ChatMessage[]): void {
  const texts: string[] = [];
  const calls: Record<string, unknown>[] = [];
  for (const part of message.parts) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "tool_call") {
      calls.push({
        id: part.id,
        type: "function",
        function: { name: part.name, arguments: JSON.stringify(part.input) },
      });
    }
  }
  const content = texts.join("");
  if (!content && calls.length === 0) return; // a reasoning-only turn has nothing to send
  const rendered: ChatMessage = { role: "assistant", content: content || null };
  if (calls.length > 0) rendered.tool_calls = calls;
  out.push(rendered);
}

function renderUser(message: Message, reminder: string | undefined, out: ChatMessage[]): void {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.type === "tool_result") {
      // This wire has no error flag; the tool's own text says what went wrong. Nor does a
      // tool message carry images: an attached image is only its placeholder line.
      out.push({ role: "tool", tool_call_id: part.call_id, content: part.content });
    } else if (part.type === "text") texts.push(part.text);
  }
  if (reminder) texts.push(reminder);
  if (texts.length === 0) return;
  out.push({
    role: "user",
    content: texts.length === 1 ? texts[0] : texts.map((text) => ({ type: "text", text })),
  });
}
