// Outcome vocabulary shared by the loop, headless runs, memory reflection and the outpost.

import type { Question } from "../tools/types.ts";
import type { StopReason, Usage } from "../wires/types.ts";

/**
 * Why a run ended. Reflection runs only after `stop`. `truncated`: the final answer was cut
 * off by max_tokens; it is an error (exit 1), never continued automatically, because a
 * continuation cannot be told apart from a fresh answer and hides a cap that is too small.
 */
export type DoneReason =
  | "stop"
  | "truncated"
  | "error"
  | "token_budget"
  | "turn_cap"
  | "loop_detected"
  | "needs_human";

export type Outcome = "ok" | "error" | "needs_human";

export const EXIT_CODES: Readonly<Record<Outcome, 0 | 1 | 2>> = {
  ok: 0,
  error: 1,
  needs_human: 2,
};

/**
 * What `agent -p --output-format json` prints on stdout (one JSON object), and what the
 * outpost reads back from each child it runs.
 */
export interface HeadlessResult {
  outcome: Outcome;
  exit_code: 0 | 1 | 2;
  done_reason: DoneReason;
  /**
   * Journal id; `agent --resume <session_id>` continues it. Null when the run failed before
   * its session began (no key, a bad setting, a missing workdir).
   */
  session_id: string | null;
  /**
   * Resolved model name (the served name for the `default` sentinel when known; a server
   * echoing `default` back never replaces it).
   */
  model: string;
  /**
   * Every token of the run, the memory reflection pass included. cli/headless.ts always
   * prints the two prompt-cache counts (0 when the server reported none): `input_tokens` excludes them, so
   * the prompts sent add up to input + cache_read + cache_write.
   */
  usage: Usage;
  /** The reflection pass's share of `usage`, when a pass ran after the run's answer. */
  reflection_usage?: Usage;
  /**
   * Cost in USD when pricing is on and the model is in the table, rounded to 6 decimal places
   * (COST_DECIMALS); otherwise null.
   */
  cost_usd: number | null;
  /**
   * What the prompt cache saved against the same prompts billed in full (pricing.ts
   * cacheSavingOf), rounded like cost_usd; present only when cost_usd is.
   */
  cache_saving_usd?: number;
  final_text: string;
  /** The last model turn's stop reason (end_turn, tool_use, max_tokens, …) when one ended. */
  stop_reason?: StopReason;
  /** Questions for a needs_human ending (empty otherwise). */
  questions: Question[];
  /** One-line cause for an error ending. */
  error?: string;
  /**
   * true when the run stopped before its first turn on its configuration (a setting, the
   * workdir, the project file, the key): running it again fails the same way until someone
   * fixes the cause, so the outpost does not retry it (core/scheduler/outcomes.ts).
   */
  setup_error?: true;
  report_path?: string;
  /**
   * What confined the model's commands ("auto (bubblewrap, network off)", "off (commands run
   * unsandboxed, …)"); absent when the run failed before its sandbox was set up.
   */
  sandbox?: string;
  duration_ms: number;
  job_id?: string;
  job_name?: string;
  /** The configured MCP servers: their state at the start and the tools they offered. */
  mcp_servers?: McpServerReport[];
}

/** One MCP server as a run's report and JSON result record it. */
export interface McpServerReport {
  name: string;
  /** ready, failed, disabled, needs_approval, connecting, or remembered (its remembered tools
   * were offered; the run never needed the server, so it was not started). */
  state: string;
  tools: string[];
  error?: string;
}

/** A human's answer to a strict-mode approval; feedback (on a refusal) is passed to the model. */
export interface Approval {
  approved: boolean;
  feedback?: string;
}
