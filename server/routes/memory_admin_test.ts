// The memory pane's writes: change a file's category or workspace and delete a file, each
// through the memory store's guard, CSRF-checked and audited; titles come from the file's
// own `title:` or first heading, never raw markdown.

import assert from "node:assert/strict";
import { join } from "node:path";
import { jsonOf, makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";

async function seed(t: TestOutpost) {
  const memory = await t.deps.memory();
  // What the agent writes with no category under preferences/: episodic by rule 2.
  memory.create("/memories/preferences/style.md", "- Prefer **small** `commits`\n");
  memory.create(
    "/memories/facts/db.md",
    "---\ncategory: project-fact\ntitle: Database notes\n---\n# ignored heading\n",
  );
  return memory;
}

Deno.test("PUT /api/memory/file changes category and workspace through the guarded store, audited", async () => {
  await using t = await makeTestOutpost();
  const memory = await seed(t);
  assert.equal(memory.readBody("/memories/preferences/style.md").category, "episodic");
  const res = await t.request("PUT", "/api/memory/file", {
    path: "/memories/preferences/style.md",
    category: "preference",
    workspace: "/repo/app",
  });
  assert.equal(res.status, 200);
  const body = await jsonOf(res);
  assert.deepEqual(body.file.changes, [
    "category episodic → preference",
    "workspace global → /repo/app",
  ]);
  const after = memory.readBody("/memories/preferences/style.md");
  assert.equal(after.category, "preference");
  assert.equal(after.workspace, "/repo/app");
  assert.equal(after.body, "- Prefer **small** `commits`\n", "the body is kept byte for byte");
  const file = memory.list().files.find((f) => f.path === "/memories/preferences/style.md")!;
  assert.equal(file.category, "preference", "the index follows");
  const [row] = t.store.listAudit({ action: "memory_reclassify" });
  assert.equal(row!.target, "preferences/style.md");
  assert.match(row!.detail, /category episodic → preference/);
});

Deno.test("memory writes refuse a missing CSRF token, bad values, folders and paths out of the root", async () => {
  await using t = await makeTestOutpost();
  await seed(t);
  const raw = await t.app.request("/api/memory/file", {
    method: "PUT",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ path: "/memories/preferences/style.md", category: "preference" }),
  });
  assert.equal(raw.status, 403);
  const noCsrfDelete = await t.app.request("/api/memory/file?path=/memories/facts/db.md", {
    method: "DELETE",
  });
  assert.equal(noCsrfDelete.status, 403);
  const bad = await t.request("PUT", "/api/memory/file", {
    path: "/memories/facts/db.md",
    category: "forever",
  });
  assert.equal(bad.status, 400);
  assert.match((await jsonOf(bad)).error.message, /Unknown category "forever"/);
  const escape = await t.request("PUT", "/api/memory/file", {
    path: "/memories/../x.md",
    category: "preference",
  });
  assert.equal(escape.status, 400);
  const folder = await t.request("DELETE", "/api/memory/file?path=/memories/facts");
  assert.equal(folder.status, 400);
  assert.equal((await t.request("DELETE", "/api/memory/file?path=/memories/nope.md")).status, 404);
  assert.deepEqual(t.store.listAudit({ action: "memory_reclassify" }), []);
  assert.deepEqual(t.store.listAudit({ action: "memory_delete" }), []);
});

Deno.test("PUT /api/memory/file refuses the curated MEMORY.md: 400, the file unchanged, no audit row", async () => {
  await using t = await makeTestOutpost();
  const memory = await seed(t);
  // Written by the tool as given (never categorized); a root MEMORY.md is the curated index.
  memory.create("/memories/MEMORY.md", "# Index\n- preferences/style.md: commit style\n");
  const file = join(t.memoryRoot, "MEMORY.md");
  const before = await Deno.readFile(file);
  for (const change of [{ category: "preference" }, { workspace: "/repo/app" }]) {
    const res = await t.request("PUT", "/api/memory/file", {
      path: "/memories/MEMORY.md",
      ...change,
    });
    assert.equal(res.status, 400, JSON.stringify(change));
    assert.match((await jsonOf(res)).error.message, /MEMORY\.md is the curated index/);
  }
  assert.deepEqual(await Deno.readFile(file), before, "the file is unchanged byte for byte");
  assert.deepEqual(t.store.listAudit({ action: "memory_reclassify" }), []);
});

Deno.test("DELETE /api/memory/file deletes one file through the store and audits it", async () => {
  await using t = await makeTestOutpost();
  const memory = await seed(t);
  const res = await t.request("DELETE", "/api/memory/file?path=/memories/facts/db.md");
  assert.equal(res.status, 200);
  await assert.rejects(Deno.stat(join(t.memoryRoot, "facts/db.md")), Deno.errors.NotFound);
  assert.ok(!memory.list().files.some((f) => f.path === "/memories/facts/db.md"));
  const [row] = t.store.listAudit({ action: "memory_delete" });
  assert.equal(row!.target, "facts/db.md");
});

Deno.test("memory titles come from title: frontmatter or the first heading, never raw markdown", async () => {
  await using t = await makeTestOutpost();
  const memory = await seed(t);
  const titles = Object.fromEntries(memory.list().files.map((f) => [f.path, f.title]));
  assert.equal(titles["/memories/facts/db.md"], "Database notes");
  assert.equal(titles["/memories/preferences/style.md"], "Prefer small commits");
  const html = await (await t.app.request("/")).text();
  assert.match(html, /<span>Database notes<\/span>/);
  assert.doesNotMatch(html, /\*\*small\*\*/);
});
