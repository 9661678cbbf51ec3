// MCP elicitation (form mode): a server asks the user, in the middle of a tool call, to fill a
// small form: a flat object of strings, numbers, integers, booleans, enums and multi-select
// enums (the spec's restricted JSON Schema). This module is what every door shares: the fields
// of a request, defaults applied to what the user left out (SEP-1034), one check of an answer
// against the form (so a picker, a resumed headless answer and a test all obey the same rule),
// reading an operator's written answer (`decline`, `cancel`, or a JSON object), and the
// question a headless run ends with. An interactive session asks through a picker
// (cli/interactive_elicit.ts); a headless run ends needs-human and is resumed with the answer.

import type { Question } from "../tools/types.ts";

export interface ElicitRequest {
  /** The server asking. */
  server: string;
  message: string;
  requestedSchema: FormSchema;
}

export type ElicitResult =
  | { action: "accept"; content: Record<string, FieldValue> }
  | { action: "decline" }
  | { action: "cancel" };

export type FieldValue = string | number | boolean | string[];

export interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const: unknown; title?: string }[];
  items?: { type?: string; enum?: unknown[]; anyOf?: { const: unknown; title?: string }[] };
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  minItems?: number;
  maxItems?: number;
  format?: string;
}

export interface FormSchema {
  type?: string;
  properties?: Record<string, FieldSchema>;
  required?: string[];
}

export interface Field {
  name: string;
  schema: FieldSchema;
  required: boolean;
  /** The allowed values of an enum (single or multi-select), with their labels. */
  choices?: { value: string; label: string }[];
  multiple: boolean;
}

/** The form's fields in the server's order. */
export function formFields(schema: FormSchema): Field[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const multiple = field.type === "array";
    const choices = choicesOf(multiple ? field.items ?? {} : field);
    return {
      name,
      schema: field,
      required: required.has(name),
      multiple,
      ...(choices ? { choices } : {}),
    };
  });
}

function choicesOf(
  field: FieldSchema | NonNullable<FieldSchema["items"]>,
): Field["choices"] | undefined {
  const named = "oneOf" in field && field.oneOf
    ? field.oneOf
    : "anyOf" in field
    ? field.anyOf
    : undefined;
  if (named) {
    return named.map((o) => ({ value: String(o.const), label: o.title ?? String(o.const) }));
  }
  if (!field.enum) return undefined;
  const names = "enumNames" in field ? field.enumNames : undefined;
  return field.enum.map((v, i) => ({ value: String(v), label: names?.[i] ?? String(v) }));
}

/** The answer with each field the user left out set to its default, when the form has one. */
export function withDefaults(
  schema: FormSchema,
  content: Record<string, FieldValue>,
): Record<string, FieldValue> {
  const out = { ...content };
  for (const [name, field] of Object.entries(schema.properties ?? {})) {
    if (out[name] === undefined && field.default !== undefined) {
      out[name] = field.default as FieldValue;
    }
  }
  return out;
}

/** Why `content` does not fit the form (one line per field), or null when it does. */
export function formProblem(schema: FormSchema, content: Record<string, unknown>): string | null {
  const problems: string[] = [];
  const fields = formFields(schema);
  for (const name of Object.keys(content)) {
    if (!fields.some((f) => f.name === name)) problems.push(`${name}: not a field of the form`);
  }
  for (const field of fields) {
    const value = content[field.name];
    if (value === undefined) {
      if (field.required) problems.push(`${field.name}: required`);
      continue;
    }
    const problem = fieldProblem(field, value);
    if (problem) problems.push(`${field.name}: ${problem}`);
  }
  return problems.length > 0 ? problems.join("; ") : null;
}

/** Why one value does not fit its field, or null. */
export function fieldProblem(field: Field, value: unknown): string | null {
  const s = field.schema;
  if (field.multiple) {
    if (!Array.isArray(value)) return "expected a list";
    if (field.choices && value.some((v) => !field.choices!.some((c) => c.value === v))) {
      return `each item must be one of ${field.choices.map((c) => c.value).join(", ")}`;
    }
    if (s.minItems !== undefined && value.length < s.minItems) return `at least ${s.minItems}`;
    if (s.maxItems !== undefined && value.length > s.maxItems) return `at most ${s.maxItems}`;
    return null;
  }
  if (field.choices) {
    return field.choices.some((c) => c.value === value)
      ? null
      : `must be one of ${field.choices.map((c) => c.value).join(", ")}`;
  }
  switch (s.type) {
    case "boolean":
      return typeof value === "boolean" ? null : "expected true or false";
    case "integer":
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "expected a number";
      if (s.type === "integer" && !Number.isInteger(value)) return "expected a whole number";
      if (s.minimum !== undefined && value < s.minimum) return `at least ${s.minimum}`;
      if (s.maximum !== undefined && value > s.maximum) return `at most ${s.maximum}`;
      return null;
    }
    default: {
      if (typeof value !== "string") return "expected text";
      if (s.minLength !== undefined && value.length < s.minLength) {
        return `at least ${s.minLength} characters`;
      }
      if (s.maxLength !== undefined && value.length > s.maxLength) {
        return `at most ${s.maxLength} characters`;
      }
      return formatProblem(s.format, value);
    }
  }
}

