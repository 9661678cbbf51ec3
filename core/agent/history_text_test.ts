// What the loop reads out of a history: the newest non-blank answer (its text fragments joined
// and trimmed), the newest thing the user said (its text parts one a line, as written).

import assert from "node:assert/strict";
import type { Message } from "../wires/types.ts";
import { lastAssistantText, lastUserText } from "./history_text.ts";

const text = (t: string) => ({ type: "text" as const, text: t });

const history: Message[] = [
  { role: "user", parts: [text("first question")] },
  { role: "assistant", parts: [text("  an "), text("answer  ")] },
  { role: "user", parts: [text(" line one"), text("line two ")] },
  // A tool-call turn whose text is blank does not hide the answer before it.
  { role: "assistant", parts: [text("  "), { type: "reasoning", text: "thinking" }] },
];

Deno.test("lastAssistantText: the newest answer with text, fragments joined as streamed and trimmed", () => {
  assert.equal(lastAssistantText(history), "an answer");
  assert.equal(lastAssistantText(history.slice(0, 1)), "");
});

Deno.test("lastUserText: the newest user text, its parts one a line, untrimmed", () => {
  assert.equal(lastUserText(history), " line one\nline two ");
  // A user turn of tool results only (no text) is passed over.
  assert.equal(lastUserText([...history, { role: "user", parts: [] }]), " line one\nline two ");
  assert.equal(lastUserText([{ role: "user", parts: [] }, ...history.slice(1, 2)]), "");
});
