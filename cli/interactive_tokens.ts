// /tokens: where the context goes, per component (spec 4.2). Counts are estimates at about
// four characters per token (no tokenizer ships with the agent); the last turn's figures
// from the server are shown beside them.

import type { Message, ToolSpec, Usage } from "../core/wires/types.ts";

export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

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
  const history = input.history.reduce((sum, m) => sum + messageTokens(m), 0);
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

function messageTokens(message: Message): number {
  let n = 0;
  for (const p of message.parts) {
    switch (p.type) {
      case "text":
      case "reasoning":
        n += estimateTokens(p.text);
        break;
      case "tool_call":
        n += estimateTokens(p.name + JSON.stringify(p.input));
        break;
      case "tool_result":
        n += estimateTokens(p.content);
        break;
      case "redacted_reasoning":
        n += estimateTokens(p.data);
        break;
    }
  }
  return n;
}

/** 950 → "950", 12_345 → "12.3k", 1_000_000 → "1M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** The whole prompt of a turn as the server counted it. */
export function promptTokens(u: Usage): number {
  return u.input_tokens + (u.cache_read_tokens ?? 0) + (u.cache_creation_tokens ?? 0);
}

export interface TokenReport {
  breakdown: TokenBreakdown;
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
    `Context (estimated at ~${CHARS_PER_TOKEN} characters per token):`,
    `  system prompt  ${n(b.system)}`,
    `  memory index   ${n(b.memoryIndex)}`,
    `  tools          ${n(b.tools)}`,
    `  history        ${n(b.history)}  (${b.messages} message${b.messages === 1 ? "" : "s"})`,
    `  total          ${n(b.total)}  of ${b.contextWindow.toLocaleString("en-US")} (${pct}%)`,
  ];
  if (r.lastTurn) {
    const u = r.lastTurn;
    lines.push(
      `Last turn (server): prompt ${promptTokens(u).toLocaleString("en-US")}` +
        (u.cache_read_tokens ? ` (${u.cache_read_tokens.toLocaleString("en-US")} cached)` : "") +
        ` · output ${u.output_tokens.toLocaleString("en-US")}`,
    );
  }
  lines.push(
    `Session: input ${promptTokens(r.session).toLocaleString("en-US")} · output ${
      r.session.output_tokens.toLocaleString("en-US")
    }`,
  );
  if (r.cost) lines.push(`Running cost: ${r.cost}`);
  for (const f of r.footnotes ?? []) lines.push(`  ${f}`);
  return lines;
}
