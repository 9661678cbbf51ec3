// The operator's reclassification of a memory file (dashboard memory pane): set its
// `category:` and/or `workspace:` frontmatter lines, through the same path guard, verified
// read and guarded write as the memory tool's commands, keeping the recall index in step.
// Only those two header lines change; every other header line and the body stay byte for
// byte. A file without frontmatter gets a block holding just the lines set.

import { MemoryCommandError, MemoryNotFoundError } from "./errors.ts";
import { type CommandContext, readForEdit, write } from "./commands.ts";
import {
  type Category,
  formatValue,
  isCategory,
  isCuratedIndex,
  parseMemory,
} from "./frontmatter.ts";

export interface Reclassify {
  category?: Category;
  /** A workspace key, or "global". */
  workspace?: string;
}

export interface Reclassified {
  path: string;
  category: Category;
  workspace: string | null;
  /** What changed, e.g. ["category episodic → preference"]. */
  changes: string[];
}

const WORKSPACE_MAX = 512;
const KEY_LINE = /^([A-Za-z_][\w-]*)[ \t]*:/;
// deno-lint-ignore no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** Checks the operator's values; throws MemoryCommandError naming the bad one. */
export function checkReclassify(input: Reclassify): void {
  if (input.category === undefined && input.workspace === undefined) {
    throw new MemoryCommandError("reclassify", "Give a category, a workspace or both.");
  }
  if (input.category !== undefined && !isCategory(input.category)) {
    throw new MemoryCommandError(
      "reclassify",
      `Unknown category ${JSON.stringify(input.category)}: use project-fact, preference, ` +
        "episodic or session.",
    );
  }
  const ws = input.workspace;
  if (ws !== undefined && (ws.trim() === "" || ws.length > WORKSPACE_MAX || CONTROL.test(ws))) {
    throw new MemoryCommandError(
      "reclassify",
      `A workspace is a non-empty key of at most ${WORKSPACE_MAX} characters on one line ` +
        '(or "global").',
    );
  }
}

export function reclassify(ctx: CommandContext, path: unknown, input: Reclassify): Reclassified {
  checkReclassify(input);
  const p = ctx.resolve(path);
  if (!p.exists) throw new MemoryNotFoundError(p.virtual);
  if (p.isRoot || Deno.statSync(p.real).isDirectory) {
    throw new MemoryNotFoundError(p.virtual, "is a directory, not a file");
  }
  if (isCuratedIndex(p.rel)) {
    throw new MemoryCommandError(
      "reclassify",
      `${p.virtual} is the curated index: it has no category or workspace.`,
    );
  }
  const text = readForEdit(ctx, p, "reclassify");
  const parsed = parseMemory(text);
  const header = [...parsed.headerLines];
  const changes: string[] = [];
  const set = (key: string, value: string, before: string) => {
    const line = `${key}: ${formatValue(value)}`;
    const i = header.findIndex((l) => KEY_LINE.exec(l)?.[1]?.toLowerCase() === key);
    if (i >= 0) header[i] = line;
    else header.push(line);
    if (before !== value) changes.push(`${key} ${before} → ${value}`);
  };
  if (input.category !== undefined) set("category", input.category, parsed.category);
  if (input.workspace !== undefined) {
    set("workspace", input.workspace.trim(), parsed.workspace ?? "global");
  }
  const next = `---\n${header.join("\n")}\n---\n${parsed.body}`;
  if (next !== text) write(ctx, p, next, "reclassify");
  const after = parseMemory(next);
  return { path: p.virtual, category: after.category, workspace: after.workspace, changes };
}
