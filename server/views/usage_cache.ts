// The jobs list's usage lines, kept until the store commits (server/http/data_version.ts) or
// the UTC day turns: the landing page and /jobs read them on every load and every live
// refresh, and they change only when a run is written. One entry per store (the newest page
// is the one loaded again and again); a store without a data version is never cached.

import type { Store } from "../../core/store/store.ts";
import type { UsageWindows } from "./usage.tsx";

interface Entry {
  key: string;
  version: number;
  value: Map<number, UsageWindows>;
}

const entries = new WeakMap<Store, Entry>();

/**
 * `build()` for `key` (the windows' first days and the page's job ids), or the value built
 * for the same key while the store's data version has not moved since.
 */
export function cachedUsage(
  store: Store,
  version: (() => number) | null,
  key: string,
  build: () => Map<number, UsageWindows>,
): Map<number, UsageWindows> {
  if (!version) return build();
  const now = version();
  const hit = entries.get(store);
  if (hit && hit.key === key && hit.version === now) return hit.value;
  const value = build();
  // Read the version again: a commit while building must not pin stale totals.
  if (version() === now) entries.set(store, { key, version: now, value });
  return value;
}
