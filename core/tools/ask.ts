import type { Question, QuestionKind, Tool } from "./types.ts";
import { QUESTION_KINDS } from "./types.ts";
import { ToolInputError } from "./text_edit.ts";
import description from "./ask.md" with { type: "text" };

export const askTool: Tool = {
  name: "ask",
  description,
  input_schema: {
    type: "object",
    properties: {
      questions: {
        type: "array",
        minItems: 1,
        maxItems: 10,
        items: {
          type: "object",
          properties: {
            kind: { type: "string", enum: [...QUESTION_KINDS] },
            text: { type: "string", minLength: 1 },
            options: { type: "array", items: { type: "string" } },
          },
          required: ["kind", "text"],
          additionalProperties: false,
        },
      },
    },
    required: ["questions"],
    additionalProperties: false,
  },
  kind: "ask",
  summarize: (input) => `ask: ${parseQuestions(input).map((q) => q.text).join(" / ")}`,
  // Promise.try: a bad input rejects the promise rather than throwing synchronously.
  execute: (input) =>
    Promise.try(() => ({
      type: "needs_human",
      questions: parseQuestions(input),
      content: "Waiting for the operator's answer.",
    })),
};

/** Validates the ask tool's input; an unknown kind is refused rather than guessed. */
export function parseQuestions(input: Record<string, unknown>): Question[] {
  const raw = input.questions;
  if (!Array.isArray(raw) || raw.length === 0) {
    throw new ToolInputError("questions must be a non-empty array of {kind, text}");
  }
  return raw.map((q, i) => {
    const item = (q ?? {}) as Record<string, unknown>;
    if (typeof item.text !== "string" || item.text.trim() === "") {
      throw new ToolInputError(`questions[${i}].text must be a non-empty string`);
    }
    if (!QUESTION_KINDS.includes(item.kind as QuestionKind)) {
      throw new ToolInputError(`questions[${i}].kind must be one of ${QUESTION_KINDS.join(", ")}`);
    }
    const question: Question = { kind: item.kind as QuestionKind, text: item.text.trim() };
    if (Array.isArray(item.options)) question.options = item.options.map(String);
    return question;
  });
}
