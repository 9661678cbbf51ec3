// Continuing a saved session: the operator's answer becomes the result of the call that
// was waiting (an ask, an approval of a strict-mode action, an effort proposal), or a new
// user message when nothing was waiting.

import type { Message, Part } from "../wires/types.ts";
import type { Tool } from "../tools/types.ts";
import type { LoadedSession, PendingCall } from "./journal.ts";
import { errorText } from "../logger.ts";
import { toolResult } from "./tool_call.ts";
import { parseWrittenAnswer } from "../mcp/elicitation.ts";

export interface ResumeStep {
  /** History ready for the next model turn. */
  messages: Message[];
  /** New entries to journal (the message(s) appended to the loaded history). */
  appended: Message[];
  /** Set when an approved effort proposal should take effect. */
  effort?: string;
}

const APPROVED = /^\s*(approved?|yes|y|ok|lgtm)\b/i;

export function isApproval(answer: string): boolean {
  return APPROVED.test(answer);
}

export async function resumeWith(
  session: LoadedSession,
  answer: string,
  ctx: { tools: readonly Tool[]; workdir: string; signal: AbortSignal },
): Promise<ResumeStep> {
  const messages = [...session.messages];
  if (!session.pending) {
    const message: Message = { role: "user", parts: [{ type: "text", text: answer }] };
    return { messages: [...messages, message], appended: [message] };
  }
  let effort: string | undefined;
  const answered: Part[] = [];
  for (const call of session.pending.waiting) {
    const result = await answerCall(call, answer, ctx);
    answered.push(result.part);
    if (result.effort) effort = result.effort;
  }
  // Keep the tool results in the order of the calls in the last assistant message.
  const all = [...session.pending.results, ...answered];
  const lastAssistant = [...messages].reverse().find((m) => m.role === "assistant");
  const order = (lastAssistant?.parts ?? []).flatMap((p) => (p.type === "tool_call" ? [p.id] : []));
  all.sort((a, b) => order.indexOf(callIdOf(a)) - order.indexOf(callIdOf(b)));
  const message: Message = { role: "user", parts: all };
  return { messages: [...messages, message], appended: [message], ...(effort ? { effort } : {}) };
}

async function answerCall(
  call: PendingCall,
  answer: string,
  ctx: { tools: readonly Tool[]; workdir: string; signal: AbortSignal },
): Promise<{ part: Part; effort?: string }> {
  if (call.reason === "ask") {
    return { part: toolResult(call.id, `The operator answered: ${answer}`, false) };
  }
  if (call.reason === "proposal") {
    if (!isApproval(answer)) {
      return { part: toolResult(call.id, `The operator rejected the proposal: ${answer}`, true) };
    }
    const effort = String(call.input.effort ?? "").trim();
    return { part: toolResult(call.id, `Approved: effort is now ${effort}.`, false), effort };
  }
  if (call.reason === "elicitation") return { part: await answerForm(call, answer, ctx) };
  // A strict-mode action the operator has now approved (or not) explicitly.
  if (!isApproval(answer)) {
    return {
      part: toolResult(call.id, `The operator did not approve this action: ${answer}`, true),
    };
  }
  const tool = ctx.tools.find((t) => t.name === call.name);
  if (!tool) return { part: toolResult(call.id, `No tool named "${call.name}".`, true) };
  try {
    const outcome = await tool.execute(call.input, { workdir: ctx.workdir, signal: ctx.signal });
    const content = outcome.type === "result" ? outcome.content : outcome.content;
    const isError = outcome.type === "result" ? outcome.is_error ?? false : false;
    const images = outcome.type === "result" ? outcome.images : undefined;
    return {
      part: toolResult(call.id, `Approved by the operator and run. ${content}`, isError, images),
    };
  } catch (err) {
    return { part: toolResult(call.id, errorText(err), true) };
  }
}

/**
 * An MCP server's form, answered in writing: checked against the form first (a bad answer
 * throws, and the session stays waiting), then the call runs again with the server's form
 * request answered by it.
 */
async function answerForm(
  call: PendingCall,
  answer: string,
  ctx: { tools: readonly Tool[]; workdir: string; signal: AbortSignal },
): Promise<Part> {
  const elicitation = parseWrittenAnswer(call.form ?? {}, answer);
  const tool = ctx.tools.find((t) => t.name === call.name);
  if (!tool) return toolResult(call.id, `No tool named "${call.name}".`, true);
  try {
    const outcome = await tool.execute(call.input, { ...ctx, elicitation });
    if (outcome.type === "needs_human") {
      return toolResult(call.id, `The server asked again: ${outcome.content}`, true);
    }
    return toolResult(call.id, outcome.content, outcome.is_error ?? false, outcome.images);
  } catch (err) {
    return toolResult(call.id, errorText(err), true);
  }
}

function callIdOf(p: Part): string {
  return p.type === "tool_result" ? p.call_id : "";
}
