// Renders the wire-neutral history and knobs into a Messages request body.
//
// The body, decided here:
//   { model, max_tokens (default 32000),
//     system: [{ type: "text", text, cache_control: { type: "ephemeral" } }],  // cached prefix
//     messages, tools?, tool_choice?, thinking?, output_config?: { effort }, stream: true }
// Prompt-cache breakpoints (at most four: the last tool, the system prompt, the two newest
// messages) are placed by messages_cache.ts.
// thinking per settings thinking.type:
//   adaptive (default) → { type: "adaptive", display: "summarized" }
//   enabled            → { type: "enabled", budget_tokens, display: "summarized" }
//                        (the Messages API requires budget_tokens with "enabled": at least
//                        1024 and below max_tokens; half of max_tokens is sent, 1024 at least).
//                        A max_tokens of 1024 or less leaves no budget the API accepts: no
//                        `thinking` is sent then (settings warn when max_tokens is set that
//                        low), rather than raising max_tokens past the user's or the token
//                        budget's cap
//   disabled           → no `thinking` field at all: gateways (LiteLLM) translate any
//                        `thinking` value, even disabled, into reasoning_effort, which a
//                        backend that does not list it answers with 400
// A forced tool call (tool_choice { type: "tool" }) sends no `thinking` at all: the API
// refuses thinking together with a forced tool.
// Never sent: temperature, top_p, top_k, priority, strict (spec 4.3 rules 5-7), and
// budget_tokens except with an explicit thinking.type = "enabled".

import { type EffortBackend, effortPatch } from "./effort.ts";
import {
  cachedSystem,
  markMessageBreakpoints,
  markToolBreakpoint,
  type RenderedMessage,
} from "./messages_cache.ts";
import { MIN_THINKING_BUDGET } from "../settings/knobs.ts";
import type { Message, WireOptions, WireRequest } from "./types.ts";

export const DEFAULT_MESSAGES_MAX_TOKENS = 32_000;

type Block = Record<string, unknown>;

/** tool_use ids must match ^[a-zA-Z0-9_-]+$; ids minted by other wires may not. */
export function messagesToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, "_");
  return clean || "toolu_empty";
}

export function renderMessagesRequest(
  req: WireRequest,
  options: WireOptions,
  backend: EffortBackend,
): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: req.model,
    max_tokens: req.max_tokens ?? options.max_tokens ?? DEFAULT_MESSAGES_MAX_TOKENS,
  };
  if (req.system) {
    body.system = cachedSystem(req.system);
  }
  body.messages = renderMessages(req);
  if (req.tools.length > 0) {
    body.tools = markToolBreakpoint(req.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
    })));
    if (req.force_tool !== undefined) {
      body.tool_choice = { type: "tool", name: req.force_tool };
    }
  }
  if (body.tool_choice === undefined) {
    switch (options.thinking_type) {
      case "adaptive":
        body.thinking = { type: "adaptive", display: "summarized" };
        break;
      case "enabled": {
        const budget = thinkingBudget(body.max_tokens as number);
        if (budget !== null) {
          body.thinking = { type: "enabled", budget_tokens: budget, display: "summarized" };
        }
        break;
      }
      case "disabled":
        break;
    }
  }
  Object.assign(body, effortPatch(backend, req.effort));
  body.stream = true;
  return body;
}

/**
 * Half the output cap, never below the API's minimum of 1024 and always below the cap, as
 * the API requires; null when the cap is too small for any (1024 or less): thinking is off.
 */
export function thinkingBudget(maxTokens: number): number | null {
  if (maxTokens <= MIN_THINKING_BUDGET) return null;
  return Math.min(maxTokens - 1, Math.max(MIN_THINKING_BUDGET, Math.floor(maxTokens / 2)));
}

/** The messages, with the sliding cache breakpoints on the two newest (messages_cache.ts). */
function renderMessages(req: WireRequest): Block[] {
  const out: RenderedMessage[] = [];
  const lastUser = req.messages.findLastIndex((m) => m.role === "user");
  req.messages.forEach((message, i) => {
    const reminder = i === lastUser ? req.reminder : undefined;
    const content = message.role === "assistant"
      ? assistantBlocks(message)
      : userBlocks(message, reminder);
    if (content.length > 0) {
      out.push({ role: message.role, content, ...(reminder ? { volatileTail: 1 } : {}) });
    }
  });
  if (lastUser === -1 && req.reminder) {
    out.push({ role: "user", content: [{ type: "text", text: req.reminder }], volatileTail: 1 });
  }
  markMessageBreakpoints(out);
  return out.map(({ role, content }) => ({ role, content }));
}

function assistantBlocks(message: Message): Block[] {
  const blocks: Block[] = [];
  for (const part of message.parts) {
    switch (part.type) {
      case "reasoning":
        // Only signed thinking can be replayed; unsigned text came from the other wire.
        if (part.signature) {
          blocks.push({ type: "thinking", thinking: part.text, signature: part.signature });
        }
        break;
      case "redacted_reasoning":
        blocks.push({ type: "redacted_thinking", data: part.data });
        break;
      case "text":
        if (part.text) blocks.push({ type: "text", text: part.text });
        break;
      case "tool_call":
        blocks.push({
          type: "tool_use",
          id: messagesToolId(part.id),
          name: part.name,
          input: part.input,
        });
        break;
      default:
        break;
    }
  }
  return blocks;
}

function userBlocks(message: Message, reminder: string | undefined): Block[] {
  const results: Block[] = [];
  const texts: Block[] = [];
  for (const part of message.parts) {
    if (part.type === "tool_result") {
      const block: Block = { type: "tool_result", tool_use_id: messagesToolId(part.call_id) };
      if (part.images?.length) {
        block.content = [
          ...(part.content ? [{ type: "text", text: part.content }] : []),
          ...part.images.map((img) => ({
            type: "image",
            source: { type: "base64", media_type: img.media_type, data: img.data },
          })),
        ];
      } else if (part.content) block.content = part.content;
      if (part.is_error) block.is_error = true;
      results.push(block);
    } else if (part.type === "text" && part.text) {
      texts.push({ type: "text", text: part.text });
    }
  }
  if (reminder) texts.push({ type: "text", text: reminder });
  // tool_result blocks must lead the user turn that answers the calls.
  return [...results, ...texts];
}
