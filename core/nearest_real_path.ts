// The real path of a path that may not exist yet: the walk up to its nearest existing
// ancestor, shared by the workdir rule (core/workdir_policy.ts: a protected place not created
// yet is still protected where it will be) and workspace confinement
// (core/tools/workspace_path.ts: a file the model is about to create is judged by where it
// would land).

import { dirname, join } from "./path.ts";

/**
 * The real path of `path`; for a path that does not exist, its nearest existing ancestor's
 * real path joined with the missing tail (the path as spelled when not even `/` resolves).
 * `onMissing` sees each step realpath could not resolve, with why (NotFound, or NotADirectory
 * when a parent is a file), and may throw to refuse the path; any other failure is thrown.
 */
export function nearestRealPath(
  path: string,
  onMissing: (step: string, err: Deno.errors.NotFound | Deno.errors.NotADirectory) => void =
    () => {},
): string {
  const tail: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(Deno.realPathSync(current), ...tail.reverse());
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory)) {
        throw err;
      }
      onMissing(current, err);
      const parent = dirname(current);
      if (parent === current) return path;
      tail.push(current.slice(parent === "/" ? 1 : parent.length + 1));
      current = parent;
    }
  }
}
