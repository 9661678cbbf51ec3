// The memory index placed in the (cached, frozen) system prompt: MEMORY.md first, then the
// files the current workspace sees (its own, global and legacy ones), then ONE line
// summarizing other workspaces' files. Bounded to about 200 lines and 25 KB; whatever does
// not fit is counted in a "more files" line so the model knows to use view.

import type { IndexedFile } from "./recall_index.ts";
import {
  CACHED_INDEX_MAX_BYTES,
  CACHED_INDEX_MAX_LINES,
  CURATED_INDEX_MAX_BYTES,
  CURATED_INDEX_MAX_LINES,
} from "./limits.ts";
import { isStale } from "./sweep.ts";
import { virtualOf } from "./path_guard.ts";

export interface CachedIndexInput {
  workspace: string;
  /** MEMORY.md body (frontmatter stripped), or null when there is none. */
  curated: string | null;
  /** In-scope files in display order (may be more than fit). */
  files: IndexedFile[];
  /** Total in-scope files (excluding MEMORY.md), for the "more files" line. */
  scopedTotal: number;
  foreignFiles: number;
  foreignWorkspaces: number;
  nowMs: number;
}

const encoder = new TextEncoder();
const bytes = (s: string) => encoder.encode(s).length + 1; // + newline

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function foreignSummary(files: number, workspaces: number): string {
  return `${plural(files, "file")} from ${plural(workspaces, "other workspace")} ` +
    `(use view to see them).`;
}

export function fileLine(f: IndexedFile, nowMs: number): string {
  const stale = isStale(f, nowMs) ? ", stale" : "";
  const scope = f.legacy ? ", no frontmatter" : "";
  return `- ${virtualOf(f.path)} — ${f.title} (${f.category}${stale}${scope})`;
}

export function composeCachedIndex(input: CachedIndexInput): string {
  const lines: string[] = [];
  let used = 0;
  const push = (line: string) => {
    lines.push(line);
    used += bytes(line);
  };
  const trailer: string[] = [];
  if (input.foreignFiles > 0) {
    trailer.push(foreignSummary(input.foreignFiles, input.foreignWorkspaces));
  }
  // Room kept for the "more files" line and the foreign summary.
  const reserveLines = trailer.length + 1;
  const reserveBytes = trailer.reduce((n, l) => n + bytes(l), 0) + 120;
  const fits = (line: string) =>
    lines.length + 1 + reserveLines <= CACHED_INDEX_MAX_LINES &&
    used + bytes(line) + reserveBytes <= CACHED_INDEX_MAX_BYTES;

  push("# Memory");
  push(
    `Persistent memory lives under /memories (use the memory tool). ` +
      `Current workspace: ${input.workspace}.`,
  );

  if (input.curated !== null && input.curated.trim() !== "") {
    push("");
    push("## MEMORY.md");
    let curatedLines = 0;
    let curatedBytes = 0;
    const body = input.curated.replace(/\s+$/, "").split("\n");
    for (const line of body) {
      const clipped = line.length > 400 ? `${line.slice(0, 399)}…` : line;
      if (
        curatedLines >= CURATED_INDEX_MAX_LINES ||
        curatedBytes + bytes(clipped) > CURATED_INDEX_MAX_BYTES || !fits(clipped)
      ) {
        push("(MEMORY.md continues; view /memories/MEMORY.md for the rest)");
        break;
      }
      push(clipped);
      curatedLines++;
      curatedBytes += bytes(clipped);
    }
  }

  push("");
  push("## Files");
  let listed = 0;
  for (const f of input.files) {
    const line = fileLine(f, input.nowMs);
    if (!fits(line)) break;
    push(line);
    listed++;
  }
  if (input.scopedTotal === 0) push("(no memory files for this workspace yet)");
  const more = input.scopedTotal - listed;
  if (more > 0) push(`… ${plural(more, "more file")} not listed (use view /memories to browse).`);
  for (const line of trailer) push(line);
  return lines.join("\n");
}
