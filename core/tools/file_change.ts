// What an edit tool is about to do to one file, computed before it does it: the strict-mode
// approval shows it as a unified diff (in the terminal, in the needs-human question the
// dashboard, chat bot and report show), and the tool then writes exactly that text.

import { structuredPatch } from "diff";

export interface FileChange {
  /** Absolute path inside the workspace. */
  path: string;
  /** The path as the user sees it (relative to the workspace). */
  shown: string;
  /** Current text, or null for a file that does not exist yet. */
  before: string | null;
  after: string;
  /** Permission bits to keep on rewrite (undefined: a new file). */
  mode: number | undefined;
}

/** Lines of context around each change. */
const CONTEXT_LINES = 3;

/** A git-style unified diff; a new file is shown whole, as all-added lines. */
export function unifiedDiff(change: Pick<FileChange, "shown" | "before" | "after">): string {
  const patch = structuredPatch(
    change.before === null ? "/dev/null" : `a/${change.shown}`,
    `b/${change.shown}`,
    change.before ?? "",
    change.after,
    "",
    "",
    { context: CONTEXT_LINES },
  );
  const lines = [`--- ${patch.oldFileName}`, `+++ ${patch.newFileName}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    lines.push(...hunk.lines);
  }
  if (patch.hunks.length === 0) lines.push("(no change to the text)");
  return lines.join("\n");
}
