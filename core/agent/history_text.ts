// What the loop reads out of a history: the last answer, the last thing the user said, and
// whether a reply carried reasoning.

import type { Message } from "../wires/types.ts";

export function lastAssistantText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const text = m.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)
      .join("");
    if (text.trim() !== "") return text.trim();
  }
  return "";
}

export function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    const text = m.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)
      .join("\n");
    if (text !== "") return text;
  }
  return "";
}

export function hasReasoning(message: Message): boolean {
  return message.parts.some((p) => p.type === "reasoning" && p.text.trim() !== "");
}
