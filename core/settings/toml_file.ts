// Reading one settings file: parse it (errors name file, line, column), flatten it into
// setting keys, warn about unknown keys and about global-only keys in a project file.

import { parse } from "smol-toml";
import { tomlSyntaxError } from "./errors.ts";
import { readRegularFileSync } from "../regular_file.ts";
import { KNOBS_BY_KEY } from "./knobs.ts";
import { closestKey } from "./suggest.ts";
import { badValue, type FilePosition } from "./values.ts";

export type FileScope = "project" | "global";

export interface LoadedFile {
  path: string;
  text: string;
  table: Record<string, unknown>;
}

export interface FileEntry {
  key: string;
  value: unknown;
  /** Computed on demand (error paths only). */
  pos: () => FilePosition;
}

export interface CollectedFile {
  scope: FileScope;
  file: LoadedFile;
  entries: Map<string, FileEntry>;
  warnings: string[];
}

/**
 * Parses TOML text exactly as the writer does (so any file one accepts the other accepts):
 * oversized integers become bigint (rejected later only if a knob uses them), and
 * `unsafeKeyBehaviour: "throw"` keeps `__proto__` keys out of our objects.
 */
export function parseSettingsText(path: string, text: string, refusingWrite = false) {
  try {
    return parse(text, {
      integersAsBigInt: "asNeeded",
      unsafeKeyBehaviour: "throw",
    }) as Record<string, unknown>;
  } catch (err) {
    throw tomlSyntaxError(path, err, refusingWrite);
  }
}

/** A settings file larger than this is not read (far beyond any real one). */
export const SETTINGS_MAX_BYTES = 1024 * 1024;

/**
 * Reads and parses a settings file; undefined when it does not exist, or when it is not a
 * regular file or is over SETTINGS_MAX_BYTES: then one line goes to `warnings` and the file is
 * skipped. A project file lives in a workdir, the model's ground: a FIFO there must not hang
 * every later run (core/regular_file.ts checks the type before opening).
 */
export function readSettingsFile(path: string, warnings: string[]): LoadedFile | undefined {
  let read;
  try {
    read = readRegularFileSync(path, SETTINGS_MAX_BYTES);
  } catch (err) {
    throw tomlSyntaxError(path, err);
  }
  if (read.kind === "absent") return undefined;
  if (read.kind === "skipped") {
    warnings.push(`settings file ${path} ${read.why}; it is ignored`);
    return undefined;
  }
  if (read.truncated) {
    warnings.push(
      `settings file ${path} is ${read.size} bytes, over ${SETTINGS_MAX_BYTES}; it is ignored`,
    );
    return undefined;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(read.bytes);
  } catch (err) {
    throw tomlSyntaxError(path, err);
  }
  return { path, text, table: parseSettingsText(path, text) };
}

const KEY_PART = String.raw`(?:[A-Za-z0-9_-]+|"(?:[^"\\]|\\.)*"|'[^']*')`;
const DOTTED = String.raw`${KEY_PART}(?:\s*\.\s*${KEY_PART})*`;
const ARRAY_HEADER = new RegExp(String.raw`^\[\[\s*(${DOTTED})\s*\]\]`);
const TABLE_HEADER = new RegExp(String.raw`^\[\s*(${DOTTED})\s*\]`);
const KEY_LINE = new RegExp(String.raw`^(${DOTTED})\s*=`);
const PART = new RegExp(KEY_PART, "g");

function splitDotted(s: string): string[] {
  return (s.match(PART) ?? []).map((p) =>
    p.startsWith('"') || p.startsWith("'") ? p.slice(1, -1) : p
  );
}

function startsWith(full: readonly (string | number)[], prefix: readonly (string | number)[]) {
  return prefix.length <= full.length && prefix.every((p, i) => full[i] === p);
}

/**
 * Best-effort line/column (1-based) of a key path such as ["thinking", "type"] or
 * ["providers", 1, "base_url"] (array index 0-based). smol-toml reports positions only for
 * syntax errors, so value errors locate their key by scanning the text.
 */
export function locateKey(
  text: string,
  target: readonly (string | number)[],
): { line: number; column: number } | undefined {
  const lines = text.split(/\r?\n/);
  let header: (string | number)[] = [];
  const arrayCounts = new Map<string, number>();
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    const trimmed = raw.trimStart();
    const column = raw.length - trimmed.length + 1;
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    let m = ARRAY_HEADER.exec(trimmed);
    if (m) {
      const name = splitDotted(m[1] ?? "");
      const n = (arrayCounts.get(name.join(".")) ?? -1) + 1;
      arrayCounts.set(name.join("."), n);
      header = [...name, n];
      if (startsWith(header, target)) return { line: i + 1, column };
      continue;
    }
    m = TABLE_HEADER.exec(trimmed);
    if (m) {
      header = splitDotted(m[1] ?? "");
      if (startsWith(header, target)) return { line: i + 1, column };
      continue;
    }
    m = KEY_LINE.exec(trimmed);
    if (m) {
      const full = [...header, ...splitDotted(m[1] ?? "")];
      if (startsWith(full, target)) return { line: i + 1, column };
    }
  }
  return undefined;
}

export function positionOf(file: LoadedFile, target: readonly (string | number)[]): FilePosition {
  const at = locateKey(file.text, target);
  return at ? { file: file.path, line: at.line, column: at.column } : { file: file.path };
}

function isTable(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
}

/** Table prefixes of dotted keys: "thinking" for "thinking.type". */
const TABLE_PREFIXES = new Set(
  [...KNOBS_BY_KEY.keys()].filter((k) => k.includes(".")).map((k) => k.split(".")[0] ?? k),
);

function unknownKeyWarning(file: LoadedFile, key: string): string {
  const pos = positionOf(file, key.split("."));
  const where = pos.line === undefined ? file.path : `${file.path}:${pos.line}`;
  const guess = closestKey(key);
  const hint = guess ? `; did you mean ${guess}?` : "";
  return `${where}: unknown setting ${key} (ignored${hint})`;
}

/** Flattens a parsed file into setting keys, collecting warnings instead of failing on them. */
export function collectFile(file: LoadedFile, scope: FileScope): CollectedFile {
  const entries = new Map<string, FileEntry>();
  const warnings: string[] = [];
  const add = (key: string, value: unknown) => {
    const knob = KNOBS_BY_KEY.get(key);
    if (!knob) {
      warnings.push(unknownKeyWarning(file, key));
      return;
    }
    if (scope === "project" && knob.globalOnly) {
      warnings.push(
        `${file.path}: ${key} is global-only and is ignored in a project settings file; ` +
          `move it to the global settings file`,
      );
      return;
    }
    entries.set(key, { key, value, pos: () => positionOf(file, key.split(".")) });
  };
  for (const [name, value] of Object.entries(file.table)) {
    if (TABLE_PREFIXES.has(name)) {
      if (!isTable(value)) {
        const subs = [...KNOBS_BY_KEY.keys()].filter((k) => k.startsWith(`${name}.`));
        const expected = `a table ([${name}] with ${
          subs.map((k) => k.slice(name.length + 1)).join(", ")
        })`;
        throw badValue(
          name,
          expected,
          value,
          { kind: scope, detail: file.path },
          () => positionOf(file, [name]),
        );
      }
      for (const [sub, subValue] of Object.entries(value)) add(`${name}.${sub}`, subValue);
    } else {
      add(name, value);
    }
  }
  return { scope, file, entries, warnings };
}
