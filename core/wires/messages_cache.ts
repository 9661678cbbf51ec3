// Where the Messages wire puts its prompt-cache breakpoints. The provider caches the prefix
// of a request (tools, then system, then messages) up to each block that carries
// `cache_control`, at most four per request, and on a later request finds an earlier write
// by looking back up to 20 blocks from each breakpoint. The rolling scheme used here:
//   1. the last tool definition (the tool list, which changes only with MCP servers);
//   2. the system prompt (frozen for the session);
//   3. the last cacheable block of the newest message, and
//   4. the last cacheable block of the message before it.
// Breakpoints 3 and 4 slide with the conversation: the write of one turn lies within the
// lookback of the next turn's breakpoints, so each request reads all but its newest blocks
// from the cache. The volatile per-turn reminder (memory recall) is the last block of the
// newest user turn and is never a breakpoint: the next request renders that turn without it,
// and a breakpoint on it would cache bytes no later request sends. Thinking blocks cannot
// carry cache_control (the API refuses it), nor can empty text. After compaction the history
// is new, so the first request writes its prefix once and the scheme resumes from there.

type Block = Record<string, unknown>;

/** The provider's limit of cache_control blocks per request. */
export const MAX_CACHE_BREAKPOINTS = 4;

const EPHEMERAL = { type: "ephemeral" } as const;

/** Block types the API accepts cache_control on, as they appear at a message's top level. */
const CACHEABLE = new Set(["text", "image", "document", "tool_use", "tool_result"]);

export interface RenderedMessage {
  role: string;
  content: Block[];
  /** Trailing blocks of this message that change every turn (the reminder); never marked. */
  volatileTail?: number;
}

/**
 * Marks the sliding breakpoints on `messages` in place (3 and 4 above): the last cacheable,
 * non-volatile block of each of the two newest messages that have one.
 */
export function markMessageBreakpoints(messages: RenderedMessage[], slots = 2): void {
  let left = slots;
  for (let i = messages.length - 1; i >= 0 && left > 0; i--) {
    const message = messages[i]!;
    const stable = message.content.length - (message.volatileTail ?? 0);
    for (let j = stable - 1; j >= 0; j--) {
      const block = message.content[j]!;
      if (!cacheable(block)) continue;
      message.content[j] = { ...block, cache_control: EPHEMERAL };
      left--;
      break;
    }
  }
}

/** The tool list with a breakpoint on its last definition (1 above). */
export function markToolBreakpoint(tools: Block[]): Block[] {
  if (tools.length === 0) return tools;
  return [...tools.slice(0, -1), { ...tools.at(-1)!, cache_control: EPHEMERAL }];
}

/** The system prompt as one cached text block (2 above). */
export function cachedSystem(text: string): Block[] {
  return [{ type: "text", text, cache_control: EPHEMERAL }];
}

function cacheable(block: Block): boolean {
  if (!CACHEABLE.has(block.type as string)) return false;
  return block.type !== "text" || (typeof block.text === "string" && block.text !== "");
}
