// Held originals do not outlive their open inbox item (held_prune.ts).

import assert from "node:assert/strict";
import { join } from "node:path";
import { heldDir, heldPath } from "./gate.ts";
import { pruneHeldOriginals } from "./held_prune.ts";
import type { InboxItem } from "../store/store.ts";

Deno.test("originals of closed or vanished items and stale temporaries are removed; open ones stay", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.mkdir(heldDir(home), { recursive: true });
    for (const id of [1, 2, 3]) await Deno.writeTextFile(heldPath(home, id), "{}");
    const oldTemp = join(heldDir(home), ".pending-old.json");
    const newTemp = join(heldDir(home), ".pending-new.json");
    await Deno.writeTextFile(oldTemp, "{}");
    await Deno.writeTextFile(newTemp, "{}");
    await Deno.utime(oldTemp, new Date("2026-01-01T00:00:00Z"), new Date("2026-01-01T00:00:00Z"));
    const items: Record<number, Pick<InboxItem, "state">> = {
      1: { state: "open" },
      2: { state: "answered" },
    };
    const store = { getInboxItem: (id: number) => (items[id] as InboxItem | undefined) ?? null };
    const report = await pruneHeldOriginals(store, home, new Date());
    assert.deepEqual(report, { removed: 3, failed: [] });
    const left = [...Deno.readDirSync(heldDir(home))].map((e) => e.name).sort();
    assert.deepEqual(left, [".pending-new.json", "1.json"]);
    assert.deepEqual(await pruneHeldOriginals(store, await Deno.makeTempDir(), new Date()), {
      removed: 0,
      failed: [],
    });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
