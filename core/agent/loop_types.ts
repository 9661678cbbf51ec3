// The turn loop's contract (loop.ts): what a caller configures, what the loop reports as it
// goes, and how a leg ended. Types only, apart from the loop's code, which re-exports them.

import type { Message, StopReason, ToolCallPart, Usage, Wire, WireEvent } from "../wires/types.ts";
import type { Question, Tool } from "../tools/types.ts";
import type { Approval, DoneReason } from "./types.ts";
import type { Journal } from "./journal.ts";
import type { PermissionMode } from "./permissions.ts";
import type { ToolEvent } from "./tool_call.ts";

/** What the loop reports as it goes (for the terminal and logs). */
export type LoopEvent =
  | WireEvent
  | ToolEvent
  | { type: "compacted"; before: number; after: number };

export interface LoopConfig {
  wire: Wire;
  model: string;
  system: string;
  /**
   * Read again before each request: the caller may change it in place between requests (an
   * MCP server whose tool list changed, core/mcp/manager.ts), and the next request offers the
   * new list. A reply's calls run against the list its request offered.
   */
  tools: readonly Tool[];
  mode: PermissionMode;
  workdir: string;
  effort?: string;
  max_tokens?: number;
  /**
   * Cap on the run's input plus output tokens, checked before each request (see budget.ts):
   * a request whose estimated prompt does not fit is not sent, and a sent one has its reply
   * capped at what is left.
   */
  token_budget?: number;
  max_turns?: number;
  /** Compaction threshold as a fraction of the context window; unset = never compact. */
  compaction_threshold?: number;
  /** A function when the window can still change mid-run (the startup probe may land late). */
  context_window: number | (() => number);
  /** The session's prompt-cache key (WireRequest.cache_key); unset = none sent. */
  cache_key?: string;
  /** Per-turn volatile text (memory recall) for the latest user text. */
  reminder?: (userText: string) => string | undefined;
  /**
   * Interactive approval of edit/shell calls in strict mode; absent = needs-human ending.
   * `detail` is what the call will do (a diff, a command); feedback goes to the model.
   */
  approve?: (call: ToolCallPart, summary: string, detail?: string) => Promise<Approval>;
  /** Interactive answers to ask/propose_settings; absent = needs-human ending. */
  answer?: (call: ToolCallPart, questions: Question[]) => Promise<string>;
  journal?: Journal;
  onEvent?: (event: LoopEvent) => void;
  signal?: AbortSignal;
}

export interface LoopResult {
  done_reason: DoneReason;
  messages: Message[];
  final_text: string;
  usage: Usage;
  questions: Question[];
  /** Server-reported model name of the last completed turn (never a name that did not answer). */
  model?: string;
  /** The last completed turn's stop reason (max_tokens marks a cut-off answer). */
  stop_reason?: StopReason;
  error?: string;
  turns: number;
  /** The first refusal of a call for want of a sandbox (ToolOutcome's `refused`), if any. */
  refused?: string;
}
