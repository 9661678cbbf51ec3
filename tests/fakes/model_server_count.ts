// The fake's token-counting endpoints, as their servers document them:
//
// POST /v1/messages/count_tokens (Messages API, "Count tokens in a Message")
//   body: model and messages (required); system, tools, tool_choice, thinking, output_config,
//   cache_control, speed (optional). Any other field (max_tokens, stream, metadata,
//   temperature, …) is refused with 400 "<field>: Extra inputs are not permitted", as the real
//   API does. The anthropic-version header, the key, thinking-vs-forced-tool and the history
//   rules are those of /v1/messages. Answer: { "input_tokens": N }.
//
// POST /tokenize (vLLM, at the server root, not under /v1)
//   chat form: messages (required), model, tools, add_generation_prompt (default true),
//   continue_final_message, add_special_tokens, chat_template, chat_template_kwargs,
//   return_token_strs, media_io_kwargs, mm_processor_kwargs;
//   completion form: prompt (required), model, add_special_tokens, return_token_strs.
//   Neither messages nor prompt, or both add_generation_prompt and continue_final_message,
//   is a 400 as in vLLM. vLLM ignores unknown fields with a warning; this fake refuses them
//   (400) so a client sending junk is caught. Answer: { count, max_model_len, tokens } plus
//   token_strs when return_token_strs is true.
//
// The count is deterministic: one token per 4 UTF-8 bytes, rounded up, of
//   count_tokens:   JSON.stringify([system ?? null, messages, tools ?? null])
//   tokenize chat:  JSON.stringify([messages, tools ?? null])
//   tokenize text:  the prompt itself
// (fakeCountTokens / fakeTokenizeCount below compute it from a recorded body.)

import type { Rejection } from "./model_server_chat.ts";
import { checkChatPrompt } from "./model_server_chat.ts";
import { checkPrompt, checkVersionAndBody } from "./model_server_messages.ts";

type Json = Record<string, unknown>;

function isRecord(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const COUNT_TOKENS_KEYS = new Set([
  "model",
  "messages",
  "system",
  "tools",
  "tool_choice",
  "thinking",
  "output_config",
  "cache_control",
  "speed",
]);

const TOKENIZE_CHAT_KEYS = new Set([
  "model",
  "messages",
  "add_generation_prompt",
  "return_token_strs",
  "continue_final_message",
  "add_special_tokens",
  "chat_template",
  "chat_template_kwargs",
  "media_io_kwargs",
  "mm_processor_kwargs",
  "tools",
]);
const TOKENIZE_PROMPT_KEYS = new Set([
  "model",
  "prompt",
  "add_special_tokens",
  "return_token_strs",
]);

const encoder = new TextEncoder();

/** The fake's token count of a text: one token per 4 UTF-8 bytes, rounded up. */
export function fakeTokens(text: string): number {
  return Math.ceil(encoder.encode(text).length / 4);
}

/** What the fake's count_tokens answers for this body. */
export function fakeCountTokens(body: Json): number {
  return fakeTokens(JSON.stringify([body.system ?? null, body.messages, body.tools ?? null]));
}

/** What the fake's /tokenize answers for this body (chat or completion form). */
export function fakeTokenizeCount(body: Json): number {
  if (typeof body.prompt === "string") return fakeTokens(body.prompt);
  return fakeTokens(JSON.stringify([body.messages, body.tools ?? null]));
}

export function checkCountTokensRequest(body: unknown, headers: Headers): Rejection | null {
  const base = checkVersionAndBody(body, headers);
  if (base) return base;
  if (!isRecord(body)) return { status: 400, message: "the body must be a JSON object" };
  for (const key of Object.keys(body)) {
    if (!COUNT_TOKENS_KEYS.has(key)) {
      return { status: 400, message: `${key}: Extra inputs are not permitted` };
    }
  }
  if (typeof body.model !== "string" || body.model === "") {
    return { status: 400, message: "model: Field required" };
  }
  const thinking = body.thinking;
  if (isRecord(thinking) && "budget_tokens" in thinking) {
    return { status: 400, message: "thinking.budget_tokens is not supported; use adaptive" };
  }
  return checkPrompt(body);
}

export function checkTokenizeRequest(body: unknown): Rejection | null {
  if (!isRecord(body)) return { status: 400, message: "the body must be a JSON object" };
  const chat = "messages" in body;
  if (!chat && !("prompt" in body)) {
    return {
      status: 400,
      message: "Field required: `messages` (chat form) or `prompt` (completion form)",
    };
  }
  const allowed = chat ? TOKENIZE_CHAT_KEYS : TOKENIZE_PROMPT_KEYS;
  for (const key of Object.keys(body)) {
    if (!allowed.has(key)) {
      return {
        status: 400,
        message: `fake model server: \`${key}\` is not a /tokenize field ` +
          `(vLLM would ignore it with a warning)`,
      };
    }
  }
  if (body.model !== undefined && typeof body.model !== "string") {
    return { status: 400, message: "`model` must be a string" };
  }
  if (!chat) {
    return typeof body.prompt === "string"
      ? null
      : { status: 400, message: "`prompt` must be a string" };
  }
  if (!Array.isArray(body.messages)) {
    return { status: 400, message: "`messages` must be an array" };
  }
  // vLLM checks the raw body (before defaults), so only two explicit trues clash.
  if (body.continue_final_message === true && body.add_generation_prompt === true) {
    return {
      status: 400,
      message: "Cannot set both `continue_final_message` and `add_generation_prompt` to True.",
    };
  }
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools)) return { status: 400, message: "`tools` must be a list" };
    for (const [i, t] of body.tools.entries()) {
      if (!isRecord(t) || t.type !== "function" || !isRecord(t.function)) {
        return { status: 400, message: `tools[${i}] must be { type: "function", function }` };
      }
      if (typeof t.function.name !== "string" || t.function.name === "") {
        return { status: 400, message: `tools[${i}].function.name is required` };
      }
    }
  }
  return checkChatPrompt(body, body.messages);
}

export function countTokensAnswer(body: Json): Json {
  return { input_tokens: fakeCountTokens(body) };
}

export function tokenizeAnswer(body: Json, maxModelLen: number): Json {
  const count = fakeTokenizeCount(body);
  // Stable ids; only their number matters.
  const tokens = Array.from({ length: count }, (_, i) => 1000 + (i % 30_000));
  const answer: Json = { count, max_model_len: maxModelLen, tokens };
  if (body.return_token_strs === true) answer.token_strs = tokens.map((t) => `tok${t}`);
  return answer;
}
