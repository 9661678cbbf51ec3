// What the pages read from the store and can reuse, kept until the store commits
// (server/http/data_version.ts): job names, the job list's newest pages, the usage totals,
// the /runs charts. Pages are loaded again and again (and re-read on every live refresh)
// while nothing is written, so each such read costs one pragma instead of its queries and
// rendering. A value that depends on the clock carries the clock's part (the UTC day or hour)
// in its key. A store without a data version (in-memory test stores) is never cached.

import type { Store } from "../../core/store/store.ts";

interface Entry {
  version: number;
  value: unknown;
}

/**
 * Entries kept per store. The pages in use need a few dozen keys (a kind and a page, filter,
 * span, day or job id); past this, the oldest is dropped, so a crawl over every page of runs
 * holds at most this many pages of rows (~50 KiB each), never the history.
 */
export const COMMIT_CACHE_ENTRIES = 64;

const caches = new WeakMap<Store, Map<string, Entry>>();

/**
 * `build()` for `key`, or the value built for the same key while the store's data version has
 * not moved since. The value is shared by every request that reads it: callers never change it.
 */
export function untilCommit<T>(
  store: Store,
  version: (() => number) | null,
  key: string,
  build: () => T,
): T {
  if (!version) return build();
  const now = version();
  let entries = caches.get(store);
  const hit = entries?.get(key);
  if (hit && hit.version === now) return hit.value as T;
  const value = build();
  // Read the version again: a commit while building must not pin stale values.
  if (version() !== now) return value;
  if (!entries) caches.set(store, entries = new Map());
  entries.delete(key);
  entries.set(key, { version: now, value });
  if (entries.size > COMMIT_CACHE_ENTRIES) entries.delete(entries.keys().next().value!);
  return value;
}
