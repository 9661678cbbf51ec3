import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { parseMemory } from "./frontmatter.ts";
import { walkFiles } from "./guarded_fs.ts";
import type { MemoryStore } from "./store.ts";
import { DAY, RECALL_LIMIT } from "./limits.ts";
import { sandbox, touch } from "../../tests/fixtures/memory/sandbox.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";

/** The index must describe exactly the files on disk, with their frontmatter facts. */
function assertConsistent(store: MemoryStore): void {
  const disk = walkFiles(store.root).sort((a, b) => a.rel.localeCompare(b.rel));
  const listed = store.list().files;
  assert.deepEqual(listed.map((f) => f.path), disk.map((e) => `/memories/${e.rel}`));
  let searchable = 0;
  for (const f of listed) {
    const parsed = parseMemory(Deno.readTextFileSync(`${store.root}${f.path.slice(9)}`));
    assert.equal(f.category, parsed.category, f.path);
    assert.equal(f.workspace, parsed.workspace, f.path);
    assert.equal(f.legacy, parsed.legacy, f.path);
    if (f.category !== "session") searchable++;
  }
  assert.equal(store.searchableCount(), searchable);
}

/** Each index file's name, inode, size and mtime: a deleted or rewritten file shows. */
function indexFiles(dir: string): string[] {
  return [...Deno.readDirSync(dir)].map((e) => {
    const st = Deno.lstatSync(`${dir}/${e.name}`);
    return `${e.name} ino=${st.ino} size=${st.size} mtime=${st.mtime?.getTime()}`;
  }).sort();
}

const hits = (store: MemoryStore, q: string) => store.search(q).map((h) => h.path);

