// Owner-only modes on real files: tightenTree fixes folders and files of an older install
// without following a symlink or blocking on a FIFO; new files and the SQLite store's
// database (with its -wal and -shm) are born 0600 in 0700 folders.

import assert from "node:assert/strict";
import { join } from "./path.ts";
import { ensurePrivateFileSync, makePrivateDir, tightenTree } from "./private_files.ts";
import { SqliteStore } from "./store/sqlite_store.ts";
import { FakeClock } from "../tests/fakes/clock.ts";
import { fifoWithWriter } from "../tests/fakes/hostile_report.ts";

const modeOf = (path: string) => (Deno.lstatSync(path).mode! & 0o777).toString(8);

Deno.test("tightenTree makes folders 0700 and files 0600, leaving symlinks, their targets and FIFOs", async () => {
  const home = await Deno.makeTempDir({ prefix: "private_files_" });
  try {
    const root = join(home, "outpost");
    await Deno.mkdir(join(root, "runs", "1"), { recursive: true });
    await Deno.writeTextFile(join(root, "delivery.jsonl"), "{}\n");
    await Deno.writeTextFile(join(root, "runs", "1", "r.md"), "# r\n");
    const outsideDir = join(home, "outside");
    await Deno.mkdir(outsideDir);
    const outsideFile = join(outsideDir, "notes.txt");
    await Deno.writeTextFile(outsideFile, "mine\n");
    await Deno.symlink(outsideFile, join(root, "runs", "1", "link.md"));
    await Deno.symlink(outsideDir, join(root, "runs", "2"));
    await using fifo = await fifoWithWriter(join(root, "runs", "1", "fifo.md"));
    for (const p of [root, join(root, "runs"), join(root, "runs", "1"), outsideDir]) {
      await Deno.chmod(p, 0o755);
    }
    for (const p of [join(root, "delivery.jsonl"), join(root, "runs", "1", "r.md"), outsideFile]) {
      await Deno.chmod(p, 0o644);
    }
    await Deno.chmod(fifo.path, 0o644);

    const result = await tightenTree(root);
    assert.deepEqual(result, { changed: 5, failed: [] });
    assert.equal(modeOf(root), "700");
    assert.equal(modeOf(join(root, "runs")), "700");
    assert.equal(modeOf(join(root, "runs", "1")), "700");
    assert.equal(modeOf(join(root, "delivery.jsonl")), "600");
    assert.equal(modeOf(join(root, "runs", "1", "r.md")), "600");
    assert.equal(modeOf(outsideDir), "755", "a symlinked folder was followed");
    assert.equal(modeOf(outsideFile), "644", "a symlinked file was followed");
    assert.equal(modeOf(fifo.path), "644", "the FIFO is left alone");
    assert.deepEqual(await tightenTree(root), { changed: 0, failed: [] }, "nothing left to do");
    assert.deepEqual(await tightenTree(join(home, "absent")), { changed: 0, failed: [] });
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("new private folders and files are 0700 and 0600; an existing file is tightened", async () => {
  const home = await Deno.makeTempDir({ prefix: "private_files_" });
  try {
    const dir = join(home, "a", "b");
    await makePrivateDir(dir);
    assert.equal(modeOf(join(home, "a")), "700");
    assert.equal(modeOf(dir), "700");
    const file = join(dir, "f");
    ensurePrivateFileSync(file);
    assert.equal(modeOf(file), "600");
    assert.equal(Deno.readTextFileSync(file), "");
    Deno.writeTextFileSync(file, "kept");
    Deno.chmodSync(file, 0o644);
    ensurePrivateFileSync(file);
    assert.equal(modeOf(file), "600");
    assert.equal(Deno.readTextFileSync(file), "kept", "an existing file keeps its content");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("the SQLite store creates its folder 0700 and the database, -wal and -shm 0600", async () => {
  const home = await Deno.makeTempDir({ prefix: "private_files_" });
  try {
    const path = join(home, "outpost", "outpost.db");
    const clock = new FakeClock("2026-03-02T09:00:00Z");
    const store = new SqliteStore({ path, clock });
    try {
      assert.equal(modeOf(join(home, "outpost")), "700");
      for (const p of [path, `${path}-wal`, `${path}-shm`]) assert.equal(modeOf(p), "600", p);
      // An older install's 0644 files are tightened when the store opens them again.
      for (const p of [path, `${path}-wal`, `${path}-shm`]) Deno.chmodSync(p, 0o644);
      const again = new SqliteStore({ path, clock });
      again.close();
      for (const p of [path, `${path}-wal`, `${path}-shm`]) assert.equal(modeOf(p), "600", p);
    } finally {
      store.close();
    }
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
