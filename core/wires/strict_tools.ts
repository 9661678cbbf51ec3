// Strict tool schemas (spec 4.3 rule 7) for the Chat Completions wire, and the client-side
// safety net for both wires.
//
// Normalization: every object gets additionalProperties false and lists all its properties
// as required; a property that was optional becomes "its type or null". That is only done
// when it is lossless. A schema with an open object, an array without items, an untyped
// node, an empty enum/anyOf, or any keyword outside KNOWN_KEYWORDS is left unmodified and
// sent without strict. Because optionals become nullable, a strict call's arguments are
// passed through stripNullOptionals() so tools see the shape their original schema expects.

import type { JsonSchema } from "./types.ts";

export type StrictResult =
  | { ok: true; schema: JsonSchema }
  | { ok: false; reason: string };

const ANNOTATIONS = ["description", "title", "default", "examples", "$comment", "deprecated"];
const STRUCTURE = [
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "anyOf",
  "$ref",
  "$defs",
  "definitions",
  "$schema",
  "$id",
];
const CONSTRAINTS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minItems",
  "maxItems",
];
export const KNOWN_KEYWORDS: ReadonlySet<string> = new Set([
  ...ANNOTATIONS,
  ...STRUCTURE,
  ...CONSTRAINTS,
]);
const TYPES = new Set(["string", "number", "integer", "boolean", "object", "array", "null"]);

class NotNormalizable extends Error {}

/** Normalizes a tool's input schema for strict decoding, or says why it cannot. */
export function normalizeStrict(schema: JsonSchema): StrictResult {
  try {
    if (!typesOf(schema).includes("object")) {
      throw new NotNormalizable("the root of a tool schema must be an object");
    }
    return { ok: true, schema: normalizeNode(schema, "") };
  } catch (e) {
    if (e instanceof NotNormalizable) return { ok: false, reason: e.message };
    throw e;
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function typesOf(node: Record<string, unknown>): string[] {
  const t = node.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  if (t === undefined && isRecord(node.properties)) return ["object"];
  return [];
}

function normalizeNode(input: unknown, at: string): JsonSchema {
  const where = at || "/";
  if (!isRecord(input)) {
    throw new NotNormalizable(`${where}: a boolean or non-object schema is not supported`);
  }
  for (const key of Object.keys(input)) {
    if (!KNOWN_KEYWORDS.has(key)) {
      throw new NotNormalizable(`${where}: keyword "${key}" is not supported in strict mode`);
    }
  }
  const out: JsonSchema = { ...input };
  if (input.type !== undefined) {
    const list = Array.isArray(input.type) ? input.type : [input.type];
    if (list.length === 0 || !list.every((t) => typeof t === "string" && TYPES.has(t))) {
      throw new NotNormalizable(`${where}: unsupported type ${JSON.stringify(input.type)}`);
    }
  }
  if (input.enum !== undefined && (!Array.isArray(input.enum) || input.enum.length === 0)) {
    throw new NotNormalizable(`${where}: empty enum`);
  }
  if (input.anyOf !== undefined) {
    if (!Array.isArray(input.anyOf) || input.anyOf.length === 0) {
      throw new NotNormalizable(`${where}: empty anyOf`);
    }
    out.anyOf = input.anyOf.map((s, i) => normalizeNode(s, `${at}/anyOf/${i}`));
  }
  if (input.$ref !== undefined) {
    if (typeof input.$ref !== "string" || !input.$ref.startsWith("#")) {
      throw new NotNormalizable(`${where}: only local $ref is supported`);
    }
  }
  for (const defsKey of ["$defs", "definitions"] as const) {
    const defs = input[defsKey];
    if (defs === undefined) continue;
    if (!isRecord(defs)) throw new NotNormalizable(`${where}: ${defsKey} must be an object`);
    const normalized: Record<string, JsonSchema> = {};
    for (const [name, def] of Object.entries(defs)) {
      normalized[name] = normalizeNode(def, `${at}/${defsKey}/${name}`);
    }
    out[defsKey] = normalized;
  }
  const types = typesOf(input);
  const typed = types.length > 0 || input.anyOf !== undefined || input.$ref !== undefined ||
    input.enum !== undefined || input.const !== undefined;
  if (!typed) throw new NotNormalizable(`${where}: a schema without a type accepts anything`);
  if (types.includes("object")) normalizeObject(input, out, at);
  else if (input.properties !== undefined || input.additionalProperties !== undefined) {
    throw new NotNormalizable(`${where}: object keywords on a non-object type`);
  }
  if (types.includes("array")) {
    if (!isRecord(input.items)) {
      throw new NotNormalizable(`${where}: an array needs a single items schema`);
    }
    out.items = normalizeNode(input.items, `${at}/items`);
  } else if (input.items !== undefined) {
    throw new NotNormalizable(`${where}: items on a non-array type`);
  }
  return out;
}

function normalizeObject(input: Record<string, unknown>, out: JsonSchema, at: string): void {
  const where = at || "/";
  const extra = input.additionalProperties;
  if (extra !== undefined && extra !== false) {
    throw new NotNormalizable(`${where}: open additionalProperties`);
  }
  const props = input.properties ?? {};
  if (!isRecord(props)) throw new NotNormalizable(`${where}: properties must be an object`);
  const names = Object.keys(props);
  if (names.length === 0 && extra !== false) {
    throw new NotNormalizable(`${where}: a free-form object (no properties) is open`);
  }
  const required = Array.isArray(input.required) ? input.required : [];
  const normalized: Record<string, JsonSchema> = {};
  for (const name of names) {
    const child = normalizeNode(props[name], `${at}/properties/${name}`);
    normalized[name] = required.includes(name) ? child : nullable(child);
  }
  if (input.type === undefined) out.type = "object"; // so nullable() has a type to widen
  out.properties = normalized;
  out.required = names;
  out.additionalProperties = false;
}

/** The same schema, also accepting null. */
function nullable(s: JsonSchema): JsonSchema {
  if (allowsNull(s)) return s;
  if (s.$ref !== undefined || s.const !== undefined) return { anyOf: [s, { type: "null" }] };
  const out: JsonSchema = { ...s };
  if (typeof s.type === "string") out.type = [s.type, "null"];
  else if (Array.isArray(s.type)) out.type = [...s.type, "null"];
  else if (Array.isArray(s.anyOf)) out.anyOf = [...s.anyOf, { type: "null" }];
  if (Array.isArray(s.enum)) out.enum = [...s.enum, null];
  return out;
}

function allowsNull(s: JsonSchema): boolean {
  if (s.type === "null") return true;
  if (Array.isArray(s.type) && s.type.includes("null")) return true;
  if (Array.isArray(s.enum) && s.type === undefined && s.enum.includes(null)) return true;
  if (s.const === null) return true;
  if (Array.isArray(s.anyOf)) return s.anyOf.some((b) => isRecord(b) && allowsNull(b));
  return false;
}

/**
 * Undoes the optional-to-nullable rewrite on a strict call's arguments: a null given for a
 * property that was optional in the ORIGINAL schema (and does not itself allow null) is
 * removed. Walks properties, items and local $refs.
 */
export function stripNullOptionals(
  original: JsonSchema,
  value: Record<string, unknown>,
): Record<string, unknown> {
  return walk(original, value, original, 0) as Record<string, unknown>;
}

function walk(schema: unknown, value: unknown, root: JsonSchema, depth: number): unknown {
  if (depth > 64 || !isRecord(schema)) return value;
  const s = resolveRef(schema, root);
  if (Array.isArray(value)) {
    return isRecord(s.items) ? value.map((v) => walk(s.items, v, root, depth + 1)) : value;
  }
  if (!isRecord(value) || !isRecord(s.properties)) return value;
  const required = Array.isArray(s.required) ? s.required : [];
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const prop = s.properties[key];
    if (v === null && !required.includes(key) && isRecord(prop)) {
      if (!allowsNull(resolveRef(prop, root))) continue;
    }
    out[key] = walk(prop, v, root, depth + 1);
  }
  return out;
}

function resolveRef(s: Record<string, unknown>, root: JsonSchema): Record<string, unknown> {
  let node = s;
  for (let i = 0; i < 16 && typeof node.$ref === "string"; i++) {
    const target = pointer(root, node.$ref);
    if (!isRecord(target)) break;
    node = target;
  }
  return node;
}

function pointer(root: JsonSchema, ref: string): unknown {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter((p) => p !== "")) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return node;
}

