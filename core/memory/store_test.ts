import assert from "node:assert/strict";
import {
  MemoryNotFoundError,
  MemoryPathError,
  MemoryRootError,
  MemoryTooLargeError,
} from "./errors.ts";
import { BODY_CAP_BYTES } from "./limits.ts";
import { sandbox } from "../../tests/fixtures/memory/sandbox.ts";

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
    assert.ok(sb.store.recall("quasar").every((r) => r.workspace === "/repo"));
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
