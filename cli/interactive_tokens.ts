// /tokens: where the context goes, per component (spec 4.2). The components are estimates at
// about four characters per token (no tokenizer ships with the agent); beside them stand the
// whole prompt as the server counts it now (Wire.countTokens, spec 4.3 rule 5) and the last
// turn's figures from the server.

import type { Clock } from "../core/ports.ts";
import type { Message, ToolSpec, Usage, Wire, WireRequest } from "../core/wires/types.ts";
import { CHARS_PER_TOKEN, estimateTokens, messagesTokens } from "../core/wires/token_estimate.ts";
import { promptTokens } from "../core/wires/usage.ts";

export { CHARS_PER_TOKEN, estimateTokens };

export interface TokenBreakdown {
  system: number;
  memoryIndex: number;
  tools: number;
  history: number;
  total: number;
  messages: number;
  contextWindow: number;
}

export interface BreakdownInput {
  /** The frozen system prompt, memory index included. */
  system: string;
  /** The memory index inside the system prompt, when memory is on. */
  memoryIndex?: string;
  tools: readonly ToolSpec[];
  history: readonly Message[];
  contextWindow: number;
}

export function tokenBreakdown(input: BreakdownInput): TokenBreakdown {
  const index = input.memoryIndex?.trim() ?? "";
  const indexed = index !== "" && input.system.includes(index);
  const memoryIndex = indexed ? estimateTokens(index) : 0;
  const system = Math.max(0, estimateTokens(input.system) - memoryIndex);
  const tools = estimateTokens(JSON.stringify(input.tools));
  const history = messagesTokens(input.history);
  return {
    system,
    memoryIndex,
    tools,
    history,
    total: system + memoryIndex + tools + history,
    messages: input.history.length,
    contextWindow: input.contextWindow,
  };
}

/** 950 → "950", 12_345 → "12.3k", 1_000_000 → "1M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** The server's count of the whole prompt, or why there is none. */
export type ServerCount = { tokens: number } | { tokens: null; reason: string };

/** /tokens waits this long for the server's count, then shows the estimates without it. */
export const COUNT_TIMEOUT_MS = 5_000;

/**
 * A user turn standing in for the next message. The Messages API refuses a prompt that ends
 * on an assistant turn (prefill) or has no message at all, and the next request always ends
 * on a user turn, so one is added when the history does not end on one. It adds a few tokens.
 */
export const NEXT_MESSAGE_PLACEHOLDER = ".";

export interface PromptInput {
  model: string;
  system: string;
  tools: readonly ToolSpec[];
  history: readonly Message[];
  effort?: string | undefined;
}

/** The request the next reply would send (without the next message's own text). */
export function promptForCount(input: PromptInput): WireRequest {
  const last = input.history.at(-1);
  const messages: Message[] = last?.role === "user" ? [...input.history] : [
    ...input.history,
    { role: "user", parts: [{ type: "text", text: NEXT_MESSAGE_PLACEHOLDER }] },
  ];
  return {
    model: input.model,
    system: input.system,
    messages,
    tools: input.tools,
    ...(input.effort ? { effort: input.effort } : {}),
  };
}

