// Session commands (spec 4.2): parsing, /help, and the small ones (/cost, /tokens,
// /reasoning). /model and /providers live in interactive_model.ts, /effort in
// interactive_effort.ts, /memory and /reload in interactive_memory.ts.

import { formatCost } from "../core/pricing/pricing.ts";
import type { SessionState } from "./interactive_types.ts";
import { modelCommand, providersCommand } from "./interactive_model.ts";
import { effortCommand } from "./interactive_effort.ts";
import { memoryCommand, reloadPrompt } from "./interactive_memory.ts";
import {
  clearCommand,
  compactCommand,
  diffCommand,
  modeCommand,
  resumeCommand,
} from "./interactive_conversation.ts";
import { expandCommand } from "./interactive_expand.ts";
import { mcpCommand } from "./interactive_mcp.ts";
import {
  cacheLine,
  countPrompt,
  promptForCount,
  renderTokenReport,
  tokenBreakdown,
} from "./interactive_tokens.ts";

export interface CommandSpec {
  name: string;
  usage: string;
  help: string;
}

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: "model",
    usage: "/model [id]",
    help: "switch model: bare opens the picker (f favorites a row)",
  },
  { name: "providers", usage: "/providers [id]", help: "enter a provider's API key (masked)" },
  { name: "effort", usage: "/effort [level]", help: "reasoning effort: bare opens the picker" },
  {
    name: "cost",
    usage: "/cost [on|off]",
    help: "cost display: report, enable, or disable and reset",
  },
  {
    name: "tokens",
    usage: "/tokens",
    help: "where the context goes, per component, and the server's count",
  },
  { name: "reasoning", usage: "/reasoning", help: "show the last reply's reasoning in full" },
  { name: "reload", usage: "/reload", help: "re-compose the memory index and the system prompt" },
  {
    name: "memory",
    usage: "/memory [init]",
    help: "reflect into memory now; init builds it from the repo",
  },
  { name: "clear", usage: "/clear", help: "start a new conversation (this one stays saved)" },
  { name: "compact", usage: "/compact", help: "summarize the older history now to free context" },
  {
    name: "resume",
    usage: "/resume [id]",
    help: "continue a conversation saved in this folder: bare opens a list",
  },
  { name: "mode", usage: "/mode [auto|strict|plan]", help: "permission mode for edits and shell" },
  {
    name: "mcp",
    usage: "/mcp [reconnect|approve NAME]",
    help: "MCP servers, their state and tools; reconnect a failed one, approve a project one",
  },
  { name: "diff", usage: "/diff", help: "what this session's edits changed in the workdir" },
  {
    name: "expand",
    usage: "/expand [all]",
    help: "the last tool call's whole output (ctrl+o); all: every call of the last reply",
  },
  { name: "help", usage: "/help", help: "this list" },
  { name: "exit", usage: "/exit, /quit", help: "quit (memory reflection runs first)" },
];

