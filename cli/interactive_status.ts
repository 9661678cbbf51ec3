// The banner at start-up and the status line drawn above every input prompt: resolved model
// name, endpoint, effort, context use and (when on) the running cost.

import { VERSION } from "./version.ts";
import { formatCost } from "../core/pricing/pricing.ts";
import { formatTokens, tokenBreakdown } from "./interactive_tokens.ts";
import { promptTokens } from "../core/wires/usage.ts";
import { truncate } from "./terminal/style.ts";
import type { SessionState } from "./interactive_types.ts";
import { missingKeyMessage, needsKey, providerLabel } from "./interactive_swap.ts";
import { sandboxOffWarning } from "./config_command.ts";
import { mcpStatusPart } from "./interactive_mcp.ts";

export function banner(s: SessionState): string {
  const { style, ctx } = s;
  const lines = [
    `${style.bold(`agent ${VERSION}`)} · model ${style.cyan(ctx.resolver.displayName)}`,
    style.dim(
      `${ctx.settings.provider} · ${providerLabel(ctx.settings, ctx.endpoint)} · mode ${s.mode}` +
        ` · ${ctx.workdir}`,
    ),
    style.dim(
      "/help lists commands · end a line with \\ to continue it · esc interrupts a reply · ctrl+q quits",
    ),
  ];
  // Nothing chose the endpoint: say it is the built-in default and how to choose another.
  if (
    ctx.settings.base_url === undefined && ctx.settings.provider_preset === undefined &&
    ctx.settings.sources.model?.kind === "default"
  ) {
    lines.push(style.dim(
      `built-in default: ${ctx.endpoint.base_url} with ${ctx.settings.model}; ` +
        "/providers picks another, or set AGENT_BASE_URL (and AGENT_MODEL) for your own server",
    ));
  }
  for (const w of ctx.settings.warnings) lines.push(style.yellow(`warning: ${w}`));
  if (ctx.sandbox.mode === "off") lines.push(style.yellow(sandboxOffWarning(ctx.settings)));
  const missing = missingKeyMessage({
    settings: ctx.settings,
    endpoint: ctx.endpoint,
    keyNeeded: needsKey(ctx.settings),
  });
  if (missing) lines.push(style.yellow(missing));
  return lines.join("\n");
}

/**
 * One dim line: model · endpoint · mode · effort · context · cost · MCP servers still
 * connecting or failed. Too wide for the terminal, parts are dropped by priority (endpoint
 * first, context use last) before anything is cut.
 */
export function statusLine(s: SessionState): string {
  const parts: { text: string; keep: number }[] = [
    { text: s.ctx.resolver.displayName, keep: 3 },
    { text: providerLabel(s.ctx.settings, s.ctx.endpoint), keep: 0 },
    { text: `mode ${s.mode}`, keep: 4 },
    { text: `effort ${s.effort ?? "default"}`, keep: 1 },
    {
      text: `ctx ${contextText(s)}/${formatTokens(s.contextWindow)}`,
      keep: 5,
    },
  ];
  const cost = costText(s);
  if (cost) parts.push({ text: cost, keep: 2 });
  const mcp = mcpStatusPart(s);
  if (mcp) parts.push({ text: mcp, keep: 1 });
  const width = Math.max(20, s.term.columns() - 2);
  const line = () => `─ ${parts.map((p) => p.text).join(" · ")} ─`;
  while (parts.length > 1 && [...line()].length > width) {
    const least = parts.reduce((a, b) => (b.keep < a.keep ? b : a));
    parts.splice(parts.indexOf(least), 1);
  }
  return s.style.dim(truncate(line(), width));
}

/** The context the model saw on the last turn (prompt plus reply). */
export function lastContextTokens(s: SessionState): number {
  return s.lastUsage ? promptTokens(s.lastUsage) + s.lastUsage.output_tokens : 0;
}

/**
 * Context use for the status line: the server's count of the last turn; before any turn of a
 * resumed conversation, an estimate of what the next request will carry, marked `~`.
 */
function contextText(s: SessionState): string {
  if (s.lastUsage || s.history.length === 0) return formatTokens(lastContextTokens(s));
  const estimate = tokenBreakdown({
    system: s.ctx.system,
    tools: s.ctx.tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
    })),
    history: s.history,
    contextWindow: s.contextWindow,
  }).total;
  return `~${formatTokens(estimate)}`;
}

/** The running cost for display, or "" when it is off or the model has no price. */
export function costText(s: SessionState): string {
  const m = s.meter;
  if (!m.enabled || !m.priced(s.ctx.resolver.displayName) || m.total === null) return "";
  return `${formatCost(m.total)}${m.footnotes.length > 0 ? "*" : ""}`;
}
