// The jobs list's usage cache: reused while the store's data version stands still and the key
// is the same; rebuilt after a commit, for another page or day, and never pinned when a commit
// lands while it is being built; no cache at all without a data version.

import assert from "node:assert/strict";
import type { Store } from "../../core/store/store.ts";
import type { UsageWindows } from "./usage.tsx";
import { cachedUsage } from "./usage_cache.ts";

Deno.test("cachedUsage follows the data version and the key", () => {
  const store = {} as Store;
  let version = 1;
  let builds = 0;
  const build = () => {
    builds++;
    return new Map<number, UsageWindows>();
  };
  const first = cachedUsage(store, () => version, "2026-03-02 1,2", build);
  assert.equal(cachedUsage(store, () => version, "2026-03-02 1,2", build), first);
  assert.equal(builds, 1);
  version++; // a run was written
  assert.notEqual(cachedUsage(store, () => version, "2026-03-02 1,2", build), first);
  assert.equal(builds, 2);
  cachedUsage(store, () => version, "2026-03-03 1,2", build); // the day turned
  assert.equal(builds, 3);
  // A commit during the build: the result is used once, not kept.
  const racing = () => {
    builds++;
    version++;
    return new Map<number, UsageWindows>();
  };
  cachedUsage(store, () => version, "k", racing);
  cachedUsage(store, () => version, "k", build);
  assert.equal(builds, 5);
  // Without a data version (an in-memory store) every call builds.
  cachedUsage({} as Store, null, "k", build);
  cachedUsage({} as Store, null, "k", build);
  assert.equal(builds, 7);
});
