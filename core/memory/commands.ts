// The six memory commands (view, create, str_replace, insert, delete, rename). Each takes
// plain inputs, goes through the path guard, keeps the recall index in step, and returns
// the text the model sees. Bad input throws a typed error; nothing is written then.

import { MemoryCommandError, MemoryTooLargeError } from "./errors.ts";
import { episodicDefaultAdvice, isCuratedIndex, normalizeOnCreate } from "./frontmatter.ts";
import {
  type GuardHooks,
  readVerified,
  removeGuarded,
  renameGuarded,
  unreadable,
  vanished,
  type WalkEntry,
  walkFiles,
  writeGuarded,
} from "./guarded_fs.ts";
import { BODY_CAP_BYTES } from "./limits.ts";
import { isAddressableName, type MemoryPath, virtualOf } from "./path_guard.ts";
import type { RecallIndex } from "./recall_index.ts";

/** What the commands need from the store. */
export interface CommandContext {
  readonly root: string;
  readonly workspace: string;
  readonly hooks: GuardHooks | undefined;
  resolve(path: unknown): MemoryPath;
  /** True for a file (root-relative) a directory listing must leave out (memory scope). */
  hidden?(rel: string): boolean;
  /** Applies an index update; a failure marks the index for a refresh instead of failing. */
  updateIndex(fn: (index: RecallIndex) => void): void;
}

/** Files larger than this are not even read for paging (written files are capped lower). */
export const VIEW_READ_CEILING = 4 * 1024 * 1024;
const LIST_MAX_ENTRIES = 500;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

function readText(ctx: CommandContext, p: MemoryPath, limit: number): string {
  return decoder.decode(readVerified(ctx.root, p.real, p.virtual, limit, ctx.hooks).bytes);
}

/** Reads a whole file for editing; files over the cap are refused (never half-edited). */
export function readForEdit(ctx: CommandContext, p: MemoryPath, command: string): string {
  const r = readVerified(ctx.root, p.real, p.virtual, BODY_CAP_BYTES, ctx.hooks);
  if (r.truncated) {
    throw new MemoryTooLargeError(
      p.virtual,
      r.size,
      BODY_CAP_BYTES,
      `${command} cannot edit it; rewrite it with create as smaller files`,
    );
  }
  return decoder.decode(r.bytes);
}

export function write(ctx: CommandContext, p: MemoryPath, text: string, command: string): void {
  const data = encoder.encode(text);
  if (data.length > BODY_CAP_BYTES) {
    throw new MemoryTooLargeError(
      p.virtual,
      data.length,
      BODY_CAP_BYTES,
      `${command} was not applied; split the content into smaller files`,
    );
  }
  const stat = writeGuarded(ctx.root, p, data, ctx.hooks);
  ctx.updateIndex((index) => index.put(p.rel, stat, text));
}

function requireString(command: string, name: string, value: unknown): string {
  if (typeof value !== "string") {
    throw new MemoryCommandError(command, `${command} needs \`${name}\` as a string.`);
  }
  return value;
}

function humanSize(n: number): string {
  if (n < 1024) return `${n}`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)}K`;
  return `${(n / 1024 / 1024).toFixed(1)}M`;
}

function numbered(lines: string[], from: number): string[] {
  return lines.map((l, i) => `${String(from + i).padStart(6)}\t${l}`);
}

function splitLines(text: string): { lines: string[]; trailingNewline: boolean } {
  const trailingNewline = text.endsWith("\n");
  const lines = text.split("\n");
  if (trailingNewline) lines.pop();
  if (text === "") lines.length = 0;
  return { lines, trailingNewline };
}

function listDirectory(ctx: CommandContext, p: MemoryPath): string {
  const out: string[] = [`dir\t${p.virtual}`];
  let skipped = 0;
  const visit = (dirReal: string, depth: number) => {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dirReal)].sort((a, b) => a.name.localeCompare(b.name));
    } catch (err) {
      if (vanished(err)) return;
      throw unreadable(virtualOf(dirReal.slice(ctx.root.length + 1)), err);
    }
    for (const e of entries) {
      if (!isAddressableName(e.name)) continue;
      const full = `${dirReal}/${e.name}`;
      if (out.length > LIST_MAX_ENTRIES) {
        skipped++;
        continue;
      }
      const rel = full.slice(ctx.root.length + 1);
      if (e.isSymlink) {
        out.push(`link\t${virtualOf(rel)}`); // listed, never followed
      } else if (e.isDirectory) {
        out.push(`dir\t${virtualOf(rel)}/`);
        if (depth < 2) visit(full, depth + 1);
      } else if (e.isFile) {
        if (ctx.hidden?.(rel)) continue;
        let size: number;
        try {
          size = Deno.lstatSync(full).size;
        } catch (err) {
          if (vanished(err)) continue;
          throw unreadable(virtualOf(rel), err);
        }
        out.push(`${humanSize(size)}\t${virtualOf(rel)}`);
      }
    }
  };
  visit(p.real, 1);
  const head = `Here're the files and directories up to 2 levels deep in ${p.virtual}, ` +
    `excluding hidden items:`;
  const tail = skipped > 0
    ? [`… ${skipped} more entries not shown; view a sub-directory to see them.`]
    : [];
  return [head, ...out, ...tail].join("\n");
}

