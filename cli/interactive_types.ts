// What an interactive session offers the modules that act on it (session commands, pickers,
// effort, memory, the status line). They depend on this interface, not on the Session class,
// so interactive_session.ts can import them without an import cycle.

import type { Clock, Env, WireFetch } from "../core/ports.ts";
import type { Message, ServedModel, Usage } from "../core/wires/types.ts";
import type { Flags } from "../core/settings/resolve.ts";
import type { CostMeter } from "../core/pricing/cost_meter.ts";
import type { AgentContext } from "./setup.ts";
import type { ParsedArgs } from "./args.ts";
import type { Terminal } from "./terminal/terminal.ts";
import type { Style } from "./terminal/style.ts";
import type { PermissionMode } from "../core/agent/permissions.ts";
import type { LoadedSession } from "../core/agent/journal.ts";
import type { SessionChanges } from "./interactive_changes.ts";

export interface SessionState {
  readonly term: Terminal;
  readonly style: Style;
  readonly env: Env;
  readonly modelFetch: WireFetch;
  readonly clock: Clock;
  readonly args: ParsedArgs;
  /** The live agent context; /model and /providers replace its endpoint, wire and settings. */
  readonly ctx: AgentContext;
  /** Settings flags the session resolves with (the command line's, then a swap's pins). */
  flags: Flags;
  history: Message[];
  effort: string | undefined;
  meter: CostMeter;
  /** The last completed turn's usage as the server reported it. */
  lastUsage: Usage | undefined;
  readonly sessionUsage: Usage;
  /** Reasoning blocks of the last reply (/reasoning). */
  lastReasoning: string[];
  /** Context window from a `[1m]` model id, unless context_window pins it. */
  contextOverride: number | undefined;
  /** The active endpoint's model listing, fetched when the /model picker first needs it. */
  listing: { endpoint: string; models: ServedModel[] | null } | undefined;
  completedReplies: number;
  /** The permission mode (/mode changes it for the rest of the session). */
  mode: PermissionMode;
  /** Files the edit tools changed in this session, for /diff. */
  readonly changes: SessionChanges;
  /** The tool calls of the last reply that made any, with their whole output (/expand). */
  lastTools: ToolOutput[];
  readonly contextWindow: number;
  readonly sessionId: string | undefined;
  print(text: string): void;
  note(text: string): void;
  error(text: string): void;
  /**
   * Runs `fn` with an abort signal that ctrl+c (and, when `escape` is set, esc) fires while
   * it runs; ctrl+q fires it too and ends the session afterwards.
   */
  guarded<T>(fn: (signal: AbortSignal) => Promise<T>, opts?: { escape?: boolean }): Promise<T>;
  /** Opens a prompt (picker, confirmation) with the reply's key watch paused meanwhile. */
  withPrompt<T>(fn: () => Promise<T>): Promise<T>;
  /** /clear: starts a new conversation; resolves with the saved one's id, if any. */
  newConversation(): Promise<string | undefined>;
  /** /resume: continues a saved conversation in place of the current one. */
  switchTo(resumed: LoadedSession & { id: string }): Promise<void>;
  /** /compact: replaces the history with its compacted form and journals it. */
  recordCompaction(messages: Message[]): Promise<void>;
}

/** Where a reply is drawn: the terminal, or a recording screen in tests. */
export interface Screen {
  write(text: string): void;
  columns(): number;
  rows(): number;
}

/** One tool call of the last reply and its whole output (/expand, ctrl+o). */
export interface ToolOutput {
  summary: string;
  content: string;
  is_error: boolean;
}
