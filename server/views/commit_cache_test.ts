// The pages' store cache: reused while the store's data version stands still and the key is
// the same; rebuilt after a commit or for another key (another page, day or hour); never
// pinned when a commit lands while it is being built; bounded; no cache without a data version.

import assert from "node:assert/strict";
import type { Store } from "../../core/store/store.ts";
import { COMMIT_CACHE_ENTRIES, untilCommit } from "./commit_cache.ts";

Deno.test("untilCommit follows the data version and the key", () => {
  const store = {} as Store;
  let version = 1;
  let builds = 0;
  const build = () => {
    builds++;
    return new Map<number, string>();
  };
  const first = untilCommit(store, () => version, "usage 2026-03-02 1,2", build);
  assert.equal(untilCommit(store, () => version, "usage 2026-03-02 1,2", build), first);
  assert.equal(builds, 1);
  version++; // a run was written
  assert.notEqual(untilCommit(store, () => version, "usage 2026-03-02 1,2", build), first);
  assert.equal(builds, 2);
  untilCommit(store, () => version, "usage 2026-03-03 1,2", build); // the day turned
  assert.equal(builds, 3);
  // A commit during the build: the result is used once, not kept.
  const racing = () => {
    builds++;
    version++;
    return new Map<number, string>();
  };
  untilCommit(store, () => version, "k", racing);
  untilCommit(store, () => version, "k", build);
  assert.equal(builds, 5);
  // Without a data version (an in-memory store) every call builds.
  untilCommit({} as Store, null, "k", build);
  untilCommit({} as Store, null, "k", build);
  assert.equal(builds, 7);
  // Two stores never share an entry.
  const other = {} as Store;
  untilCommit(other, () => version, "k", build);
  assert.equal(builds, 8);
});

Deno.test("untilCommit keeps a bounded number of keys, dropping the oldest", () => {
  const store = {} as Store;
  let builds = 0;
  const build = () => ++builds;
  for (let i = 0; i <= COMMIT_CACHE_ENTRIES; i++) untilCommit(store, () => 1, `page ${i}`, build);
  assert.equal(builds, COMMIT_CACHE_ENTRIES + 1);
  // The newest are still kept; the first one was dropped and is built again.
  assert.equal(untilCommit(store, () => 1, `page ${COMMIT_CACHE_ENTRIES}`, build), builds);
  assert.equal(untilCommit(store, () => 1, "page 0", build), COMMIT_CACHE_ENTRIES + 2);
});