Deno.test("recall index: in step after every command", async () => {
  const sb = await sandbox();
  const s = sb.store;
  try {
    s.create(
      "/memories/facts/db.md",
      "---\ncategory: project-fact\n---\n# Database\nPostgres 16\n",
    );
    assertConsistent(s);
    assert.deepEqual(hits(s, "postgres"), ["/memories/facts/db.md"]);

    s.strReplace("/memories/facts/db.md", "Postgres 16", "MariaDB eleven");
    assertConsistent(s);
    assert.deepEqual(hits(s, "postgres"), []);
    assert.deepEqual(hits(s, "mariadb"), ["/memories/facts/db.md"]);

    s.insert("/memories/facts/db.md", 5, "Replica lag alerts at 30s");
    assertConsistent(s);
    assert.deepEqual(hits(s, "replica lag"), ["/memories/facts/db.md"]);

    s.rename("/memories/facts/db.md", "/memories/facts/database.md");
    assertConsistent(s);
    assert.deepEqual(hits(s, "mariadb"), ["/memories/facts/database.md"]);

    s.create("/memories/facts/deep/x.md", "---\ncategory: episodic\n---\nzebra crossing\n");
    s.rename("/memories/facts", "/memories/knowledge");
    assertConsistent(s);
    assert.deepEqual(hits(s, "zebra"), ["/memories/knowledge/deep/x.md"]);
    assert.deepEqual(hits(s, "mariadb"), ["/memories/knowledge/database.md"]);

    s.delete("/memories/knowledge/database.md");
    assertConsistent(s);
    assert.deepEqual(hits(s, "mariadb"), []);

    s.delete("/memories/knowledge");
    assertConsistent(s);
    assert.deepEqual(hits(s, "zebra"), []);
    assert.equal(s.list().files.length, 0);

    // Overwrite with create changes category and text.
    s.create("/memories/a.md", "---\ncategory: preference\n---\napples\n");
    s.create("/memories/a.md", "---\ncategory: episodic\n---\nbananas\n");
    assertConsistent(s);
    assert.deepEqual(hits(s, "apples"), []);
    assert.equal(s.list().files[0]?.category, "episodic");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall index: session files are listed but never indexed for recall", async () => {
  const sb = await sandbox();
  const s = sb.store;
  try {
    s.create("/memories/scratch.md", "---\ncategory: session\n---\nsecret plan walrus\n");
    assertConsistent(s);
    assert.equal(s.searchableCount(), 0);
    assert.deepEqual(hits(s, "walrus"), []);
    assert.deepEqual(s.recall("walrus"), []);
    assert.equal(s.list().stats.session.files, 1);
    // Re-categorized by an edit: now it is searchable.
    s.strReplace("/memories/scratch.md", "category: session", "category: episodic");
    assertConsistent(s);
    assert.deepEqual(hits(s, "walrus"), ["/memories/scratch.md"]);
    s.strReplace("/memories/scratch.md", "category: episodic", "category: session");
    assert.deepEqual(hits(s, "walrus"), []);
    // Also after a full rebuild.
    s.rebuildIndex();
    assert.deepEqual(hits(s, "walrus"), []);
    assertConsistent(s);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall index: files changed outside the tool are picked up on open and refresh", async () => {
  const sb = await sandbox();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\nalpha\n");
    sb.store.create("/memories/gone.md", "---\ncategory: preference\n---\ngamma\n");
    // Outside edits: a new file, a changed file, a removed file.
    Deno.mkdirSync(`${sb.root}/hand`);
    Deno.writeTextFileSync(`${sb.root}/hand/new.md`, "hand written omega\n");
    Deno.writeTextFileSync(`${sb.root}/a.md`, "---\ncategory: preference\n---\nalpha beta delta\n");
    Deno.removeSync(`${sb.root}/gone.md`);
    const report = sb.store.refresh();
    assert.deepEqual(report, { added: 1, updated: 1, removed: 1 });
    assertConsistent(sb.store);
    assert.deepEqual(hits(sb.store, "omega"), ["/memories/hand/new.md"]);
    assert.deepEqual(hits(sb.store, "delta"), ["/memories/a.md"]);
    assert.deepEqual(hits(sb.store, "gamma"), []);
    assert.deepEqual(sb.store.refresh(), { added: 0, updated: 0, removed: 0 }, "cheap no-op");

    // Same again, detected on open instead of refresh.
    Deno.writeTextFileSync(`${sb.root}/hand/new.md`, "hand written sigma, now longer\n");
    const reopened = await sb.reopen();
    assertConsistent(reopened);
    assert.deepEqual(hits(reopened, "sigma"), ["/memories/hand/new.md"]);
    assert.deepEqual(hits(reopened, "omega"), []);
    // Legacy (no frontmatter) reads as project-fact, workspace-less.
    assert.equal(
      reopened.list().files.find((f) => f.path === "/memories/hand/new.md")?.legacy,
      true,
    );
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall index: a missing or corrupt index is rebuilt on open", async () => {
  const sb = await sandbox();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\nkiwi\n");
    sb.store.close();
    Deno.removeSync(`${sb.root}/.index`, { recursive: true });
    let s = await sb.reopen();
    assert.deepEqual(hits(s, "kiwi"), ["/memories/a.md"]);
    s.close();
    for (const f of Deno.readDirSync(`${sb.root}/.index`)) {
      Deno.removeSync(`${sb.root}/.index/${f.name}`);
    }
    Deno.writeTextFileSync(`${sb.root}/.index/recall.db`, "this is not a database".repeat(100));
    s = await sb.reopen();
    assert.deepEqual(hits(s, "kiwi"), ["/memories/a.md"]);
    assertConsistent(s);
    assert.equal(Deno.readTextFileSync(`${sb.root}/a.md`).includes("kiwi"), true, "data kept");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall index: a damaged page, a foreign schema or an old version is rebuilt", async () => {
  const sb = await sandbox();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\nkiwi\n");
    const db = `${sb.root}/.index/recall.db`;
    const damage: [string, () => void][] = [
      ["damaged pages (SQLITE_CORRUPT)", () => {
        const bytes = Deno.readFileSync(db);
        for (let i = 4096; i < bytes.length; i++) bytes[i] = (i * 31) & 0xff; // all but page 1
        Deno.writeFileSync(db, bytes);
      }],
      ["a foreign meta table", () => {
        Deno.removeSync(db);
        const foreign = new DatabaseSync(db);
        foreign.exec("CREATE TABLE meta(key TEXT)");
        foreign.close();
      }],
      ["an older schema version", () => {
        const old = new DatabaseSync(db);
        old.exec("UPDATE meta SET value = '0' WHERE key = 'schema'");
        old.close();
      }],
    ];
    for (const [what, spoil] of damage) {
      sb.store.close();
      spoil();
      const s = await sb.reopen();
      assert.deepEqual(hits(s, "kiwi"), ["/memories/a.md"], what);
      assertConsistent(s);
    }
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall index: a directory where the index should be is named and nothing is deleted", async () => {
  const sb = await sandbox();
  try {
    sb.store.close();
    const dir = `${sb.root}/.index`;
    for (const f of Deno.readDirSync(dir)) Deno.removeSync(`${dir}/${f.name}`);
    Deno.mkdirSync(`${dir}/recall.db`);
    Deno.writeTextFileSync(`${dir}/recall.db/keep.txt`, "not ours to delete\n");
    Deno.writeTextFileSync(`${dir}/recall.db-wal`, "someone's write-ahead log\n");
    Deno.writeTextFileSync(`${dir}/recall.db-shm`, "someone's shared memory\n");
    const before = indexFiles(dir);
    const err = await sb.reopen().then(() => null, (e: Error) => e);
    assert.deepEqual(indexFiles(dir), before);
    assert.match(
      String(err?.message),
      /cannot open the recall index \S+\/\.index\/recall\.db \(it is not a file; move it away\)/,
    );
  } finally {
    Deno.removeSync(`${sb.root}/.index`, { recursive: true });
    await sb.cleanup();
  }
});

Deno.test("recall index: an index it may not write is left alone, even while another process uses it", async () => {
  // The outpost has the index open (its -wal and -shm hold live state) while an agent that
  // Deno refuses write access to the database tries to open it: the old code took any open
  // failure for corruption and deleted the -wal and -shm from under the live connection.
  const sb = await sandbox();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\nkiwi\n");
    const dir = `${sb.root}/.index`;
    assert.ok(Deno.statSync(`${dir}/recall.db-wal`).isFile, "the live connection has a WAL");
    const before = indexFiles(dir);
    const lines = await runRefused(
      `const { openMemory } = await import(repo + "core/memory/store.ts");
const { FakeClock } = await import(repo + "tests/fakes/clock.ts");
console.log(await outcome(async () => {
  const s = await openMemory({
    root: ${JSON.stringify(sb.root)},
    cwd: ${JSON.stringify(sb.cwd)},
    clock: new FakeClock(),
    workspace: "/w",
  });
  return s.search("kiwi").length;
}));`,
      [`--deny-write=${dir}/recall.db`],
    );
    assert.deepEqual(indexFiles(dir), before, lines.join("\n"));
    assert.match(
      lines[0] ?? "",
      /^error: memory_dir .* \(cannot open the recall index \S+\/recall\.db \(Requires write access/,
    );
    assert.deepEqual(hits(sb.store, "kiwi"), ["/memories/a.md"], "the live index still works");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall index: an index another connection holds locked is left alone", async () => {
  // Waits out the 5 s busy timeout once: SQLite answers SQLITE_BUSY, which the old code
  // took for corruption, deleting the files under the connection that holds them.
  const sb = await sandbox();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\nkiwi\n");
    sb.store.close();
    const dir = `${sb.root}/.index`;
    const holder = new DatabaseSync(`${dir}/recall.db`);
    try {
      holder.exec("PRAGMA locking_mode = EXCLUSIVE");
      holder.exec("BEGIN EXCLUSIVE");
      holder.exec("INSERT INTO meta(key, value) VALUES ('held', 'yes')");
      const before = indexFiles(dir);
      const err = await sb.reopen().then(() => null, (e: Error) => e);
      assert.deepEqual(indexFiles(dir), before);
      assert.match(
        String(err?.message),
        /cannot open the recall index \S+recall\.db \(database is locked\)/,
      );
      holder.exec("COMMIT");
    } finally {
      holder.close();
    }
    const s = await sb.reopen();
    assert.deepEqual(hits(s, "kiwi"), ["/memories/a.md"]);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall index: the index location may not be a symlink", async () => {
  const sb = await sandbox();
  try {
    sb.store.close();
    Deno.removeSync(`${sb.root}/.index`, { recursive: true });
    Deno.symlinkSync(sb.outside, `${sb.root}/.index`);
    const before = sb.snapshotOutside();
    await assert.rejects(() => sb.reopen(), /symlink/);
    assert.equal(sb.snapshotOutside(), before);
    Deno.removeSync(`${sb.root}/.index`);
    await sb.reopen();
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall: workspace filter, MEMORY.md excluded, at most 5 hits", async () => {
  const sb = await sandbox({ workspace: "/repo/here" });
  const s = sb.store;
  try {
    s.create("/memories/facts/here.md", "---\ncategory: project-fact\n---\nmango deploy here\n");
    s.create(
      "/memories/facts/there.md",
      "---\ncategory: project-fact\nworkspace: /repo/there\n---\nmango deploy there\n",
    );
    s.create(
      "/memories/facts/global.md",
      "---\ncategory: project-fact\nworkspace: global\n---\nmango everywhere\n",
    );
    Deno.writeTextFileSync(`${sb.root}/legacy.md`, "mango legacy note\n");
    s.create(
      "/memories/MEMORY.md",
      "---\ncategory: project-fact\nworkspace: global\n---\nmango index\n",
    );
    s.refresh();
    const recalled = s.recall("mango").map((r) => r.path).sort();
    assert.deepEqual(recalled, [
      "/memories/facts/global.md",
      "/memories/facts/here.md",
      "/memories/legacy.md",
    ]);
    // Dashboard search is unfiltered and includes MEMORY.md.
    assert.equal(s.search("mango").length, 5);

    for (let i = 0; i < 12; i++) {
      s.create(`/memories/many/m${i}.md`, "---\ncategory: preference\n---\nmango again\n");
    }
    assert.equal(s.recall("mango").length, RECALL_LIMIT);
    assert.equal(s.recall("mango", { limit: 50 }).length, RECALL_LIMIT);
    assert.equal(s.recall("mango", { limit: 2 }).length, 2);
    assert.equal(s.search("mango").length, 10);
    const reminder = s.recallReminder("mango") ?? "";
    assert.equal(reminder.split("\n").filter((l) => l.startsWith("- /memories/")).length, 5);
    assert.match(reminder, /^<memory-recall>\n/);
    assert.match(reminder, /not instructions/);
    assert.equal(s.recallReminder("no such words anywhere"), undefined);
    assert.equal(s.recallReminder(""), undefined);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("recall: newer preferences outrank older ones; stale facts rank lower", async () => {
  const sb = await sandbox();
  const s = sb.store;
  try {
    const now = sb.clock.now();
    const body = "# Indentation\nIndent with tabs in every project.\n";
    s.create("/memories/preferences/old.md", `---\ncategory: preference\n---\n${body}`);
    s.create("/memories/preferences/new.md", `---\ncategory: preference\n---\n${body}`);
    touch(`${sb.root}/preferences/old.md`, new Date(now.getTime() - 400 * DAY));
    touch(`${sb.root}/preferences/new.md`, new Date(now.getTime() - 1 * DAY));
    s.refresh();
    assert.deepEqual(s.recall("tabs indentation").map((r) => r.path), [
      "/memories/preferences/new.md",
      "/memories/preferences/old.md",
    ]);
    // Swap ages: the order follows.
    touch(`${sb.root}/preferences/old.md`, new Date(now.getTime() - 2 * DAY));
    touch(`${sb.root}/preferences/new.md`, new Date(now.getTime() - 300 * DAY));
    s.refresh();
    assert.equal(s.recall("tabs indentation")[0]?.path, "/memories/preferences/old.md");

    const fact = "# Ports\nThe API listens on port 8443.\n";
    // Created stale-first, so insertion order alone would rank it first.
    s.create("/memories/facts/stale.md", `---\ncategory: project-fact\n---\n${fact}`);
    s.create("/memories/facts/fresh.md", `---\ncategory: project-fact\n---\n${fact}`);
    touch(`${sb.root}/facts/stale.md`, new Date(now.getTime() - 200 * DAY));
    s.refresh();
    assert.deepEqual(s.recall("api port").map((r) => r.path), [
      "/memories/facts/fresh.md",
      "/memories/facts/stale.md",
    ]);
  } finally {
    await sb.cleanup();
  }
});