function parseRange(value: unknown, lineCount: number): [number, number] | null {
  if (value === undefined || value === null) return null;
  const bad = (why: string) =>
    new MemoryCommandError(
      "view",
      `Invalid view_range ${JSON.stringify(value)}: ${why}. ` +
        `Give [start, end] with 1 <= start <= ${Math.max(lineCount, 1)} and end >= start or -1.`,
    );
  if (!Array.isArray(value) || value.length !== 2) throw bad("it must be two integers");
  const [start, end] = value;
  if (!Number.isInteger(start) || !Number.isInteger(end)) throw bad("it must be two integers");
  if (start < 1 || start > Math.max(lineCount, 1)) throw bad("start is out of range");
  if (end !== -1 && end < start) throw bad("end is before start");
  return [start, end === -1 ? lineCount : Math.min(end, lineCount)];
}

export function view(ctx: CommandContext, path: unknown, viewRange?: unknown): string {
  const p = ctx.resolve(path);
  if (!p.exists) throw new MemoryCommandError("view", `The path ${p.virtual} does not exist.`);
  if (Deno.statSync(p.real).isDirectory) {
    if (viewRange !== undefined && viewRange !== null) {
      throw new MemoryCommandError("view", "view_range applies to files, not directories.");
    }
    return listDirectory(ctx, p);
  }
  const r = readVerified(ctx.root, p.real, p.virtual, VIEW_READ_CEILING, ctx.hooks);
  if (r.truncated) {
    throw new MemoryTooLargeError(
      p.virtual,
      r.size,
      VIEW_READ_CEILING,
      "it is too large to view; delete it or split it outside the agent",
    );
  }
  const { lines } = splitLines(decoder.decode(r.bytes));
  const range = parseRange(viewRange, lines.length);
  const [start, end] = range ?? [1, lines.length];
  const out = [`Here's the content of ${p.virtual} with line numbers:`];
  let used = 0;
  let last = start - 1;
  for (const line of numbered(lines.slice(start - 1, end), start)) {
    const n = encoder.encode(line).length + 1;
    if (used + n > BODY_CAP_BYTES) break;
    out.push(line);
    used += n;
    last++;
  }
  if (last < end) {
    out.push(
      `[output stopped after line ${last} of ${lines.length}: the result would exceed the ` +
        `${BODY_CAP_BYTES / 1024} KB cap. Use view_range [${last + 1}, ${end}] to read on.]`,
    );
  }
  return out.join("\n");
}

export function create(ctx: CommandContext, path: unknown, fileText: unknown): string {
  const text = requireString("create", "file_text", fileText);
  const p = ctx.resolve(path);
  const existed = p.exists;
  const verb = existed ? "overwritten" : "created";
  if (isCuratedIndex(p.rel)) {
    write(ctx, p, text, "create");
    return `File ${verb} successfully at: ${p.virtual} (the curated index: written as given, ` +
      `shown first in every workspace's memory index, never swept).`;
  }
  const normalized = normalizeOnCreate(text, ctx.workspace);
  write(ctx, p, normalized.text, "create");
  const scope = normalized.workspace === null ? "global" : `workspace ${normalized.workspace}`;
  const notes = normalized.changes.length ? ` Frontmatter: ${normalized.changes.join("; ")}.` : "";
  const advice = normalized.defaulted ? ` ${episodicDefaultAdvice(p.rel)}` : "";
  return `File ${verb} successfully at: ${p.virtual} ` +
    `(category ${normalized.category}, ${scope}).${notes}${advice}`;
}

