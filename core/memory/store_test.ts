import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import {
  MemoryNotFoundError,
  MemoryPathError,
  MemoryRootError,
  MemoryTooLargeError,
} from "./errors.ts";
import { BODY_CAP_BYTES } from "./limits.ts";
import { sandbox } from "../../tests/fixtures/memory/sandbox.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";

Deno.test("store: readBody returns one body through the guard, with its facts", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  try {
    sb.store.create(
      "/memories/facts/db.md",
      "---\ncategory: project-fact\nowner: ops\n---\n# DB\npg\n",
    );
    const b = sb.store.readBody("/memories/facts/db.md");
    assert.equal(b.path, "/memories/facts/db.md");
    assert.equal(b.category, "project-fact");
    assert.equal(b.workspace, "/repo");
    assert.equal(b.legacy, false);
    assert.deepEqual(b.frontmatter, { category: "project-fact", owner: "ops", workspace: "/repo" });
    assert.equal(b.body, "# DB\npg\n");
    assert.equal(typeof b.mtime, "string");

    assert.throws(() => sb.store.readBody("/memories/facts"), MemoryNotFoundError);
    assert.throws(() => sb.store.readBody("/memories"), MemoryNotFoundError);
    assert.throws(() => sb.store.readBody("/memories/nope.md"), MemoryNotFoundError);
    assert.throws(() => sb.store.readBody("/memories/%2e%2e/outside/secret.txt"), MemoryPathError);

    // Exactly at the cap is fine; one byte over is refused.
    Deno.writeTextFileSync(`${sb.root}/edge.md`, "e".repeat(BODY_CAP_BYTES));
    assert.equal(sb.store.readBody("/memories/edge.md").body.length, BODY_CAP_BYTES);
    Deno.writeTextFileSync(`${sb.root}/edge.md`, "e".repeat(BODY_CAP_BYTES + 1));
    const err = (() => {
      try {
        sb.store.readBody("/memories/edge.md");
      } catch (e) {
        return e;
      }
    })();
    assert.ok(err instanceof MemoryTooLargeError);
    assert.equal(err.size, BODY_CAP_BYTES + 1);
    assert.equal(err.cap, BODY_CAP_BYTES);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("store: list gives every file's facts and per-category stats, no content", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  try {
    sb.store.create("/memories/p.md", "---\ncategory: preference\n---\n# Pref\n");
    sb.store.create(
      "/memories/e.md",
      "---\ncategory: episodic\nworkspace: /else\n---\nfirst line title\n",
    );
    sb.store.create("/memories/s.md", "---\ncategory: session\n---\n# Scratch\n");
    Deno.writeTextFileSync(`${sb.root}/legacy.md`, "legacy text\n");
    sb.store.refresh();
    const { files, stats } = sb.store.list();
    assert.deepEqual(
      files.map((f) => [f.path, f.title, f.category, f.workspace, f.legacy, f.stale]),
      [
        ["/memories/e.md", "first line title", "episodic", "/else", false, false],
        ["/memories/legacy.md", "legacy text", "project-fact", null, true, false],
        ["/memories/p.md", "Pref", "preference", null, false, false],
        ["/memories/s.md", "Scratch", "session", null, false, false],
      ],
    );
    assert.equal(files.length, 4);
    assert.ok(files.every((f) => !("body" in f)));
    assert.equal(stats.total.files, 4);
    assert.equal(stats.session.files, 1);
    assert.equal(stats.preference.bytes, files.find((f) => f.path === "/memories/p.md")?.size);
    assert.equal(stats.episodic.files, 1);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("store: dashboard search is unfiltered top 10 of path, category, title, snippet", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  try {
    for (let i = 0; i < 15; i++) {
      const ws = i % 2 ? "/elsewhere" : "/repo";
      sb.store.create(
        `/memories/f${i}.md`,
        `---\ncategory: project-fact\nworkspace: ${ws}\n---\n# F${i}\nquasar ${i}\n`,
      );
    }
    const hits = sb.store.search("quasar");
    assert.equal(hits.length, 10);
    assert.deepEqual(Object.keys(hits[0]!).sort(), ["category", "path", "snippet", "title"]);
    assert.ok(hits.some((h) => h.path === "/memories/f1.md"), "foreign workspaces included");
    // Recall sees this workspace's five (and global ones), never a foreign workspace's.
    assert.deepEqual(
      sb.store.recall("quasar").map((r) => `${r.path} ${r.workspace}`).sort(),
      [0, 2, 4, 6, 8].map((i) => `/memories/f${i}.md /repo`),
    );
    assert.deepEqual(sb.store.search(""), []);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("store: open creates a private root and refuses a file as root", async () => {
  const sb = await sandbox();
  try {
    assert.equal(Deno.statSync(sb.root).mode! & 0o777, 0o700);
    const { openMemory } = await import("./store.ts");
    Deno.writeTextFileSync(`${sb.base}/file`, "x");
    for (const root of [`${sb.base}/file`, `${sb.base}/file/below`]) {
      await assert.rejects(
        () => openMemory({ root, cwd: sb.cwd, clock: sb.clock }),
        (err: unknown) =>
          err instanceof MemoryRootError && err.root === root &&
          /one of its parents is a file/.test(err.problem) && !/os error/.test(err.message),
      );
    }
    await assert.rejects(
      () => openMemory({ root: "", cwd: sb.cwd, clock: sb.clock }),
      MemoryRootError,
    );
  } finally {
    await sb.cleanup();
  }
});

Deno.test("store: names no command could open are neither listed nor indexed", async () => {
  const sb = await sandbox();
  try {
    for (const name of ["a%2e.md", "back\\slash.md", "new\nline.md", ".dot.md", "ok.md"]) {
      Deno.writeTextFileSync(`${sb.root}/${name}`, "needle\n");
    }
    sb.store.refresh();
    assert.deepEqual(sb.store.list().files.map((f) => f.path), ["/memories/ok.md"]);
    assert.deepEqual(sb.store.search("needle").map((h) => h.path), ["/memories/ok.md"]);
    const listing = sb.store.view("/memories");
    assert.match(listing, /\/memories\/ok\.md/);
    assert.doesNotMatch(listing, /%2e|slash|line\.md|\.dot/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("store: a memory_dir Deno refuses to write is one clear error naming memory_dir and the path", async () => {
  // The agent's flags plus --deny-write: Deno refuses the writes (NotCapable), as the kernel
  // would for a read-only folder (EACCES; tests run as root, where chmod refuses nothing).
  const sb = await sandbox();
  try {
    const existing = `${sb.base}/readonly`;
    Deno.mkdirSync(existing);
    const parent = `${sb.base}/locked`;
    Deno.mkdirSync(parent);
    const missing = `${parent}/memory`;
    const lines = await runRefused(
      `const { openMemory } = await import(repo + "core/memory/store.ts");
const { FakeClock } = await import(repo + "tests/fakes/clock.ts");
for (const root of ${JSON.stringify([existing, missing])}) {
  console.log(await outcome(async () => {
    try {
      await openMemory({ root, cwd: ${
        JSON.stringify(sb.cwd)
      }, clock: new FakeClock(), workspace: "/w" });
    } catch (err) {
      throw new Error(err.name + " " + err.message);
    }
  }));
}`,
      [`--deny-write=${existing},${parent}`],
    );
    assert.deepEqual(
      lines,
      [existing, missing].map((root) =>
        `error: MemoryRootError memory_dir ${root} cannot be created or written ` +
        `(permission denied at ${root})`
      ),
    );
    for (const line of lines) assert.doesNotMatch(line, /--allow-write|os error/);
    assert.deepEqual([...Deno.readDirSync(existing)], [], "nothing was written in the folder");
    assert.deepEqual([...Deno.readDirSync(parent)], []);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("store: a folder or file in the root it may not read fails the walk, listing or index naming it", async () => {
  // Deno refuses the named paths (the agent's flags plus --deny-read). The old code skipped
  // them: the files below looked deleted to the recall index, view left them out or listed
  // them at size 0, and the cached index silently lost MEMORY.md's body.
  const sb = await sandbox();
  try {
    const roots = ["walkdir", "walkfile", "viewdir", "viewfile", "curated"].map((n) =>
      `${sb.base}/${n}`
    );
    const [walkDir, walkFile, viewDir, viewFile, curated] = roots as [
      string,
      string,
      string,
      string,
      string,
    ];
    const { openMemory } = await import("./store.ts");
    for (const [root, path] of [[walkDir, "/memories/facts/a.md"], [walkFile, "/memories/b.md"]]) {
      const s = await openMemory({ root: root!, cwd: sb.cwd, clock: sb.clock, workspace: "/w" });
      s.create(path!, "---\ncategory: preference\n---\nkiwi\n");
      s.close();
    }
    const lines = await runRefused(
      `const { openMemory } = await import(repo + "core/memory/store.ts");
const { FakeClock } = await import(repo + "tests/fakes/clock.ts");
const open = (root: string) =>
  openMemory({ root, cwd: ${JSON.stringify(sb.cwd)}, clock: new FakeClock(), workspace: "/w" });
const [walkDir, walkFile, viewDir, viewFile, curated] = ${JSON.stringify(roots)};
console.log(await outcome(async () => (await open(walkDir)).list().files.map((f) => f.path)));
console.log(await outcome(async () => (await open(walkFile)).list().files.map((f) => f.path)));
// These are refused only after the store is open (made since, by a write Deno allows).
const dirStore = await open(viewDir);
Deno.mkdirSync(viewDir + "/facts");
Deno.writeTextFileSync(viewDir + "/facts/x.md", "x");
console.log(await outcome(() => dirStore.view("/memories")));
const fileStore = await open(viewFile);
Deno.writeTextFileSync(viewFile + "/y.md", "y");
console.log(await outcome(() => fileStore.view("/memories")));
const curatedStore = await open(curated);
Deno.writeTextFileSync(curated + "/MEMORY.md", "# Curated\\nalways run the linter\\n");
console.log(await outcome(() => curatedStore.cachedIndex()));`,
      [
        `--deny-read=${walkDir}/facts`,
        `--deny-read=${walkFile}/b.md`,
        `--deny-read=${viewDir}/facts`,
        `--deny-read=${viewFile}/y.md`,
        `--deny-read=${curated}/MEMORY.md`,
      ],
    );
    const named = [
      `${walkDir}/facts`,
      `${walkFile}/b.md`,
      "/memories/facts",
      "/memories/y.md",
      "/memories/MEMORY.md",
    ].map((path, i) => lines[i]?.startsWith(`error: cannot read ${path} in the memory root: `));
    assert.deepEqual(named, [true, true, true, true, true], lines.join("\n"));
    // Nothing was dropped: with the refusal gone, every file is still indexed.
    for (const [root, path] of [[walkDir, "/memories/facts/a.md"], [walkFile, "/memories/b.md"]]) {
      const s = await openMemory({ root: root!, cwd: sb.cwd, clock: sb.clock, workspace: "/w" });
      assert.deepEqual(s.search("kiwi").map((h) => h.path), [path]);
      s.close();
    }
  } finally {
    await sb.cleanup();
  }
});

Deno.test("store: a memory file the index cannot read is an error naming it, not a deleted file", async () => {
  let refuse = false;
  const hooks = {
    beforeUse(real: string) {
      // What open(2) says for a file of another user's: the walk could stat it, not read it.
      if (refuse && real.endsWith("/facts/secret.md")) {
        throw new Deno.errors.PermissionDenied(`Permission denied (os error 13): open '${real}'`);
      }
    },
  };
  const sb = await sandbox({ hooks });
  try {
    sb.store.create("/memories/facts/secret.md", "---\ncategory: preference\n---\nkiwi\n");
    // Changed outside the tool, so the next refresh re-reads it.
    Deno.writeTextFileSync(`${sb.root}/facts/secret.md`, "---\ncategory: preference\n---\nkiwis\n");
    refuse = true;
    assert.throws(
      () => sb.store.refresh(),
      /cannot read \/memories\/facts\/secret\.md in the memory root: Permission denied/,
    );
    refuse = false;
    assert.deepEqual(sb.store.list().files.map((f) => f.path), ["/memories/facts/secret.md"]);
    assert.deepEqual(sb.store.search("kiwi").map((h) => h.path), ["/memories/facts/secret.md"]);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("store: an index that could not take a change keeps failing reads until it is in step", async () => {
  const sb = await sandbox();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\napple\n");
    // Another connection makes every row insert fail (a stand-in for a full disk or a
    // broken index): the file is written, the index update is not.
    const other = new DatabaseSync(`${sb.root}/.index/recall.db`);
    other.exec(
      "CREATE TRIGGER refuse BEFORE INSERT ON files BEGIN SELECT RAISE(ABORT, 'index refuses'); END",
    );
    assert.match(
      sb.store.create("/memories/b.md", "---\ncategory: preference\n---\nbanana\n"),
      /created/i,
    );
    assert.ok(Deno.statSync(`${sb.root}/b.md`).isFile);
    // Each read tries to catch the index up and says why it cannot: the old code gave up
    // after the first try and answered from the stale index ever after.
    assert.throws(() => sb.store.list(), /index refuses/);
    assert.throws(() => sb.store.search("banana"), /index refuses/);
    other.exec("DROP TRIGGER refuse");
    other.close();
    assert.deepEqual(sb.store.search("banana").map((h) => h.path), ["/memories/b.md"]);
  } finally {
    await sb.cleanup();
  }
});
