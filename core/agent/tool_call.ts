// One tool call of a model reply, run under the permission mode: read/ask always; edit and
// shell applied in auto, approved first in strict (or a needs-human ending when no one can
// approve), refused in plan. The loop (loop.ts) decides whether a call runs at all.

import type { ImageAttachment, Part, ToolCallPart } from "../wires/types.ts";
import type { Question, Tool, ToolKind, ToolOutcome } from "../tools/types.ts";
import type { Approval } from "./types.ts";
import type { PendingCall } from "./journal.ts";
import { decide, type PermissionMode, PLAN_DENIAL } from "./permissions.ts";
import { errorText } from "../logger.ts";

/** What a call reports as it runs (the loop forwards these as LoopEvents). */
export type ToolEvent =
  | { type: "tool_start"; call: ToolCallPart; summary: string }
  | { type: "tool_end"; call: ToolCallPart; content: string; is_error: boolean };

/** The part of the loop's configuration a call needs. */
export interface CallContext {
  tools: readonly Tool[];
  mode: PermissionMode;
  workdir: string;
  approve?: (call: ToolCallPart, summary: string, detail?: string) => Promise<Approval>;
  answer?: (call: ToolCallPart, questions: Question[]) => Promise<string>;
  onEvent?: (event: ToolEvent) => void;
  signal?: AbortSignal;
}

export type CallStep =
  | {
    type: "result";
    content: string;
    is_error: boolean;
    images?: ImageAttachment[];
    /** The call was refused for want of a sandbox (ToolOutcome's `refused`). */
    refused?: string;
  }
  | {
    type: "needs_human";
    questions: Question[];
    reason: PendingCall["reason"];
    form?: Record<string, unknown>;
  };

export async function runCall(
  call: ToolCallPart,
  tool: Tool | undefined,
  cfg: CallContext,
): Promise<CallStep> {
  const emitEnd = (
    content: string,
    is_error: boolean,
    images?: ImageAttachment[],
    refused?: string,
  ): CallStep => {
    cfg.onEvent?.({ type: "tool_end", call, content, is_error });
    return {
      type: "result",
      content,
      is_error,
      ...(images?.length ? { images } : {}),
      ...(refused ? { refused } : {}),
    };
  };
  if (!tool) {
    return emitEnd(
      `No tool named "${call.name}". Available: ${cfg.tools.map((t) => t.name).join(", ")}.`,
      true,
    );
  }
  let summary = call.name;
  let kind: ToolKind;
  try {
    summary = tool.summarize?.(call.input) ?? call.name;
    kind = typeof tool.kind === "function" ? tool.kind(call.input) : tool.kind;
  } catch (err) {
    return emitEnd(errorText(err), true);
  }
  cfg.onEvent?.({ type: "tool_start", call, summary });

  const decision = decide(cfg.mode, kind);
  if (decision === "deny") return emitEnd(PLAN_DENIAL, true);
  if (decision === "approval") {
    const detail = await previewOf(tool, call, cfg);
    if (!cfg.approve) {
      return {
        type: "needs_human",
        reason: "approval",
        questions: [{
          kind: "approval",
          text: `Strict mode: approve this action? ${summary}`,
          options: ["approve", "reject"],
          ...(detail ? { detail } : {}),
        }],
      };
    }
    const answer = await cfg.approve(call, summary, detail);
    if (!answer.approved) {
      const feedback = answer.feedback?.trim();
      return emitEnd(
        feedback
          ? `The user declined this action and said: ${feedback}`
          : "The user declined this action.",
        true,
      );
    }
  }

  let outcome: ToolOutcome;
  try {
    outcome = await tool.execute(call.input, {
      workdir: cfg.workdir,
      signal: cfg.signal ?? new AbortController().signal,
    });
  } catch (err) {
    return emitEnd(errorText(err), true);
  }
  if (outcome.type === "needs_human" && outcome.form) {
    // An MCP server's form nobody could fill now (a headless run): the call waits for it.
    return {
      type: "needs_human",
      questions: outcome.questions,
      reason: "elicitation",
      form: outcome.form,
    };
  }
  if (outcome.type === "needs_human") {
    const reason = outcome.questions.some((q) =>
        q.kind === "proposal"
      ) && call.name === "propose_settings"
      ? "proposal"
      : "ask";
    if (!cfg.answer) return { type: "needs_human", questions: outcome.questions, reason };
    const answer = await cfg.answer(call, outcome.questions);
    return emitEnd(`The operator answered: ${answer}`, false);
  }
  return emitEnd(outcome.content, outcome.is_error ?? false, outcome.images, outcome.refused);
}

/** What a call will do, for the person approving it; a failed preview says why instead. */
async function previewOf(
  tool: Tool,
  call: ToolCallPart,
  cfg: CallContext,
): Promise<string | undefined> {
  if (!tool.preview) return undefined;
  try {
    return await tool.preview(call.input, {
      workdir: cfg.workdir,
      signal: cfg.signal ?? new AbortController().signal,
    });
  } catch (err) {
    return `(no preview: ${errorText(err)})`;
  }
}

export function toolResult(
  callId: string,
  content: string,
  isError: boolean,
  images?: ImageAttachment[],
): Part {
  return {
    type: "tool_result",
    call_id: callId,
    content,
    ...(isError ? { is_error: true } : {}),
    ...(images?.length ? { images } : {}),
  };
}
