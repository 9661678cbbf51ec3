// What the loop reads out of a history: the last answer, the last thing the user said, and
// whether a reply carried reasoning.

import type { Message } from "../wires/types.ts";

/** The newest answer with text: its fragments joined as they streamed, trimmed. */
export function lastAssistantText(messages: readonly Message[]): string {
  return lastText(messages, "assistant", "", (text) => text.trim());
}

/** The newest thing the user wrote: its text parts one a line, as written. */
export function lastUserText(messages: readonly Message[]): string {
  return lastText(messages, "user", "\n", (text) => text);
}

/** The newest `role` message whose text (parts joined by `separator`, then `clean`) is not empty. */
function lastText(
  messages: readonly Message[],
  role: Message["role"],
  separator: string,
  clean: (text: string) => string,
): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== role) continue;
    const text = clean(
      m.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)
        .join(separator),
    );
    if (text !== "") return text;
  }
  return "";
}

export function hasReasoning(message: Message): boolean {
  return message.parts.some((p) => p.type === "reasoning" && p.text.trim() !== "");
}
