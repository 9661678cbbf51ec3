// Memory reflection: at session end, ONE bounded extra agent turn over the live memory tool
// with the full transcript in context. The agent loop lives elsewhere, so the pass is
// driven through a runner callback. reflect() never mutates the transcript it is given;
// the runner gets a deep copy with a closing instruction appended.

import type { DoneReason } from "../agent/types.ts";
import type { Clock, Env } from "../ports.ts";
import type { Tool } from "../tools/types.ts";
import type { Message, Part } from "../wires/types.ts";
import { gateTool, runBounded } from "./bounded_run.ts";
import { BOUNDED_PASS_MAX_TOOL_CALLS } from "./limits.ts";
import prompt from "./reflection_prompt.md" with { type: "text" };

export { REFLECTION_TIMEOUT_HEADLESS_MS, REFLECTION_TIMEOUT_INTERACTIVE_MS } from "./limits.ts";

/** Runs one agent turn (model calls and tool calls until the model stops). */
export type ReflectionRunner = (input: {
  system: string;
  messages: Message[];
  tools: Tool[];
  signal: AbortSignal;
}) => Promise<void>;

/** What reflection needs from the memory store. */
export interface ReflectionMemory {
  tool(): Tool;
  cachedIndex(): string;
}

export interface ReflectOptions {
  transcript: readonly Message[];
  doneReason: DoneReason;
  memory: ReflectionMemory;
  run: ReflectionRunner;
  timeoutMs: number;
  clock: Clock;
  /** Aborts the pass (second ctrl+c / esc). */
  signal?: AbortSignal;
  /** /memory: run whatever the done reason (and even when automatic reflection is off). */
  force?: boolean;
  /** AGENT_JOB_ID / AGENT_JOB_NAME label memories written after a scheduled run. */
  env?: Env;
}

export interface ReflectResult {
  ran: boolean;
  /** Why it did not run. */
  skipped?: string;
  /** The runner was aborted at timeoutMs. */
  timed_out?: boolean;
  /** The caller's signal aborted the runner. */
  aborted?: boolean;
  /** The runner failed (memory changes made before the failure stay). */
  error?: string;
  /** Memory-tool calls the pass made. */
  tool_calls?: number;
}

export const REFLECTION_REQUEST = "The session is over. Run the memory reflection described in " +
  "the system prompt now: record only what will matter in a later session, or nothing.";

/** Deep-copies the transcript and appends the reflection request as the last user turn. */
export function reflectionMessages(transcript: readonly Message[], request: string): Message[] {
  const messages = structuredClone(transcript) as Message[];
  const parts: Part[] = [];
  const last = messages.at(-1);
  if (last?.role === "assistant") {
    // Tool calls left without results (a turn cut short) get a result, so the request
    // stays well formed on both wires.
    for (const p of last.parts) {
      if (p.type === "tool_call") {
        parts.push({
          type: "tool_result",
          call_id: p.id,
          content: "Not run: the session ended.",
          is_error: true,
        });
      }
    }
  }
  parts.push({ type: "text", text: request });
  if (last?.role === "user") last.parts.push(...parts);
  else messages.push({ role: "user", parts });
  return messages;
}

/** The memory index for a pass's system prompt; a broken store must not stop the pass. */
export function indexForPrompt(memory: ReflectionMemory): string {
  try {
    return memory.cachedIndex();
  } catch (err) {
    return `# Memory\n(the memory index could not be read: ${(err as Error).message})`;
  }
}

function jobLine(env: Env | undefined): string {
  const id = env?.get("AGENT_JOB_ID");
  const name = env?.get("AGENT_JOB_NAME");
  if (!id && !name) return "";
  return `\n\nThis session was the scheduled job ${name ?? "(unnamed)"}` +
    `${id ? ` (id ${id})` : ""}; name it in any episodic memory you write.`;
}

export async function reflect(opts: ReflectOptions): Promise<ReflectResult> {
  if (!opts.force && opts.doneReason !== "stop") {
    return { ran: false, skipped: `the run ended with done_reason ${opts.doneReason}` };
  }
  if (opts.transcript.length === 0) return { ran: false, skipped: "the transcript is empty" };
  if (opts.signal?.aborted) return { ran: false, skipped: "aborted before it started" };

  const system = `${prompt.trim()}\n\n${indexForPrompt(opts.memory)}${jobLine(opts.env)}`;
  const messages = reflectionMessages(opts.transcript, REFLECTION_REQUEST);
  const gate = gateTool(opts.memory.tool(), BOUNDED_PASS_MAX_TOOL_CALLS, "reflection");
  const outcome = await runBounded(
    (signal) => opts.run({ system, messages, tools: [gate.tool], signal }),
    {
      timeoutMs: opts.timeoutMs,
      clock: opts.clock,
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
  );
  gate.close();
  return { ran: true, ...outcome, tool_calls: gate.calls };
}
