// "Did you mean …?" for unknown setting keys: edit distance over the known keys, also
// matching the flag and env spellings people copy into files by mistake.

import { KNOBS } from "./knobs.ts";

function distance(a: string, b: string): number {
  if (a === b) return 0;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[b.length] ?? Math.max(a.length, b.length);
}

/** Spellings that point at a key: the key, its flag and its env var (lower-cased). */
const SPELLINGS: ReadonlyArray<readonly [string, string]> = KNOBS.flatMap((k) => {
  const out: Array<readonly [string, string]> = [[k.key, k.key]];
  if (k.flag) out.push([k.flag, k.key]);
  if (k.env) out.push([k.env.toLowerCase(), k.key]);
  return out;
});

/** The closest known setting key, or undefined when nothing is close enough to be a typo. */
export function closestKey(name: string, candidates?: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const pool: ReadonlyArray<readonly [string, string]> = candidates
    ? candidates.map((c) => [c, c] as const)
    : SPELLINGS;
  let best: { key: string; d: number } | undefined;
  for (const [spelling, key] of pool) {
    const d = distance(lower, spelling);
    if (best === undefined || d < best.d) best = { key, d };
  }
  if (!best) return undefined;
  const limit = Math.max(2, Math.floor(lower.length / 3));
  return best.d <= limit ? best.key : undefined;
}
