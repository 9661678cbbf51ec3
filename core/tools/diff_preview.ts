// The edit tools' unified diff, with jsdiff loaded on first use: a diff is shown only when an
// edit needs approval (strict mode), and jsdiff is ~19 modules that every run otherwise loaded
// on its way to the first model request (issue 16). The diff itself is core/tools/file_change.ts.

import type { FileChange } from "./file_change.ts";

/** core/tools/file_change.ts unifiedDiff, loading it (and jsdiff) the first time. */
export async function unifiedDiff(
  change: Pick<FileChange, "shown" | "before" | "after">,
): Promise<string> {
  // jsdiff loads only when a diff is shown (see cli/main.ts).
  const diff = await import("./file_change.ts");
  return diff.unifiedDiff(change);
}
