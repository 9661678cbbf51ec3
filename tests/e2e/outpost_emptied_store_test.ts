// The real `agent-outpost` (flags of scripts/permissions.ts) on a home whose outpost.db is an
// empty file while runs/ still holds run folders: it must refuse to start with one line and
// exit 1 rather than serve an empty store over a lost history (issue 37). Removing the empty
// file is the deliberate fresh start, and then it starts.

import assert from "node:assert/strict";
import { join } from "node:path";
import { tempHome } from "./agent_process.ts";
import { startOutpost, startRefusedOutpost, stop } from "./outpost_process_kit.ts";

Deno.test("a zero-byte outpost.db beside run folders: the outpost refuses to start, one line, exit 1; removing the file starts fresh", async () => {
  const home = await tempHome();
  try {
    const outpost = join(home, ".agent", "outpost");
    const db = join(outpost, "outpost.db");
    for (const job of ["1", "2", "3"]) {
      await Deno.mkdir(join(outpost, "runs", job), { recursive: true });
      await Deno.writeTextFile(join(outpost, "runs", job, "20260301T090000Z.md"), "# Run report\n");
    }
    await Deno.writeFile(db, new Uint8Array(), { mode: 0o600 });

    const refused = await startRefusedOutpost(home);
    assert.doesNotMatch(refused.stdout, /listening on/, "started on an emptied store");
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal(refused.stderr.trim().split("\n").length, 1, refused.stderr);
    assert.match(
      refused.stderr,
      /^error: .*outpost\.db is empty \(0 bytes\) but .*runs holds 3 run folder/,
    );
    assert.match(refused.stderr, /Restore outpost\.db .* from a backup, or delete the empty file/);
    assert.equal((await Deno.stat(db)).size, 0, "the refused start wrote nothing");
    assert.equal((await Array.fromAsync(Deno.readDir(join(outpost, "runs")))).length, 3);

    // The deliberate fresh start: the empty file removed, the run folders kept.
    await Deno.remove(db);
    const fresh = await startOutpost(home, {});
    const ended = await stop(fresh);
    assert.equal(ended.code, 0, ended.stderr);
    assert.ok((await Deno.stat(db)).size > 0, "a fresh store was made");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
