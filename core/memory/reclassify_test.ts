// reclassify.ts on its own (through MemoryStore.reclassify, against a real memory root): only
// the category and workspace header lines change, every other byte stays; a file without
// frontmatter gets a block; the curated index, folders, missing files, paths out of the root
// and bad values are refused without touching anything; the recall index follows.

import assert from "node:assert/strict";
import { MemoryCommandError, MemoryNotFoundError, MemoryPathError } from "./errors.ts";
import { sandbox } from "../../tests/fixtures/memory/sandbox.ts";

Deno.test("reclassify: changes only the category and workspace lines, byte for byte elsewhere", async () => {
  const sb = await sandbox();
  try {
    const path = `${sb.root}/facts/build.md`;
    Deno.mkdirSync(`${sb.root}/facts`);
    const header = "---\ntitle: Build notes\ncategory: episodic\nOwner :  ops \n---\n";
    const body = "# Build\n\n  Run `deno task ok`.\n---\ntrailing: not header\n";
    Deno.writeTextFileSync(path, header + body);

    const done = sb.store.reclassify("/memories/facts/build.md", {
      category: "project-fact",
      workspace: "  /home/me/repo ",
    });
    assert.deepEqual(done, {
      path: "/memories/facts/build.md",
      category: "project-fact",
      workspace: "/home/me/repo",
      changes: ["category episodic → project-fact", "workspace global → /home/me/repo"],
    });
    assert.equal(
      Deno.readTextFileSync(path),
      "---\ntitle: Build notes\ncategory: project-fact\nOwner :  ops \nworkspace: /home/me/repo\n" +
        "---\n" + body,
      "the category line is replaced in place, the workspace line appended, the rest kept",
    );
    // The recall index follows: search reports the new category.
    const [hit] = sb.store.search("deno task");
    assert.equal(hit?.path, "/memories/facts/build.md");
    assert.equal(hit?.category, "project-fact");

    // Setting what is already there changes nothing and writes nothing.
    const before = Deno.statSync(path).mtime?.getTime();
    const same = sb.store.reclassify("/memories/facts/build.md", { category: "project-fact" });
    assert.deepEqual(same.changes, []);
    assert.equal(Deno.statSync(path).mtime?.getTime(), before);

    // "global" is a workspace value like any other: it replaces the line.
    const global = sb.store.reclassify("/memories/facts/build.md", { workspace: "global" });
    assert.deepEqual(global.changes, ["workspace /home/me/repo → global"]);
    assert.match(Deno.readTextFileSync(path), /\nworkspace: global\n---\n/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("reclassify: a file without frontmatter gets a block with only the lines set", async () => {
  const sb = await sandbox();
  try {
    const path = `${sb.root}/note.md`;
    Deno.writeTextFileSync(path, "- Prefer **small** commits\n");
    assert.equal(sb.store.readBody("/memories/note.md").legacy, true);

    const done = sb.store.reclassify("/memories/note.md", { category: "preference" });
    assert.equal(done.category, "preference");
    assert.equal(done.workspace, null);
    assert.equal(
      Deno.readTextFileSync(path),
      "---\ncategory: preference\n---\n- Prefer **small** commits\n",
    );
    const b = sb.store.readBody("/memories/note.md");
    assert.equal(b.legacy, false);
    assert.equal(b.category, "preference");
    assert.equal(b.body, "- Prefer **small** commits\n");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("reclassify: refuses the curated index, folders, missing files, escapes and bad values, changing nothing", async () => {
  const sb = await sandbox();
  try {
    Deno.writeTextFileSync(`${sb.root}/MEMORY.md`, "# Index\n- facts/build.md\n");
    Deno.mkdirSync(`${sb.root}/facts`);
    Deno.writeTextFileSync(`${sb.root}/facts/a.md`, "---\ncategory: episodic\n---\nA\n");
    const tree = () =>
      [...Deno.readDirSync(sb.root)].map((e) => e.name).sort().join(",") +
      Deno.readTextFileSync(`${sb.root}/MEMORY.md`) +
      Deno.readTextFileSync(`${sb.root}/facts/a.md`);
    const outside = sb.snapshotOutside();
    const untouched = tree();

    assert.throws(
      () => sb.store.reclassify("/memories/MEMORY.md", { category: "preference" }),
      (e) => e instanceof MemoryCommandError && /curated index/.test(e.message),
    );
    assert.throws(
      () => sb.store.reclassify("/memories/facts", { category: "preference" }),
      (e) => e instanceof MemoryNotFoundError && /is a directory/.test(e.message),
    );
    assert.throws(
      () => sb.store.reclassify("/memories", { category: "preference" }),
      MemoryNotFoundError,
    );
    assert.throws(
      () => sb.store.reclassify("/memories/facts/nope.md", { category: "preference" }),
      MemoryNotFoundError,
    );
    assert.throws(
      () => sb.store.reclassify("/memories/../outside/secret.txt", { category: "preference" }),
      MemoryPathError,
    );
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /Give a category, a workspace or both/],
      [{ category: "forever" }, /Unknown category "forever"/],
      [{ workspace: "  " }, /non-empty key/],
      [{ workspace: "a\nb" }, /on one line/],
      [{ workspace: "x".repeat(513) }, /at most 512 characters/],
    ];
    for (const [input, why] of bad) {
      assert.throws(
        () => sb.store.reclassify("/memories/facts/a.md", input),
        (e) => e instanceof MemoryCommandError && why.test(e.message),
        JSON.stringify(input).slice(0, 40),
      );
    }
    assert.equal(tree(), untouched);
    assert.equal(sb.snapshotOutside(), outside);
  } finally {
    await sb.cleanup();
  }
});