function occurrenceLines(text: string, needle: string): number[] {
  const lines: number[] = [];
  for (let i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + 1)) {
    lines.push(text.slice(0, i).split("\n").length);
  }
  return lines;
}

function excerpt(text: string, aroundLine: number, extra: number): string {
  const { lines } = splitLines(text);
  const from = Math.max(1, aroundLine - 2);
  const to = Math.min(lines.length, aroundLine + extra + 2);
  return numbered(lines.slice(from - 1, to), from).join("\n");
}

export function strReplace(
  ctx: CommandContext,
  path: unknown,
  oldStr: unknown,
  newStr: unknown,
): string {
  const oldText = requireString("str_replace", "old_str", oldStr);
  const newText = requireString("str_replace", "new_str", newStr);
  if (oldText === "") throw new MemoryCommandError("str_replace", "old_str must not be empty.");
  const p = ctx.resolve(path);
  if (!p.exists) {
    throw new MemoryCommandError("str_replace", `The path ${p.virtual} does not exist.`);
  }
  const text = readForEdit(ctx, p, "str_replace");
  const at = occurrenceLines(text, oldText);
  if (at.length === 0) {
    throw new MemoryCommandError(
      "str_replace",
      `No replacement was performed: old_str did not appear verbatim in ${p.virtual}.`,
    );
  }
  if (at.length > 1) {
    throw new MemoryCommandError(
      "str_replace",
      `No replacement was performed: old_str occurs ${at.length} times in ${p.virtual} ` +
        `(lines ${at.join(", ")}). Include more context so it is unique.`,
    );
  }
  const i = text.indexOf(oldText);
  const next = text.slice(0, i) + newText + text.slice(i + oldText.length);
  write(ctx, p, next, "str_replace");
  const line = at[0] ?? 1;
  return `The memory file ${p.virtual} has been edited:\n` +
    excerpt(next, line, newText.split("\n").length - 1);
}

export function insert(
  ctx: CommandContext,
  path: unknown,
  insertLine: unknown,
  insertText: unknown,
): string {
  const addition = requireString("insert", "insert_text", insertText);
  const p = ctx.resolve(path);
  if (!p.exists) throw new MemoryCommandError("insert", `The path ${p.virtual} does not exist.`);
  const text = readForEdit(ctx, p, "insert");
  const { lines, trailingNewline } = splitLines(text);
  if (
    !Number.isInteger(insertLine) || (insertLine as number) < 0 ||
    (insertLine as number) > lines.length
  ) {
    throw new MemoryCommandError(
      "insert",
      `Invalid insert_line ${JSON.stringify(insertLine)}: it must be an integer in ` +
        `[0, ${lines.length}] (0 inserts before the first line).`,
    );
  }
  const at = insertLine as number;
  const added = splitLines(addition).lines;
  if (addition === "") added.push("");
  lines.splice(at, 0, ...added);
  const next = lines.join("\n") + (trailingNewline || text === "" ? "\n" : "");
  write(ctx, p, next, "insert");
  return `Text inserted at line ${at} of ${p.virtual}:\n` + excerpt(next, at + 1, added.length - 1);
}

export function remove(ctx: CommandContext, path: unknown): string {
  const p = ctx.resolve(path);
  const kind = removeGuarded(ctx.root, p, ctx.hooks);
  ctx.updateIndex((index) => index.remove(p.rel, kind === "dir"));
  return `Successfully deleted ${p.virtual}${kind === "dir" ? " and everything in it" : ""}.`;
}

function statEntry(p: MemoryPath): WalkEntry {
  const st = Deno.lstatSync(p.real);
  return { rel: p.rel, mtimeMs: st.mtime?.getTime() ?? 0, size: st.size };
}

export function rename(ctx: CommandContext, oldPath: unknown, newPath: unknown): string {
  const from = ctx.resolve(oldPath);
  const to = ctx.resolve(newPath);
  const kind = renameGuarded(ctx.root, from, to, ctx.hooks);
  ctx.updateIndex((index) => {
    index.remove(from.rel, kind === "dir");
    const moved = kind === "dir" ? walkFiles(ctx.root, to.real) : [statEntry(to)];
    for (const e of moved) {
      const text = readText(ctx, ctx.resolve(virtualOf(e.rel)), BODY_CAP_BYTES);
      index.put(e.rel, e, text);
    }
  });
  return `Successfully renamed ${from.virtual} to ${to.virtual}.`;
}
