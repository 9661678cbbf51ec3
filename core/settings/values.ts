// Turning raw setting values (flag and env strings, TOML values) into typed, range-checked
// values. Every rejection is a SettingsError naming the key, the source and the expected type.

import { isAbsolute, join, resolve } from "../path.ts";
import { describePosition, describeSource, SettingsError } from "./errors.ts";
import type { Knob, Range } from "./knobs.ts";
import type { Source } from "./source.ts";

export type ScalarValue = string | number | boolean;

/** A location inside a settings file, for error messages. */
export interface FilePosition {
  file: string;
  line?: number;
  column?: number;
}

/** A position, or a function computing it: locating a key scans the file, so only on error. */
export type Where = FilePosition | (() => FilePosition);

const TRUE_WORDS = new Set(["1", "true", "on", "yes"]);
const FALSE_WORDS = new Set(["0", "false", "off", "no"]);
const SECRET_KEYS = new Set(["api_key", "provider_keys", "mcp_keys"]);

/** Env-style boolean: 1/0, true/false, on/off, yes/no (any case); undefined when not one of those. */
export function parseBooleanWord(raw: string): boolean | undefined {
  const w = raw.trim().toLowerCase();
  if (TRUE_WORDS.has(w)) return true;
  if (FALSE_WORDS.has(w)) return false;
  return undefined;
}

function describeRange(r: Range): string {
  const lo = r.min === undefined ? undefined : `${r.minExclusive ? ">" : ">="} ${r.min}`;
  const hi = r.max === undefined ? undefined : `${r.maxExclusive ? "<" : "<="} ${r.max}`;
  if (r.min !== undefined && r.max !== undefined) {
    return `in ${r.minExclusive ? "(" : "["}${r.min}, ${r.max}${r.maxExclusive ? ")" : "]"}`;
  }
  return lo ?? hi ?? "";
}

/** "an integer >= 1", "a number in (0, 1]", "one of enabled, disabled, adaptive". */
export function describeExpected(knob: Knob): string {
  const range = knob.range ? ` ${describeRange(knob.range)}` : "";
  switch (knob.type) {
    case "string":
      return "a non-empty string";
    case "path":
      return "a directory path";
    case "url":
      return "an http:// or https:// URL";
    case "integer":
      return `an integer${range}`;
    case "number":
      return `a number${range}`;
    case "boolean":
      return "a boolean (true/false; env and flags also take 1/0, on/off, yes/no)";
    case "enum":
      return `one of ${(knob.values ?? []).join(", ")}`;
    case "list":
      return "a list of strings";
    case "table":
      return "a table of string values";
    case "rows":
      return "an array of tables ([[providers]] rows)";
  }
}

function describeGot(key: string, value: unknown): string {
  if (SECRET_KEYS.has(key.split(".")[0] ?? key)) {
    return `a ${Array.isArray(value) ? "list" : typeof value}`;
  }
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "bigint") return `${value}`;
  if (Array.isArray(value)) return "a list";
  if (value !== null && typeof value === "object") return "a table";
  return String(value);
}

export function badValue(
  key: string,
  expected: string,
  got: unknown,
  source: Source,
  at?: Where,
): SettingsError {
  const pos = typeof at === "function" ? at() : at;
  const where = pos
    ? `${describeSource(source)}${describePosition(pos.line, pos.column)}`
    : describeSource(source);
  return new SettingsError(
    `Setting ${key}: expected ${expected}, got ${describeGot(key, got)} (from ${where}). ` +
      `Fix or remove that value.`,
    {
      key,
      source,
      ...(pos ? { file: pos.file } : {}),
      ...(pos?.line !== undefined ? { line: pos.line } : {}),
      ...(pos?.column !== undefined ? { column: pos.column } : {}),
    },
  );
}

