// Arithmetic on Usage, the same on both wires: a run's or a session's total, and the whole
// prompt a turn sent (fresh input plus what the provider's prompt cache read or wrote).

import type { Usage } from "./types.ts";

/** Adds `add` into `total`; the cache counts appear once any turn reported them. */
export function addUsage(total: Usage, add: Usage): void {
  total.input_tokens += add.input_tokens;
  total.output_tokens += add.output_tokens;
  if (add.cache_read_tokens) {
    total.cache_read_tokens = (total.cache_read_tokens ?? 0) + add.cache_read_tokens;
  }
  if (add.cache_write_tokens) {
    total.cache_write_tokens = (total.cache_write_tokens ?? 0) + add.cache_write_tokens;
  }
}

/** A new Usage holding `a` plus `b`. */
export function sumUsage(a: Usage, b: Usage): Usage {
  const total: Usage = { ...a };
  addUsage(total, b);
  return total;
}

/** The whole prompt of a turn as the server counted it (cached parts included). */
export function promptTokens(u: Usage): number {
  return u.input_tokens + (u.cache_read_tokens ?? 0) + (u.cache_write_tokens ?? 0);
}
