// A tool is a value: a schema, a kind the permission mode decides on, and an execute.

import type { ImageAttachment, JsonSchema } from "../wires/types.ts";

export type ToolKind = "read" | "edit" | "shell" | "ask";

export type QuestionKind = "question" | "elicitation" | "approval" | "plan" | "proposal";
export const QUESTION_KINDS: readonly QuestionKind[] = [
  "question",
  "elicitation",
  "approval",
  "plan",
  "proposal",
];

export interface Question {
  kind: QuestionKind;
  text: string;
  /** What an approval would let happen (a diff, a command), as preformatted text. */
  detail?: string;
  /** Optional choices offered to the operator. */
  options?: string[];
}

export interface ToolContext {
  /** Canonical real path of the workspace; file tools are confined to it. */
  workdir: string;
  signal: AbortSignal;
  /** A resumed call's answer to the form its MCP server asks for (core/mcp/elicitation.ts). */
  elicitation?: { action: "accept"; content: Record<string, unknown> } | {
    action: "decline" | "cancel";
  };
}

/** What a tool hands back to the loop. */
export type ToolOutcome =
  | {
    type: "result";
    content: string;
    is_error?: boolean;
    images?: ImageAttachment[];
    /**
     * Set when the call was refused for want of a sandbox: the loop reports it (LoopResult's
     * `refused`) so a headless run never ends ok having run none of its commands.
     */
    refused?: string;
  }
  /**
   * The run must stop and wait for a human (ask tool, strict mode, an MCP server's form).
   * `form`: the form the answer must fit (an MCP elicitation), kept with the waiting call so
   * a resumed answer is checked before anything runs.
   */
  | { type: "needs_human"; questions: Question[]; content: string; form?: Record<string, unknown> };

export interface Tool {
  name: string;
  description: string;
  input_schema: JsonSchema;
  /**
   * Decides how the permission mode treats a call. A function when it depends on the
   * input (the memory tool: `view` is read, every other command is edit).
   */
  kind: ToolKind | ((input: Record<string, unknown>) => ToolKind);
  execute(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
  /** One-line human summary of a call, for reports and the terminal. */
  summarize?(input: Record<string, unknown>): string;
  /**
   * What the call will do, shown before a human approves it: a unified diff for an edit, the
   * command and its directory for the shell. Throws what execute would throw on bad input.
   */
  preview?(input: Record<string, unknown>, ctx: ToolContext): Promise<string>;
}
