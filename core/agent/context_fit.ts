// Keeping a request inside the context window: a conservative size estimate of what is about
// to be sent (so compaction looks at the next request, not only the previous turn), and the
// cut of a tool result too big for the window on its own, which is shortened with a note
// rather than ending the run on the server's context-overflow 400.

import type { Message } from "../wires/types.ts";
export { isContextOverflow } from "../wires/errors.ts";

/** Characters per token assumed by the estimate (low, so it errs on the large side). */
export const CHARS_PER_TOKEN = 3;
/** The largest share of the window one tool result may take. */
export const MAX_RESULT_SHARE = 0.5;

/** Estimated prompt tokens of a message: its text, tool calls and tool results. */
export function estimateTokens(message: Message): number {
  let chars = 0;
  for (const part of message.parts) {
    if (part.type === "text" || part.type === "reasoning") chars += part.text.length;
    else if (part.type === "tool_result") chars += part.content.length;
    else if (part.type === "tool_call") chars += JSON.stringify(part.input).length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/**
 * Shortens, in place, every tool result of `messages` estimated above `share` of `window`
 * tokens, keeping its start and a note that says what happened. True when anything was cut.
 */
export function capToolResults(
  messages: readonly Message[],
  window: number,
  share = MAX_RESULT_SHARE,
): boolean {
  const maxChars = Math.max(1000, Math.floor(window * share * CHARS_PER_TOKEN));
  let cut = false;
  for (const message of messages) {
    message.parts.forEach((part, i) => {
      if (part.type !== "tool_result" || part.content.length <= maxChars) return;
      // The note counts against the cap, so a cut result is never cut again.
      const keep = maxChars - 300;
      const note = `\n[cut: this tool result was ${part.content.length} characters, too long ` +
        `for the model's context window of ${window} tokens; only the first ${keep} are ` +
        `shown. Ask for a smaller part (a line range, a narrower search).]`;
      message.parts[i] = { ...part, content: part.content.slice(0, keep) + note };
      cut = true;
    });
  }
  return cut;
}
