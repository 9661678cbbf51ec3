// Risk of acting on an inbox item, from its question kinds. Shared by the inbox funnel
// (meta.risk), the chat gate and the push action re-check, so all three agree.
// Fail closed: anything not plainly a question is high risk.

export type Risk = "medium" | "high";

const MEDIUM_KINDS: ReadonlySet<string> = new Set(["question", "elicitation"]);

/**
 * "medium" only when there is at least one question and every one has kind question or
 * elicitation. Approval, plan or proposal kinds, an empty list, an unknown or missing kind,
 * or input that is not a list at all give "high".
 */
export function classifyRisk(questions: unknown): Risk {
  if (!Array.isArray(questions) || questions.length === 0) return "high";
  for (const q of questions) {
    if (typeof q !== "object" || q === null) return "high";
    const kind = (q as { kind?: unknown }).kind;
    if (typeof kind !== "string" || !MEDIUM_KINDS.has(kind)) return "high";
  }
  return "medium";
}
