// Keeping a request inside the context window: a conservative size estimate of what is about
// to be sent (so compaction looks at the next request, not only the previous turn), and the
// cut of a tool result too big for the window on its own, which is shortened with a note
// rather than ending the run on the server's context-overflow 400.

import { WireError } from "../wires/errors.ts";
import type { Message } from "../wires/types.ts";
import { messageTokens } from "../wires/token_estimate.ts";
export { isContextOverflow } from "../wires/errors.ts";

/** Characters per token assumed by the estimate (low, so it errs on the large side). */
export const CHARS_PER_TOKEN = 3;
/** The largest share of the window one tool result may take. */
export const MAX_RESULT_SHARE = 0.5;

/** Estimated prompt tokens of a message, on the large side (CHARS_PER_TOKEN). */
export function lookAheadTokens(message: Message): number {
  return messageTokens(message, CHARS_PER_TOKEN);
}

/**
 * By how many tokens a context-overflow 400 says the prompt was too long, when the server
 * says: llama-server's n_prompt_tokens and n_ctx (or its "request (M tokens) exceeds the available
 * context size (N tokens)", as LiteLLM passes it on), vLLM/OpenAI's "maximum context length is N
 * tokens … requested M tokens", the Messages API's "prompt is too long: M tokens > N maximum".
 */
export function overflowExcess(err: unknown): number | null {
  if (!(err instanceof WireError)) return null;
  const body = err.body ?? "";
  try {
    const parsed = JSON.parse(body) as { error?: { n_prompt_tokens?: unknown; n_ctx?: unknown } };
    const e = parsed.error;
    if (typeof e?.n_prompt_tokens === "number" && typeof e.n_ctx === "number") {
      return Math.max(1, e.n_prompt_tokens - e.n_ctx);
    }
  } catch { /* not JSON: read the wording below */ }
  // llama-server's own wording, for when a proxy (LiteLLM) wraps its error in a message of
  // its own and the numeric fields are gone or inside an escaped string.
  const llama = /request \((\d+) tokens\) exceeds the available context size \((\d+) tokens\)/
    .exec(body);
  if (llama) return Math.max(1, Number(llama[1]) - Number(llama[2]));
  const vllm = /maximum context length is (\d+) tokens.*?(\d+) tokens/s.exec(body);
  if (vllm) return Math.max(1, Number(vllm[2]) - Number(vllm[1]));
  const messages = /prompt is too long: (\d+) tokens > (\d+)/.exec(body);
  if (messages) return Math.max(1, Number(messages[1]) - Number(messages[2]));
  return null;
}

/** Upper bound of characters per token of common tokenizers: cutting 4 per token is enough. */
const MAX_CHARS_PER_TOKEN = 4;

/**
 * Cuts, in place, the largest tool results of `messages` until `tokens` tokens' worth of
 * characters (and some slack) are gone, each with a note. True when anything was cut.
 */
export function shedTokens(messages: readonly Message[], tokens: number, window: number): boolean {
  let need = tokens * MAX_CHARS_PER_TOKEN + 400;
  const found: { message: Message; index: number; length: number }[] = [];
  for (const message of messages) {
    message.parts.forEach((part, index) => {
      if (part.type === "tool_result") found.push({ message, index, length: part.content.length });
    });
  }
  found.sort((a, b) => b.length - a.length);
  let cut = false;
  for (const { message, index, length } of found) {
    if (need <= 0) break;
    const part = message.parts[index];
    if (part?.type !== "tool_result" || length < 600) continue;
    const keep = Math.max(0, length - need - 300);
    message.parts[index] = {
      ...part,
      content: part.content.slice(0, keep) + cutNote(length, keep, window),
    };
    need -= length - keep;
    cut = true;
  }
  return cut;
}

function cutNote(length: number, keep: number, window: number): string {
  return `\n[cut: this tool result was ${length} characters, too long for the model's context ` +
    `window of ${window} tokens; only the first ${keep} are shown. Ask for a smaller part (a ` +
    `line range, a narrower search).]`;
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
      const note = cutNote(part.content.length, keep, window);
      message.parts[i] = { ...part, content: part.content.slice(0, keep) + note };
      cut = true;
    });
  }
  return cut;
}
