// What a resumed conversation shows before its prompt: its last turns (the user's messages
// after the prompt mark, the replies rendered as markdown when colors are on), so the screen
// says where the conversation stands instead of looking like a fresh start.

import type { Message } from "../core/wires/types.ts";
import type { SessionState } from "./interactive_types.ts";
import { markdownLoader } from "./interactive_markdown.ts";
import { wrapWords } from "./interactive_view.ts";

/** Messages with text shown, oldest first. */
const SHOWN_MESSAGES = 4;
/** Lines of one message at most; the rest is counted. */
const MESSAGE_LINES = 12;

export async function showLastTurns(s: SessionState): Promise<void> {
  const turns = lastTextMessages(s.history, SHOWN_MESSAGES);
  if (turns.length === 0) return;
  const earlier = turns[0]!.index;
  if (earlier > 0) s.note(`… ${earlier} earlier messages`);
  const width = Math.max(20, s.term.columns() - 1);
  const load = markdownLoader(s.style, () => s.term.columns());
  const markdown = load ? await load() : undefined;
  for (const turn of turns) {
    const lines = turn.text.split("\n");
    const cut = lines.length > MESSAGE_LINES
      ? `${lines.slice(0, MESSAGE_LINES).join("\n")}\n`
      : turn.text;
    const more = lines.length > MESSAGE_LINES
      ? s.style.dim(`  … ${lines.length - MESSAGE_LINES} more lines`)
      : "";
    if (turn.role === "user") {
      s.print(s.style.dim(`› ${wrapWords(cut.trimEnd(), 2, width)}`));
    } else {
      s.print(markdown ? markdown.render(cut).trimEnd() : wrapWords(cut.trimEnd(), 0, width));
    }
    if (more) s.print(more);
  }
}

function lastTextMessages(
  history: readonly Message[],
  n: number,
): { role: string; text: string; index: number }[] {
  const out: { role: string; text: string; index: number }[] = [];
  for (let i = history.length - 1; i >= 0 && out.length < n; i--) {
    const m = history[i]!;
    const text = m.parts.filter((p) => p.type === "text").map((p) =>
      p.type === "text" ? p.text : ""
    ).join("\n").trim();
    if (text !== "" && (m.role === "user" || m.role === "assistant")) {
      out.unshift({ role: m.role, text, index: i });
    }
  }
  return out;
}
