// A provider's prompt cache as its documentation describes it, for the fake model server
// (option `promptCache`) and scripts/bench_cache.ts. Written from the providers' docs, not
// from the agent's code, so a test or benchmark can tell whether the agent's requests are
// cacheable. Tokens are the fake's rough 4 characters a token.
//
// Messages (explicit breakpoints; Anthropic's prompt-caching guide):
// - the prefix is tools, then system, then messages, in that order; a block carrying
//   `cache_control` is a breakpoint, at most 4 per request (more is a 400);
// - a breakpoint whose prefix is at least 1,024 tokens long writes that prefix to the cache
//   (shorter prefixes are not cached at all);
// - a request reads the longest prefix written earlier that ends at one of its breakpoints or
//   at one of the 20 blocks before each (the lookback); changing thinking or tool_choice
//   changes every message prefix after the system prompt;
// - usage: cache_read_input_tokens = the prefix read; cache_creation_input_tokens = from there
//   to the last breakpoint written; input_tokens = the rest.
// - The 5-minute lifetime is not modelled (a scripted session runs in seconds).
// Automatic prefix caching (OpenAI's prompt-caching guide; vLLM and llama-server behave alike):
// - prompts of 1,024 tokens or more are cached; a request reads the longest prefix it shares
//   with an earlier prompt, counted in steps of 128 tokens from 1,024 (1,024, 1,152, …);
// - usage: prompt_tokens_details.cached_tokens = that prefix; writes are not reported.

import { createHash } from "node:crypto";
import type { ReplyBuilder } from "./model_server_reply.ts";

export const MAX_BREAKPOINTS = 4;
export const MIN_CACHEABLE_TOKENS = 1024;
export const LOOKBACK_BLOCKS = 20;
export const AUTOMATIC_STEP_TOKENS = 128;
const CHARS_PER_TOKEN = 4;

/** One request's prompt split as the provider bills it. */
export interface CacheUsage {
  /** Tokens neither read from nor written to the cache. */
  input: number;
  read: number;
  written: number;
}

type Json = Record<string, unknown>;

const tokens = (text: string) => Math.ceil(text.length / CHARS_PER_TOKEN);

/** The Messages API's cache: explicit breakpoints with a 20-block lookback. */
export class MessagesPromptCache {
  #written = new Set<string>();

  /** Why the request is refused (too many breakpoints), or null. */
  static check(body: Json): string | null {
    const n = linearize(body).filter((b) => b.breakpoint).length;
    return n > MAX_BREAKPOINTS
      ? `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${n}.`
      : null;
  }

  use(body: Json): CacheUsage {
    const blocks = linearize(body);
    const ends: number[] = [];
    const keys: string[] = [];
    let total = 0;
    let chain = "";
    for (const block of blocks) {
      total += block.tokens;
      chain = createHash("sha256").update(chain).update("\u0000").update(block.key).digest("hex");
      ends.push(total);
      keys.push(chain);
    }
    const breakpoints = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
    let read = 0;
    for (const b of breakpoints) {
      for (let j = b; j >= Math.max(0, b - LOOKBACK_BLOCKS); j--) {
        if (this.#written.has(keys[j]!)) {
          read = Math.max(read, ends[j]!);
          break;
        }
      }
    }
    let writtenTo = read;
    for (const b of breakpoints) {
      if (ends[b]! < MIN_CACHEABLE_TOKENS || ends[b]! <= read) continue;
      this.#written.add(keys[b]!);
      writtenTo = Math.max(writtenTo, ends[b]!);
    }
    return { input: total - writtenTo, read, written: writtenTo - read };
  }
}

interface LinearBlock {
  key: string;
  tokens: number;
  breakpoint: boolean;
}

/** tools, system, then each message's content blocks, cache_control left out of the bytes. */
function linearize(body: Json): LinearBlock[] {
  const out: LinearBlock[] = [];
  const push = (block: unknown, prefix = "") => {
    const rec = typeof block === "object" && block !== null ? block as Json : { text: block };
    const { cache_control, ...rest } = rec;
    const key = prefix + JSON.stringify(rest);
    out.push({ key, tokens: tokens(key), breakpoint: cache_control !== undefined });
  };
  for (const tool of asList(body.tools)) push(tool, "tool:");
  for (const block of asList(body.system)) push(block, "system:");
  // Thinking and tool_choice are part of every message prefix.
  const settings = JSON.stringify({ thinking: body.thinking, tool_choice: body.tool_choice });
  for (const [i, message] of asList(body.messages).entries()) {
    const m = message as Json;
    const content = typeof m.content === "string" ? [m.content] : asList(m.content);
    for (const [j, block] of content.entries()) {
      push(block, i === 0 && j === 0 ? `${settings}${m.role}:` : j === 0 ? `${m.role}:` : "");
    }
  }
  return out;
}

function asList(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  return typeof v === "string" && v !== "" ? [v] : [];
}

/** Automatic prefix caching: the longest common prefix with an earlier prompt, in steps. */
export class AutomaticPromptCache {
  #prompts: string[] = [];

  use(body: Json): CacheUsage {
    const prompt = serializeChat(body);
    const total = tokens(prompt);
    let common = 0;
    for (const earlier of this.#prompts) common = Math.max(common, commonPrefix(earlier, prompt));
    const read = cachedTokens(Math.floor(common / CHARS_PER_TOKEN), total);
    if (total >= MIN_CACHEABLE_TOKENS) this.#prompts.push(prompt);
    return { input: total - read, read, written: 0 };
  }
}

/** A common prefix of `shared` tokens, as the provider counts it for a `total`-token prompt. */
export function cachedTokens(shared: number, total: number): number {
  if (total < MIN_CACHEABLE_TOKENS || shared < MIN_CACHEABLE_TOKENS) return 0;
  const steps = Math.floor((shared - MIN_CACHEABLE_TOKENS) / AUTOMATIC_STEP_TOKENS);
  return MIN_CACHEABLE_TOKENS + steps * AUTOMATIC_STEP_TOKENS;
}

/** The prompt as the server sees it: tool definitions first, then the messages in order. */
function serializeChat(body: Json): string {
  return [JSON.stringify(body.tools ?? []), ...asList(body.messages).map((m) => JSON.stringify(m))]
    .join("\n");
}

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The fake model server's caches, one per wire, shared by the requests of one fake. */
export class FakePromptCaches {
  readonly messages = new MessagesPromptCache();
  readonly automatic = new AutomaticPromptCache();

  /**
   * Fills a scripted reply's usage from the cache (when the script gave none): what the
   * request's prompt read and wrote, plus the reply's rough output tokens.
   */
  account(reply: ReplyBuilder, wire: "messages" | "chat_completions", body: Json): void {
    if (reply.usageValue) return;
    const u = wire === "messages" ? this.messages.use(body) : this.automatic.use(body);
    reply.usageValue = {
      input: u.input,
      output: outputTokens(reply),
      cacheRead: u.read,
      ...(wire === "messages" ? { cacheCreation: u.written } : {}),
    };
  }
}

function outputTokens(reply: ReplyBuilder): number {
  let chars = 0;
  for (const step of reply.steps) {
    if (step.kind === "text" || step.kind === "reasoning") chars += step.text.length;
    else if (step.kind === "tool") chars += step.name.length + JSON.stringify(step.args).length;
  }
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));
}
