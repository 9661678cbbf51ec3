// Memory in an interactive session: the reflection pass on quit (about 20 s; a second
// ctrl+c or esc skips it), /memory (the same pass mid-conversation, even when automatic
// reflection is off), /memory init (bootstrap from the repository's files) and /reload
// (re-compose the cached memory index and the system prompt).

import type { Message } from "../core/wires/types.ts";
import type { Tool } from "../core/tools/types.ts";
import { runLoop } from "../core/agent/loop.ts";
import { composeSystemPrompt } from "../core/agent/system_prompt.ts";
import type { ReflectionRunner } from "../core/memory/reflection.ts";
import { reflectionModeSkipReason, reflectionSkipReason } from "../core/memory/reflection_worth.ts";
import { ReplyView } from "./interactive_view.ts";
import type { SessionState } from "./interactive_types.ts";

/** Model turns one memory pass may take. */
const PASS_MAX_TURNS = 8;

/**
 * At quit: runs reflection when memory is on, reflection is on, something was said and the
 * mode lets memory be edited without asking (strict and plan mode skip it, with a note).
 */
export async function reflectOnQuit(s: SessionState): Promise<void> {
  const memory = s.ctx.memory;
  if (!memory || !s.ctx.settings.memory_reflect || s.completedReplies === 0) return;
  const modeSkip = reflectionModeSkipReason(s.mode);
  if (modeSkip) return s.note(`memory reflection skipped: ${modeSkip}`);
  // The headless rule (core/memory/reflection_worth.ts): a short exchange with no tool call
  // has nothing durable to record, so quitting after it costs no model call.
  const notWorth = reflectionSkipReason(s.history);
  if (notWorth) return s.note(`memory reflection skipped: ${notWorth}`);
  await reflectNow(s, false);
}

async function reflectNow(s: SessionState, force: boolean): Promise<void> {
  const memory = s.ctx.memory!;
  const { reflect, REFLECTION_TIMEOUT_INTERACTIVE_MS } = await import(
    "../core/memory/reflection.ts"
  );
  s.note(
    `Reflecting on the session to update memory (up to ${
      REFLECTION_TIMEOUT_INTERACTIVE_MS / 1000
    } s; ctrl+c or esc skips)…`,
  );
  const view = new ReplyView(s.term, s.style);
  const result = await s.guarded((signal) =>
    reflect({
      transcript: s.history,
      // Quitting is how an interactive session ends normally.
      doneReason: "stop",
      memory,
      run: memoryRunner(s, view),
      timeoutMs: REFLECTION_TIMEOUT_INTERACTIVE_MS,
      clock: s.clock,
      signal,
      force,
      env: s.env,
    }), { escape: true });
  await view.finish();
  if (!result.ran) s.note(`memory reflection skipped: ${result.skipped ?? "nothing to do"}`);
  else if (result.aborted) s.note("memory reflection skipped");
  else if (result.timed_out) s.note("memory reflection stopped at its time limit");
  else if (result.error) s.error(`memory reflection failed: ${result.error}`);
  else {
    const n = result.tool_calls ?? 0;
    s.note(`memory reflection done (${n} memory call${n === 1 ? "" : "s"})`);
  }
}

/** A memory pass's runner: one bounded agent loop showing its tool calls. */
function memoryRunner(s: SessionState, view: ReplyView): ReflectionRunner {
  return async ({ system, messages, tools, signal }) => {
    await runLoop(messages as Message[], {
      wire: s.ctx.wire,
      model: s.ctx.settings.model,
      system,
      tools: tools as Tool[],
      mode: "auto",
      workdir: s.ctx.workdir,
      context_window: s.contextWindow,
      max_turns: PASS_MAX_TURNS,
      signal,
      onEvent: (e) => {
        if (e.type === "tool_start" || e.type === "tool_end") view.onEvent(e);
      },
    });
  };
}

/** /memory and /memory init. */
export async function memoryCommand(s: SessionState, arg: string): Promise<void> {
  if (!s.ctx.memory) {
    return s.error("Memory is off for this session (memory_enabled = false).");
  }
  const sub = arg.trim();
  const modeSkip = reflectionModeSkipReason(s.mode);
  if (modeSkip && (sub === "" || sub === "init")) {
    // The pass's memory calls are not put to the operator one by one.
    return s.error(`/memory${sub ? ` ${sub}` : ""} not run (${modeSkip}); /mode auto allows it.`);
  }
  if (sub === "") {
    if (s.history.length === 0) return s.note("nothing to reflect on yet");
    await reflectNow(s, true);
    return s.note("/reload puts the updated memory index into the prompt");
  }
  if (sub === "init") return await memoryInit(s);
  s.error(`Unknown /memory command ${JSON.stringify(sub)}: use /memory or /memory init.`);
}

async function memoryInit(s: SessionState): Promise<void> {
  const memory = s.ctx.memory!;
  const { bootstrapMemory } = await import("../core/memory/bootstrap.ts");
  const { REFLECTION_TIMEOUT_HEADLESS_MS } = await import("../core/memory/limits.ts");
  s.note(
    "Building memory from the repository's agent, status, readme and docs files (ctrl+c or esc stops)…",
  );
  const view = new ReplyView(s.term, s.style);
  const result = await s.guarded((signal) =>
    bootstrapMemory({
      memory,
      workdir: s.ctx.workdir,
      run: memoryRunner(s, view),
      timeoutMs: REFLECTION_TIMEOUT_HEADLESS_MS,
      clock: s.clock,
      signal,
    }), { escape: true });
  await view.finish();
  if (!result.ran) return s.note(`/memory init skipped: ${result.skipped ?? "nothing to do"}`);
  if (result.aborted) return s.note("/memory init stopped");
  if (result.timed_out) return s.note("/memory init stopped at its time limit");
  if (result.error) return s.error(`/memory init failed: ${result.error}`);
  const n = result.tool_calls ?? 0;
  s.note(
    `/memory init read ${result.sources.join(", ")} and made ${n} memory call${n === 1 ? "" : "s"}`,
  );
  reloadPrompt(s);
}

/** /reload: the memory index and the system prompt, composed again. */
export function reloadPrompt(s: SessionState): void {
  const memory = s.ctx.memory;
  const index = memory?.reload();
  s.ctx.system = composeSystemPrompt({
    workdir: s.ctx.workdir,
    today: s.clock.now().toISOString().slice(0, 10),
    mode: s.mode,
    ...(s.ctx.brief ? { brief: s.ctx.brief } : {}),
    ...(index ? { memoryIndex: index } : {}),
  });
  s.note(
    memory
      ? `memory index reloaded (${
        index?.split("\n").length ?? 0
      } lines); the prompt cache starts over`
      : "system prompt re-composed (memory is off)",
  );
}
