// Token estimates without a tokenizer (none ships with the agent): about four characters a
// token. Used where a number is needed before the server can give one: the /tokens
// breakdown and the token budget's check before each model request (core/agent/budget.ts).
// The server's own figures (Usage after a turn, Wire.countTokens) win wherever they exist.

import type { Message, ToolSpec } from "./types.ts";

export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string, charsPerToken = CHARS_PER_TOKEN): number {
  return Math.ceil(text.length / charsPerToken);
}

/**
 * One message's text, reasoning, tool calls and tool results. A smaller `charsPerToken` errs
 * on the large side (compaction's look-ahead, core/agent/context_fit.ts).
 */
export function messageTokens(message: Message, charsPerToken = CHARS_PER_TOKEN): number {
  let n = 0;
  for (const p of message.parts) {
    switch (p.type) {
      case "text":
      case "reasoning":
        n += estimateTokens(p.text, charsPerToken);
        break;
      case "tool_call":
        n += estimateTokens(p.name + JSON.stringify(p.input), charsPerToken);
        break;
      case "tool_result":
        n += estimateTokens(p.content, charsPerToken);
        break;
      case "redacted_reasoning":
        n += estimateTokens(p.data, charsPerToken);
        break;
    }
  }
  return n;
}

export function messagesTokens(messages: readonly Message[]): number {
  return messages.reduce((sum, m) => sum + messageTokens(m), 0);
}

/** A whole request's prompt: system prompt, tool specs, history and the volatile reminder. */
export function requestTokens(req: {
  system: string;
  tools: readonly ToolSpec[];
  messages: readonly Message[];
  reminder?: string | undefined;
}): number {
  return estimateTokens(req.system) + estimateTokens(JSON.stringify(req.tools)) +
    messagesTokens(req.messages) + estimateTokens(req.reminder ?? "");
}
