// Compaction: when the context nears its limit, the older middle of the history is
// summarized by the model into one message that keeps the task, decisions and open
// questions. The cut always falls before an assistant message, so every tool call stays
// next to its result and the history still alternates user / assistant.

import type { Message, Usage, Wire } from "../wires/types.ts";
import prompt from "./compaction.md" with { type: "text" };

/** Assistant turns kept verbatim after the summary. */
export const KEEP_RECENT_TURNS = 2;

export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  threshold: number,
): boolean {
  return contextTokens > 0 && contextTokens >= contextWindow * threshold;
}

/** Index of the first message kept verbatim, or null when there is too little to compact. */
export function compactionCut(
  messages: readonly Message[],
  keep = KEEP_RECENT_TURNS,
): number | null {
  const assistantIdx = messages.flatMap((m, i) => (m.role === "assistant" && i > 0 ? [i] : []));
  if (assistantIdx.length <= keep) return null;
  const cut = assistantIdx[assistantIdx.length - keep]!;
  return cut >= 3 ? cut : null; // at least one exchange between the task and the kept tail
}

export async function compactHistory(
  messages: readonly Message[],
  wire: Wire,
  model: string,
  signal?: AbortSignal,
  /** A lower reply cap than the wire's own (the token budget's, see budget.ts). */
  maxTokens?: number,
): Promise<{ messages: Message[]; usage: Usage } | null> {
  const cut = compactionCut(messages);
  if (cut === null) return null;
  const first = messages[0]!;
  const middle = messages.slice(1, cut);
  let summary = "";
  let usage: Usage = { input_tokens: 0, output_tokens: 0 };
  for await (
    const event of wire.stream({
      model,
      system: prompt,
      messages: [{ role: "user", parts: [{ type: "text", text: transcript([first, ...middle]) }] }],
      tools: [],
      ...(maxTokens ? { max_tokens: maxTokens } : {}),
      ...(signal ? { signal } : {}),
    })
  ) {
    if (event.type === "done") {
      usage = event.usage;
      summary = event.message.parts.filter((p) => p.type === "text").map((p) =>
        (p as { text: string }).text
      ).join("");
    }
  }
  if (summary.trim() === "") return null;
  const opening: Message = {
    role: "user",
    parts: [
      ...first.parts.filter((p) => p.type === "text"),
      {
        type: "text",
        text:
          `\n[Summary of the earlier conversation, compacted to save context]\n${summary.trim()}`,
      },
    ],
  };
  return { messages: [opening, ...messages.slice(cut)], usage };
}

/** Plain-text rendering of a history, for the summarizer (no tool pairing rules apply to text). */
export function transcript(messages: readonly Message[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    for (const p of m.parts) {
      if (p.type === "text") lines.push(`${m.role.toUpperCase()}: ${p.text}`);
      else if (p.type === "tool_call") {
        lines.push(`TOOL CALL ${p.name}: ${JSON.stringify(p.input)}`);
      } else if (p.type === "tool_result") {
        lines.push(`TOOL RESULT${p.is_error ? " (error)" : ""}: ${p.content.slice(0, 4000)}`);
      }
    }
  }
  return lines.join("\n");
}