function formatProblem(format: string | undefined, value: string): string | null {
  if (format === "email" && !/^[^\s@]+@[^\s@]+$/.test(value)) return "expected an email address";
  if (format === "uri" && !URL.canParse(value)) return "expected a URI";
  if (format === "date" && !/^\d{4}-\d{2}-\d{2}$/.test(value)) return "expected a date YYYY-MM-DD";
  if (format === "date-time" && Number.isNaN(Date.parse(value))) return "expected a date and time";
  return null;
}

/**
 * An operator's written answer (a resumed headless run): `decline`, `cancel`, or a JSON object
 * of field values; defaults fill what it leaves out. Throws one line when it does not fit.
 */
export function parseWrittenAnswer(schema: FormSchema, answer: string): ElicitResult {
  const text = answer.trim();
  if (/^decline$/i.test(text)) return { action: "decline" };
  if (/^cancel$/i.test(text)) return { action: "cancel" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(
      `the answer to a form is decline, cancel or a JSON object of its fields, got ${
        JSON.stringify(text.slice(0, 80))
      }`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error("the answer to a form is decline, cancel or a JSON object of its fields");
  }
  const content = withDefaults(schema, value as Record<string, FieldValue>);
  const problem = formProblem(schema, content);
  if (problem) throw new Error(`the answer does not fit the form: ${problem}`);
  return { action: "accept", content };
}

/** The question a headless run ends with: the server's message and the form, answerable in writing. */
export function elicitationQuestion(request: ElicitRequest): Question {
  const fields = formFields(request.requestedSchema).map((f) => {
    const type = f.choices
      ? `${f.multiple ? "some of" : "one of"} ${f.choices.map((c) => c.value).join(" | ")}`
      : f.schema.type ?? "string";
    const extra = [
      f.required ? "required" : "optional",
      ...(f.schema.default !== undefined ? [`default ${JSON.stringify(f.schema.default)}`] : []),
    ].join(", ");
    const about = f.schema.description ?? f.schema.title;
    return `- ${f.name} (${type}; ${extra})${about ? `: ${about}` : ""}`;
  });
  return {
    kind: "elicitation",
    text: `MCP server ${request.server} asks: ${request.message}`,
    detail: [
      "Fields:",
      ...fields,
      'Answer with a JSON object of the fields (e.g. agent -p --resume ID -- \'{"field": "value"}\'), ' +
      "or decline, or cancel.",
      `Form schema: ${JSON.stringify(request.requestedSchema)}`,
    ].join("\n"),
    options: ["accept (a JSON object)", "decline", "cancel"],
  };
}

/** An accepted answer with the form's defaults filled in; one that does not fit is cancelled. */
export function checkedAnswer(request: ElicitRequest, result: ElicitResult): ElicitResult {
  if (result.action !== "accept") return result;
  const content = withDefaults(request.requestedSchema, result.content);
  return formProblem(request.requestedSchema, content) === null
    ? { action: "accept", content }
    : { action: "cancel" };
}

/** A tool call in progress: a resumed call's answer, or the form nobody could fill now. */
export interface PendingForm {
  /** A resumed call's answer, used for the first form request. */
  answer?: ElicitResult | { action: "accept"; content: Record<string, unknown> };
  /** The form nobody could fill now (headless): the call ends needs-human with it. */
  asked?: ElicitRequest;
}

/**
 * A server's form request during a tool call: answered by a resumed call's answer, else by the
 * user (`ask`, an interactive session), else kept on `call` for a needs-human ending and
 * cancelled on the server (a headless run: nobody to ask now). An answer that does not fit the
 * form is never sent.
 */
export async function answerFormRequest(
  request: ElicitRequest,
  call: PendingForm | undefined,
  ask: ((request: ElicitRequest) => Promise<ElicitResult>) | undefined,
): Promise<ElicitResult> {
  if (call?.answer) {
    const answer = call.answer as ElicitResult;
    delete call.answer;
    return checkedAnswer(request, answer);
  }
  if (ask) return checkedAnswer(request, await ask(request));
  if (call) call.asked = request;
  return { action: "cancel" };
}
