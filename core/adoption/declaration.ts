// Checks an adoption declaration (spec 2.10) against schemas/adoption-declaration.schema.json
// and turns each schema error into a violation: the JSON pointer of the offending value and
// a one-line fix. ajv is loaded on first use only, so nothing here slows `agent` start-up.

import schema from "../../schemas/adoption-declaration.schema.json" with { type: "json" };

/** The conventional file name, at the root of the repository it describes. */
export const DECLARATION_FILE = "adoption-declaration.json";

export interface Violation {
  /** JSON pointer (RFC 6901) of the value at fault; "" is the whole document. */
  pointer: string;
  message: string;
  fix: string;
}

export const PATTERN_KEYS: readonly string[] = Object.keys(schema.properties.patterns.properties);
const PATTERN_FIELDS = Object.keys(schema.$defs.pattern.properties);

interface AjvError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}
type Validate = ((doc: unknown) => boolean) & { errors?: AjvError[] | null };

let compiled: Promise<Validate> | null = null;

function validator(): Promise<Validate> {
  compiled ??= (async () => {
    const { default: Ajv2020 } = await import("ajv/dist/2020.js");
    // deno-lint-ignore no-explicit-any
    const ajv = new (Ajv2020 as any)({ allErrors: true, strict: true, strictRequired: false });
    return ajv.compile(schema) as Validate;
  })();
  return compiled;
}

/** Every violation of a parsed document, in document order; [] when it is valid. */
export async function checkDeclaration(doc: unknown): Promise<Violation[]> {
  const validate = await validator();
  if (validate(doc)) return [];
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const err of validate.errors ?? []) {
    // `if` only says the `then` branch failed; its `required` error says what is missing.
    if (err.keyword === "if") continue;
    const v = violationOf(err);
    const key = `${v.pointer}\0${v.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(v);
    }
  }
  return out.sort((a, b) => a.pointer.localeCompare(b.pointer));
}

/** Parses JSON text and checks it; a syntax error is one violation at the root. */
export async function checkDeclarationText(text: string): Promise<Violation[]> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return [{
      pointer: "",
      message: `not valid JSON: ${(err as Error).message}`,
      fix: "fix the JSON syntax at the place named (a trailing comma or a missing quote is common)",
    }];
  }
  return await checkDeclaration(doc);
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The pattern key a pointer is under (/patterns/<key>/...), if any. */
function patternOf(pointer: string): string | null {
  const m = /^\/patterns\/([^/]+)/.exec(pointer);
  return m ? m[1]!.replace(/~1/g, "/").replace(/~0/g, "~") : null;
}

function violationOf(err: AjvError): Violation {
  const at = err.instancePath;
  const p = err.params;
  switch (err.keyword) {
    case "required": {
      const missing = String(p.missingProperty);
      const pointer = `${at}/${escapePointer(missing)}`;
      const fixes: Record<string, string> = {
        spec_version: 'add "spec_version": "1.0.0" (the spec version the declaration follows)',
        patterns: 'add "patterns": {} and list the patterns the repository adopts',
        adopted: 'add "adopted": true or "adopted": false',
        reason: 'add "reason": "<why it is not adopted>" (required when adopted is false)',
      };
      return {
        pointer,
        message: `required key ${missing} is missing`,
        fix: fixes[missing] ?? `add ${JSON.stringify(missing)}`,
      };
    }
    case "additionalProperties": {
      const extra = String(p.additionalProperty);
      const pointer = `${at}/${escapePointer(extra)}`;
      if (at === "/patterns") {
        const near = closest(extra, PATTERN_KEYS);
        return {
          pointer,
          message: `${JSON.stringify(extra)} is not one of the 19 pattern keys`,
          fix: near
            ? `rename it to ${JSON.stringify(near)}, or remove it`
            : `remove it; pattern keys are ${PATTERN_KEYS.join(", ")}`,
        };
      }
      if (patternOf(at) !== null) {
        return {
          pointer,
          message: `${JSON.stringify(extra)} is not a field of a pattern`,
          fix: `remove it; a pattern takes ${PATTERN_FIELDS.join(", ")} (put prose in "notes")`,
        };
      }
      return {
        pointer,
        message: `${JSON.stringify(extra)} is not allowed at the top level`,
        fix: "remove it; the top level takes spec_version, patterns and $schema only",
      };
    }
    case "pattern":
      return {
        pointer: at,
        message: "spec_version is not three dot-separated numbers",
        fix: 'write it like "1.0.0" (no "v" prefix, no suffix such as "-rc1")',
      };
    case "type":
      return {
        pointer: at,
        message: `must be ${article(String(p.type))}`,
        fix: typeFix(at, String(p.type)),
      };
    case "minLength":
      return {
        pointer: at,
        message: "must not be an empty string",
        fix: "write a value, or remove the key",
      };
    case "minItems":
      return {
        pointer: at,
        message: "must list at least one path",
        fix: 'list one or more paths, or use "path" for a single one',
      };
    case "uniqueItems":
      return {
        pointer: at,
        message: `items ${p.j} and ${p.i} are the same path`,
        fix: `remove item ${p.i} (a path is listed once)`,
      };
    default:
      return {
        pointer: at,
        message: err.message ?? `fails ${err.keyword}`,
        fix: "compare it with schemas/adoption-declaration.schema.json",
      };
  }
}

function article(type: string): string {
  return type === "object" || type === "array" ? `an ${type}` : `a ${type}`;
}

function typeFix(pointer: string, type: string): string {
  if (pointer.endsWith("/adopted")) return "write true or false, without quotes";
  if (type === "string") return "write the value in double quotes";
  if (type === "array") return 'write a list: ["docs/a.md", "docs/b.md"]';
  if (type === "object") {
    return pointer === "" ? "the file must hold one JSON object" : "write an object: { ... }";
  }
  return `write ${article(type)}`;
}

/** The candidate within edit distance 3 of `word`, if any (typo help). */
function closest(word: string, candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestDistance = 4;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c);
    if (d < bestDistance) [best, bestDistance] = [c, d];
  }
  return best;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}