function inRange(n: number, r: Range | undefined): boolean {
  if (!r) return true;
  if (r.min !== undefined && (r.minExclusive ? n <= r.min : n < r.min)) return false;
  if (r.max !== undefined && (r.maxExclusive ? n >= r.max : n > r.max)) return false;
  return true;
}

const INTEGER_TEXT = /^[+-]?\d+$/;
const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

function checkUrl(raw: string): boolean {
  try {
    const u = new URL(raw);
    return u.protocol === "http:" || u.protocol === "https:";
  } catch {
    return false;
  }
}

/** A value given as text (a flag or an env var). */
export function parseTextValue(
  knob: Knob,
  raw: string,
  source: Source,
  pos?: Where,
): ScalarValue {
  const text = raw.trim();
  const fail = () => badValue(knob.key, describeExpected(knob), raw, source, pos);
  switch (knob.type) {
    case "string":
    case "path":
      if (text === "") throw fail();
      return text;
    case "url":
      if (!checkUrl(text)) throw fail();
      return text;
    case "enum":
      if (!(knob.values ?? []).includes(text)) throw fail();
      return text;
    case "boolean": {
      const b = parseBooleanWord(text);
      if (b === undefined) throw fail();
      return b;
    }
    case "integer": {
      if (!INTEGER_TEXT.test(text)) throw fail();
      const n = Number(text);
      if (!Number.isSafeInteger(n) || !inRange(n, knob.range)) throw fail();
      return n;
    }
    case "number": {
      if (!NUMBER_TEXT.test(text)) throw fail();
      const n = Number(text);
      if (!Number.isFinite(n) || !inRange(n, knob.range)) throw fail();
      return n;
    }
    case "list":
    case "table":
    case "rows":
      // No list or table knob has an env var or flag; reaching here is a table bug.
      throw new SettingsError(`Setting ${knob.key} cannot be given as text`, { key: knob.key });
  }
}

/** A value read from a TOML file. Lists and tables come back as fresh plain copies. */
export function parseTomlValue(
  knob: Knob,
  value: unknown,
  source: Source,
  pos: Where,
): ScalarValue | string[] | Record<string, string> {
  const fail = () => badValue(knob.key, describeExpected(knob), value, source, pos);
  switch (knob.type) {
    case "string":
    case "path":
    case "url":
    case "enum":
      if (typeof value !== "string") throw fail();
      return parseTextValue(knob, value, source, pos);
    case "boolean":
      if (typeof value !== "boolean") throw fail();
      return value;
    case "integer": {
      if (typeof value !== "number" || !Number.isSafeInteger(value)) throw fail();
      if (!inRange(value, knob.range)) throw fail();
      return value;
    }
    case "number": {
      if (typeof value !== "number" || !Number.isFinite(value)) throw fail();
      if (!inRange(value, knob.range)) throw fail();
      return value;
    }
    case "list": {
      if (!Array.isArray(value)) throw fail();
      const out: string[] = [];
      for (const item of value) {
        if (typeof item !== "string" || item.trim() === "") throw fail();
        out.push(item);
      }
      return out;
    }
    case "table": {
      if (value === null || typeof value !== "object" || Array.isArray(value)) throw fail();
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(value)) {
        if (typeof v !== "string" || v.trim() === "") {
          throw badValue(`${knob.key}.${k}`, "a non-empty string", v, source, pos);
        }
        out[k] = v.trim();
      }
      return out;
    }
    case "rows":
      throw new SettingsError(`Setting ${knob.key} is parsed by presets.ts`, { key: knob.key });
  }
}

/**
 * Expands `~` with HOME and makes a relative path absolute against `baseDir` (cwd for flags
 * and env, the file's directory for settings files).
 */
export function expandPath(raw: string, baseDir: string, home: string | undefined): string {
  let p = raw;
  if ((p === "~" || p.startsWith("~/")) && home) p = join(home, p.slice(1));
  return isAbsolute(p) ? resolve(p) : resolve(baseDir, p);
}
