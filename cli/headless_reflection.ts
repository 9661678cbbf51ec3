// The end-of-run memory reflection pass of `agent -p` (cli/headless.ts): whether it runs, and
// running it on what is left of the token budget. Its modules load only for a pass that runs.

import type { PermissionMode } from "../core/agent/permissions.ts";
import type { Journal } from "../core/agent/journal.ts";
import { type LoopResult, runLoop } from "../core/agent/loop.ts";
import { reflectionModeSkipReason, reflectionSkipReason } from "../core/memory/reflection_worth.ts";
import type { Clock, Env } from "../core/ports.ts";
import type { Usage } from "../core/wires/types.ts";
import { addUsage } from "../core/wires/usage.ts";
import type { AgentContext } from "./setup.ts";

/** What the pass needs of the headless run's surroundings. */
export interface ReflectionDeps {
  env: Env;
  clock: Clock;
  stderr: (text: string) => void;
  signal: AbortSignal;
}

/**
 * The end-of-run reflection pass, when memory and reflection are on, the mode lets memory be
 * edited without asking (auto), the run stopped, there is something to reflect on and token
 * budget left. Journaled either way; returns its usage.
 */
export async function maybeReflect(
  ctx: AgentContext,
  result: LoopResult,
  journal: Journal,
  deps: ReflectionDeps,
  mode: PermissionMode,
): Promise<Usage | null> {
  if (!ctx.memory || !ctx.settings.memory_reflect || result.done_reason !== "stop") return null;
  const budget = ctx.settings.token_budget;
  const left = budget === undefined
    ? undefined
    : budget - result.usage.input_tokens - result.usage.output_tokens;
  const skipped = reflectionModeSkipReason(mode) ??
    (left !== undefined && left <= 0
      ? `the token budget (${budget}) is spent`
      : reflectionSkipReason(result.messages));
  const at = () => deps.clock.now().toISOString();
  if (skipped) {
    journal.append({ type: "reflection", ran: false, skipped, at: at() });
    await journal.flush();
    return null;
  }
  const usage = await reflectHeadless(ctx, result, deps, left);
  journal.append({ type: "reflection", ran: true, usage, at: at() });
  await journal.flush();
  return usage;
}

/** Runs the reflection pass; returns the tokens it used (also when it failed part-way). */
async function reflectHeadless(
  ctx: AgentContext,
  result: LoopResult,
  deps: ReflectionDeps,
  tokenBudget: number | undefined,
): Promise<Usage> {
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  // Most runs skip reflection (core/memory/reflection_worth.ts), so its modules load only for
  // a pass that runs (see cli/main.ts).
  const { reflect } = await import("../core/memory/reflection.ts");
  const { REFLECTION_TIMEOUT_HEADLESS_MS } = await import("../core/memory/limits.ts");
  try {
    await reflect({
      transcript: result.messages,
      doneReason: result.done_reason,
      memory: ctx.memory!,
      timeoutMs: REFLECTION_TIMEOUT_HEADLESS_MS,
      clock: deps.clock,
      signal: deps.signal,
      env: deps.env,
      run: async ({ system, messages, tools, signal }) => {
        const pass = await runLoop(messages, {
          wire: ctx.wire,
          model: ctx.settings.model,
          system,
          tools,
          mode: "auto",
          workdir: ctx.workdir,
          context_window: ctx.resolver.contextWindow,
          max_turns: 8,
          ...(tokenBudget !== undefined ? { token_budget: tokenBudget } : {}),
          signal,
        });
        addUsage(usage, pass.usage);
      },
    });
  } catch (err) {
    deps.stderr(`agent: memory reflection failed: ${err instanceof Error ? err.message : err}\n`);
  }
  return usage;
}