/** Tool-call arguments as an object: malformed JSON, or JSON that is not an object, is {}. */
export function parseToolArguments(raw: string): Record<string, unknown> {
  return readToolArguments(raw).input;
}

/**
 * The safety net with its evidence: `input` is {} for arguments that are not a JSON object,
 * and then `invalid` holds the text as received, so the loop can refuse to run the call and
 * tell the model what arrived. Empty arguments are a call without parameters (valid).
 */
export function readToolArguments(
  raw: string,
): { input: Record<string, unknown>; invalid?: string } {
  if (raw.trim() === "") return { input: {} };
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? { input: parsed } : { input: {}, invalid: raw };
  } catch {
    return { input: {}, invalid: raw };
  }
}

export type ValidationResult = { ok: true } | { ok: false; errors: string[] };

type Validator = ((value: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string }[] | null;
};
let compilerPromise: Promise<(schema: JsonSchema) => Validator> | undefined;
const compiled = new WeakMap<JsonSchema, Validator>();

// ajv is imported on first use only, so it never loads on the startup path.
function compiler(): Promise<(schema: JsonSchema) => Validator> {
  compilerPromise ??= (async () => {
    const [{ Ajv2020 }, formats] = await Promise.all([
      import("ajv/dist/2020.js"),
      import("ajv-formats"),
    ]);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (formats.default as unknown as (a: unknown) => void)(ajv);
    return (schema: JsonSchema) => ajv.compile(schema) as Validator;
  })();
  return compilerPromise;
}

/** Validates a structured result against the ORIGINAL (un-normalized) schema. */
export async function validateStructured(
  schema: JsonSchema,
  value: unknown,
): Promise<ValidationResult> {
  let validate = compiled.get(schema);
  if (!validate) {
    const compile = await compiler();
    try {
      validate = compile(schema);
    } catch (e) {
      return { ok: false, errors: [`the schema itself is invalid: ${(e as Error).message}`] };
    }
    compiled.set(schema, validate);
  }
  if (validate(value)) return { ok: true };
  const errors = (validate.errors ?? []).map((e) =>
    `${e.instancePath || "/"} ${e.message ?? "is invalid"}`
  );
  return { ok: false, errors: errors.length > 0 ? errors : ["value is invalid"] };
}
