// An MCP server's form (elicitation) asked in the terminal: the server's message, then fill it
// in, decline, or cancel; filling asks each field with the picker for an enum, yes/no for a
// boolean and a line of text otherwise, checked by the same rule a written answer meets
// (core/mcp/elicitation.ts: fieldProblem) and asked again until it fits. Enter on an optional
// field leaves it out (its default, if any, is applied before sending); esc cancels the form.

import {
  type ElicitRequest,
  type ElicitResult,
  type Field,
  fieldProblem,
  type FieldValue,
  formFields,
} from "../core/mcp/elicitation.ts";
import type { SessionState } from "./interactive_types.ts";

type Action = "accept" | "decline" | "cancel";

export async function askForm(s: SessionState, request: ElicitRequest): Promise<ElicitResult> {
  s.print(`${s.style.bold(`MCP server ${request.server} asks:`)} ${request.message}`);
  const action = await s.withPrompt(() =>
    s.term.prompts.pick<Action>({
      message: "Answer this form?",
      items: [
        { type: "row", value: "accept", key: "accept", label: "Fill it in" },
        { type: "row", value: "decline", key: "decline", label: "Decline" },
        { type: "row", value: "cancel", key: "cancel", label: "Cancel" },
      ],
    })
  );
  if (action === null || action === "cancel") return { action: "cancel" };
  if (action === "decline") return { action: "decline" };
  const content: Record<string, FieldValue> = {};
  for (const field of formFields(request.requestedSchema)) {
    const value = await askField(s, field);
    if (value === null) return { action: "cancel" };
    if (value !== undefined) content[field.name] = value;
  }
  return { action: "accept", content };
}

/** One field's value; undefined when an optional field is left out; null when cancelled. */
async function askField(s: SessionState, field: Field): Promise<FieldValue | undefined | null> {
  const label = `${field.schema.title ?? field.name}${
    field.schema.description ? ` (${field.schema.description})` : ""
  }`;
  const fallback = field.schema.default;
  if (field.choices && !field.multiple) {
    const picked = await s.withPrompt(() =>
      s.term.prompts.pick<string>({
        message: label,
        items: field.choices!.map((c) => ({
          type: "row",
          value: c.value,
          key: c.value,
          label: c.label,
        })),
        ...(fallback !== undefined ? { initialKey: String(fallback) } : {}),
      })
    );
    return picked;
  }
  if (field.schema.type === "boolean") {
    return await s.withPrompt(() =>
      s.term.prompts.confirm(label, typeof fallback === "boolean" ? fallback : false)
    );
  }
  for (;;) {
    const hint = field.multiple
      ? ` (comma-separated: ${field.choices?.map((c) => c.value).join(", ") ?? "values"})`
      : "";
    const optional = field.required
      ? ""
      : fallback !== undefined
      ? ` [enter: ${JSON.stringify(fallback)}]`
      : " [enter: leave out]";
    const text = await s.withPrompt(() => s.term.prompts.text(`${label}${hint}${optional}`));
    if (text === null) return null;
    if (text.trim() === "" && !field.required) return undefined;
    const value = parseField(field, text.trim());
    const problem = fieldProblem(field, value);
    if (problem === null) return value as FieldValue;
    s.error(`${field.name}: ${problem}`);
  }
}

function parseField(field: Field, text: string): unknown {
  if (field.multiple) return text === "" ? [] : text.split(",").map((x) => x.trim());
  if (field.schema.type === "number" || field.schema.type === "integer") {
    return text === "" ? Number.NaN : Number(text);
  }
  return text;
}