export function parseCommand(text: string): { name: string; arg: string } {
  const trimmed = text.trim().replace(/^\//, "");
  const space = trimmed.search(/\s/);
  if (space === -1) return { name: trimmed.toLowerCase(), arg: "" };
  return { name: trimmed.slice(0, space).toLowerCase(), arg: trimmed.slice(space + 1).trim() };
}

export async function runCommand(s: SessionState, text: string): Promise<"quit" | void> {
  const { name, arg } = parseCommand(text);
  switch (name) {
    case "exit":
    case "quit":
      return "quit";
    case "help":
      return showHelp(s);
    case "model":
      return await modelCommand(s, arg);
    case "providers":
      return await providersCommand(s, arg);
    case "effort":
      return await effortCommand(s, arg);
    case "cost":
      return costCommand(s, arg);
    case "tokens":
      return await tokensCommand(s);
    case "reasoning":
      return showReasoning(s);
    case "reload":
      return reloadPrompt(s);
    case "memory":
      return await memoryCommand(s, arg);
    case "clear":
      return await clearCommand(s);
    case "compact":
      return await compactCommand(s);
    case "resume":
      return await resumeCommand(s, arg);
    case "mode":
      return modeCommand(s, arg);
    case "diff":
      return diffCommand(s);
    case "mcp":
      return await mcpCommand(s, arg);
    case "expand":
      return expandCommand(s, arg);
    default:
      s.error(`Unknown command /${name}. /help lists the commands.`);
  }
}

function showHelp(s: SessionState): void {
  // The column is as wide as the longest usage, so no row (e.g. /mcp's) pushes its help out.
  const column = Math.max(...COMMANDS.map((c) => c.usage.length));
  for (const c of COMMANDS) s.print(`  ${c.usage.padEnd(column)}  ${s.style.dim(c.help)}`);
  s.print(
    s.style.dim(
      "  keys: esc or ctrl+c interrupts a reply (ctrl+c twice at an empty prompt quits) · " +
        "ctrl+q quits · ctrl+o expands the last tool output · ↑↓ walk the input history · " +
        "a line ending in \\ continues · what you type during a reply is sent after it",
    ),
  );
}

export function costCommand(s: SessionState, arg: string): void {
  const m = s.meter;
  const sub = arg.trim().toLowerCase();
  if (sub === "on") {
    m.enable();
    return s.print("cost display on; the running total starts at zero");
  }
  if (sub === "off") {
    m.disable();
    return s.print("cost display off; the running total is reset");
  }
  if (sub !== "") {
    return s.error(`Unknown /cost argument ${JSON.stringify(arg)}: use on, off or nothing.`);
  }
  for (const line of costReport(s)) s.print(line);
}

/** What /cost says: on/off, the running total (or why there is none), footnotes. */
export function costReport(s: SessionState): string[] {
  const m = s.meter;
  if (!m.enabled) return ["cost display is off (/cost on enables it)"];
  const model = s.ctx.resolver.displayName;
  const rate = m.rate(model);
  const lines: string[] = [];
  if (!rate) {
    lines.push(
      `cost display is on, but the price table has no entry for ${model} on ${m.provider}: no cost is shown`,
    );
  } else if (m.total === null) {
    lines.push(
      `running total unknown: no price for ${m.unpricedModels.join(", ")} on ${m.provider}`,
    );
  } else {
    lines.push(
      `running total ${formatCost(m.total)} on ${m.label} over ${m.turns} repl${
        m.turns === 1 ? "y" : "ies"
      } ` +
        `(${model}: $${rate.input} in / $${rate.output} out per million tokens; ` +
        `cache reads $${rate.cache_read ?? rate.input}, writes $${rate.cache_write ?? rate.input})`,
    );
    const cache = cacheLine(s.sessionUsage);
    if (cache) lines.push(`${cache}${savingText(m.cacheSaving)}`);
  }
  lines.push(...costFootnotes(s));
  return lines;
}

/** "; saved $0.12" (or "; cost $0.01 more" while writes outweigh reads); "" when unknown. */
function savingText(saving: number | null): string {
  if (saving === null) return "";
  return saving >= 0
    ? `; saved ${formatCost(saving)}`
    : `; cost ${formatCost(-saving)} more than no cache (writes not yet read back)`;
}

function costFootnotes(s: SessionState): string[] {
  return s.meter.footnotes.map((f) =>
    `* before the swap to ${s.meter.label}: ${
      f.usd === null ? "unknown (unpriced model)" : formatCost(f.usd)
    } on ${f.label}`
  );
}

async function tokensCommand(s: SessionState): Promise<void> {
  const memoryIndex = s.ctx.memory?.cachedIndex();
  const tools = s.ctx.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
  }));
  const breakdown = tokenBreakdown({
    system: s.ctx.system,
    ...(memoryIndex ? { memoryIndex } : {}),
    tools,
    history: s.history,
    contextWindow: s.contextWindow,
  });
  // The same system prompt, tools, history and effort the next reply sends (loopConfig).
  const request = promptForCount({
    model: s.ctx.settings.model,
    system: s.ctx.system,
    tools,
    history: s.history,
    effort: s.effort,
  });
  const serverCount = await s.guarded((signal) =>
    countPrompt(s.ctx.wire, request, { clock: s.clock, signal })
  );
  const m = s.meter;
  const priced = m.enabled && m.priced(s.ctx.resolver.displayName) && m.total !== null;
  const lines = renderTokenReport({
    breakdown,
    serverCount,
    ...(s.lastUsage ? { lastTurn: s.lastUsage } : {}),
    session: s.sessionUsage,
    ...(priced ? { cost: `${formatCost(m.total)} on ${m.label}${savingText(m.cacheSaving)}` } : {}),
    ...(m.enabled ? { footnotes: costFootnotes(s) } : {}),
  });
  for (const line of lines) s.print(line);
}

function showReasoning(s: SessionState): void {
  if (s.lastReasoning.length === 0) return s.note("the last reply showed no reasoning");
  for (const block of s.lastReasoning) s.print(s.style.dim(block));
}
