// Making a wire-neutral history safe to send to another endpoint (a /model swap) and
// well-formed after an interrupted turn. Pure functions; the input is never mutated.
//
// What a swap must not carry over:
// - thinking signatures: they are bound to the endpoint and model that minted them, and a
//   Messages endpoint refuses a block whose signature it did not sign. Signed reasoning is
//   kept as plain reasoning text, which both renderers skip.
// - redacted reasoning: opaque data only its own endpoint can read; dropped.
// What every request needs: each tool call answered by a result in the next user turn, and
// no result without its call (both wires reject either).

import type { WireKind } from "../settings/types.ts";
import type { Message, Part } from "../wires/types.ts";

export interface ConvertOptions {
  /**
   * Keep thinking signatures and redacted reasoning. Only safe when the target is the same
   * Messages endpoint and model that produced them.
   */
  keepSignatures?: boolean;
}

/** The text a tool call gets when its turn was cut short before it ran. */
export const INTERRUPTED_RESULT = "Not run: the turn was interrupted before this call ran.";

/** Returns a copy of `messages` ready to render on `target` (see the header comment). */
export function convertHistoryForWire(
  messages: readonly Message[],
  target: WireKind,
  options: ConvertOptions = {},
): Message[] {
  const keep = options.keepSignatures === true && target === "messages";
  const converted: Message[] = [];
  for (const message of messages) {
    const parts: Part[] = [];
    for (const part of message.parts) {
      if (part.type === "reasoning") {
        parts.push(
          keep && part.signature
            ? { type: "reasoning", text: part.text, signature: part.signature }
            : { type: "reasoning", text: part.text },
        );
      } else if (part.type === "redacted_reasoning") {
        if (keep) parts.push({ type: "redacted_reasoning", data: part.data });
      } else parts.push(structuredClone(part));
    }
    // A turn with nothing but unsigned reasoning renders to nothing on either wire; keeping
    // it would leave two user turns side by side.
    const sendable = parts.some((p) =>
      p.type !== "reasoning" || (keep && p.signature !== undefined)
    );
    if (message.role === "assistant" && !sendable) continue;
    if (parts.length === 0) continue;
    converted.push({ role: message.role, parts });
  }
  return repairHistory(converted);
}

/**
 * Answers tool calls left without a result (an interrupted turn), turns results without a
 * call into plain text, and merges neighbouring turns of the same role. Returns a copy.
 */
export function repairHistory(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  let open: string[] = []; // calls of the last assistant turn still waiting for results
  const closeOpen = (into: Part[]) => {
    for (const id of open) {
      into.push({ type: "tool_result", call_id: id, content: INTERRUPTED_RESULT, is_error: true });
    }
    open = [];
  };

  for (const message of messages) {
    if (message.role === "assistant") {
      if (open.length > 0) {
        const parts: Part[] = [];
        closeOpen(parts);
        pushMerged(out, { role: "user", parts });
      }
      const parts = message.parts.map((p) => structuredClone(p));
      open = parts.flatMap((p) => (p.type === "tool_call" ? [p.id] : []));
      pushMerged(out, { role: "assistant", parts });
      continue;
    }
    const answered = new Set<string>();
    const parts: Part[] = [];
    for (const part of message.parts) {
      if (part.type === "tool_result") {
        if (open.includes(part.call_id) && !answered.has(part.call_id)) {
          answered.add(part.call_id);
          parts.push(structuredClone(part));
        } else {
          parts.push({ type: "text", text: `(earlier tool output) ${part.content}` });
        }
      } else parts.push(structuredClone(part));
    }
    open = open.filter((id) => !answered.has(id));
    const results: Part[] = [];
    closeOpen(results);
    // Results lead the turn that answers the calls.
    const ordered = [
      ...parts.filter((p) => p.type === "tool_result"),
      ...results,
      ...parts.filter((p) => p.type !== "tool_result"),
    ];
    if (ordered.length > 0) pushMerged(out, { role: "user", parts: ordered });
  }
  if (open.length > 0) {
    const parts: Part[] = [];
    closeOpen(parts);
    pushMerged(out, { role: "user", parts });
  }
  return out;
}

function pushMerged(out: Message[], message: Message): void {
  const last = out.at(-1);
  if (last && last.role === message.role) {
    if (message.role === "user") {
      // tool results must stay ahead of text in the merged turn.
      const all = [...last.parts, ...message.parts];
      last.parts = [
        ...all.filter((p) => p.type === "tool_result"),
        ...all.filter((p) => p.type !== "tool_result"),
      ];
    } else last.parts.push(...message.parts);
    return;
  }
  out.push(message);
}

/** Adds the user's text as the next user turn (merged into a trailing user turn, if any). */
export function appendUserText(messages: readonly Message[], text: string): Message[] {
  return repairHistory([...messages, { role: "user", parts: [{ type: "text", text }] }]);
}