export interface CountOptions {
  clock: Clock;
  /** Aborts the count (ctrl+c). */
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * Asks the wire for the whole prompt's count. Never throws and never outlives the timeout
 * (on `clock` time), even when the wire ignores the abort.
 */
export async function countPrompt(
  wire: Wire,
  req: WireRequest,
  opts: CountOptions,
): Promise<ServerCount> {
  const ms = opts.timeoutMs ?? COUNT_TIMEOUT_MS;
  const timeout = new AbortController();
  const stopTimer = new AbortController();
  opts.clock.sleep(ms, stopTimer.signal).then(
    () => timeout.abort(new Error("timed out")),
    () => {/* stopped: the count came first */},
  );
  const signal = opts.signal ? AbortSignal.any([opts.signal, timeout.signal]) : timeout.signal;
  const gaveUp = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  gaveUp.catch(() => {/* raced below */});
  try {
    const n = await Promise.race([wire.countTokens(req, signal), gaveUp]);
    if (n !== null) return { tokens: n };
    return { tokens: null, reason: wire.countProblem ?? "the server did not say" };
  } catch (e) {
    if (opts.signal?.aborted) return { tokens: null, reason: "interrupted" };
    if (timeout.signal.aborted) {
      return { tokens: null, reason: `no answer within ${seconds(ms)}` };
    }
    return { tokens: null, reason: e instanceof Error ? e.message : String(e) };
  } finally {
    stopTimer.abort();
  }
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The report's server line: the count and its share of the window, or why there is none. */
export function serverCountLine(count: ServerCount, contextWindow: number): string {
  if (count.tokens === null) return `Counted by the server: not available (${count.reason})`;
  const share = contextWindow > 0
    ? `, ${Math.round((count.tokens / contextWindow) * 100)}% of ${
      contextWindow.toLocaleString("en-US")
    }`
    : "";
  return `Counted by the server: ${count.tokens.toLocaleString("en-US")} tokens ` +
    `(whole prompt${share})`;
}

export interface TokenReport {
  breakdown: TokenBreakdown;
  /** The whole prompt as the server counts it now (absent: not asked). */
  serverCount?: ServerCount;
  /** The last completed turn as the server reported it. */
  lastTurn?: Usage;
  /** Everything this session sent and received. */
  session: Usage;
  /** The running cost line ("$0.06 on hosted-messages"), when cost display is on. */
  cost?: string;
  footnotes?: readonly string[];
}

export function renderTokenReport(r: TokenReport): string[] {
  const b = r.breakdown;
  const n = (v: number) => v.toLocaleString("en-US").padStart(9);
  const pct = b.contextWindow > 0 ? Math.round((b.total / b.contextWindow) * 100) : 0;
  const lines = [
    `Context by component (estimates at ~${CHARS_PER_TOKEN} characters per token):`,
    `  system prompt  ${n(b.system)}`,
    `  memory index   ${n(b.memoryIndex)}`,
    `  tools          ${n(b.tools)}`,
    `  history        ${n(b.history)}  (${b.messages} message${b.messages === 1 ? "" : "s"})`,
    `  total          ${n(b.total)}  of ${b.contextWindow.toLocaleString("en-US")} (${pct}%)`,
  ];
  if (r.serverCount) lines.push(serverCountLine(r.serverCount, b.contextWindow));
  if (r.lastTurn) {
    const u = r.lastTurn;
    const cached = [
      u.cache_read_tokens ? `${u.cache_read_tokens.toLocaleString("en-US")} cached` : "",
      u.cache_write_tokens ? `${u.cache_write_tokens.toLocaleString("en-US")} written` : "",
    ].filter((part) => part !== "").join(", ");
    lines.push(
      `Last turn (server): prompt ${promptTokens(u).toLocaleString("en-US")}` +
        (cached ? ` (${cached})` : "") +
        ` · output ${u.output_tokens.toLocaleString("en-US")}`,
    );
  }
  lines.push(
    `Session: input ${promptTokens(r.session).toLocaleString("en-US")} · output ${
      r.session.output_tokens.toLocaleString("en-US")
    }`,
  );
  const cache = cacheLine(r.session);
  if (cache) lines.push(cache);
  if (r.cost) lines.push(`Running cost: ${r.cost}`);
  for (const f of r.footnotes ?? []) lines.push(`  ${f}`);
  return lines;
}

/**
 * "Prompt cache: 91% of the session's prompt tokens read from the cache (90,000 read, 4,000
 * written)"; null before the server reported any cache use.
 */
export function cacheLine(u: Usage): string | null {
  const read = u.cache_read_tokens ?? 0;
  const written = u.cache_write_tokens ?? 0;
  if (read === 0 && written === 0) return null;
  const share = Math.round((read / promptTokens(u)) * 100);
  return `Prompt cache: ${share}% of the session's prompt tokens read from the cache (` +
    `${read.toLocaleString("en-US")} read, ${written.toLocaleString("en-US")} written)`;
}
