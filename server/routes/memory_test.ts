import assert from "node:assert/strict";
import { jsonOf as json, makeTestOutpost } from "../../tests/fakes/test_outpost.ts";

const FACT =
  "---\ncategory: project-fact\nworkspace: /srv/alpha\n---\n# Build\nRun deno task ok before pushing.\n";
const PREF = "---\ncategory: preference\n---\n# Style\nPrefer small commits.\n";

Deno.test("GET /api/memory lists every file (all workspaces) with per-category stats and no content", async () => {
  await using t = await makeTestOutpost();
  const memory = await t.deps.memory();
  memory.create("/memories/facts/build.md", FACT);
  memory.create("/memories/preferences/style.md", PREF);
  const res = await t.app.request("/api/memory");
  assert.equal(res.status, 200);
  const body = await json(res);
  const paths = body.files.map((f: { path: string }) => f.path).sort();
  assert.deepEqual(paths, ["/memories/facts/build.md", "/memories/preferences/style.md"]);
  const build = body.files.find((f: { path: string }) => f.path.endsWith("build.md"));
  assert.equal(build.workspace, "/srv/alpha", "foreign workspaces are listed (operator view)");
  assert.equal(build.category, "project-fact");
  assert.equal(body.stats.total.files, 2);
  assert.equal(body.stats.preference.files, 1);
  assert.doesNotMatch(JSON.stringify(body), /deno task ok/);
});

Deno.test("GET /api/memory/search: top 10 hits, unfiltered, never bodies; q is required", async () => {
  await using t = await makeTestOutpost();
  const memory = await t.deps.memory();
  for (let i = 0; i < 12; i++) {
    memory.create(
      `/memories/facts/f${i}.md`,
      `---\ncategory: project-fact\nworkspace: /srv/w${i}\n---\n# Note ${i}\nThe zebra deploy runbook, step ${i}.\n`,
    );
  }
  const res = await t.app.request("/api/memory/search?q=zebra%20runbook");
  assert.equal(res.status, 200);
  const body = await json(res);
  assert.equal(body.hits.length, 10);
  for (const hit of body.hits) {
    assert.deepEqual(Object.keys(hit).sort(), ["category", "path", "snippet", "title"]);
  }
  for (const q of ["", "q=", "q=%20%20", `q=${"a".repeat(501)}`]) {
    const r = await t.app.request(`/api/memory/search?${q}`);
    assert.equal(r.status, 400, q);
    assert.equal((await json(r)).error.field, "q");
  }
});

Deno.test("GET /api/memory/search: each hit's snippet comes from its own file", async () => {
  await using t = await makeTestOutpost();
  const memory = await t.deps.memory();
  const markers = ["ALPHAWORD", "BRAVOWORD", "CHARLIEWORD", "DELTAWORD"];
  markers.forEach((marker, i) =>
    memory.create(
      `/memories/facts/m${i}.md`,
      `---\ncategory: project-fact\nworkspace: /srv/w${i}\n---\n# M${i}\nzebra ${marker} notes\n`,
    )
  );
  const res = await t.app.request("/api/memory/search?q=zebra");
  assert.equal(res.status, 200);
  const hits = (await json(res)).hits as { path: string; snippet: string }[];
  assert.equal(hits.length, markers.length);
  for (const hit of hits) {
    const i = Number(/m(\d)\.md$/.exec(hit.path)![1]);
    assert.match(hit.snippet, new RegExp(markers[i]!), hit.path);
  }
});

Deno.test("GET /api/memory/body returns the body as JSON and writes a body_read audit row", async () => {
  await using t = await makeTestOutpost();
  const memory = await t.deps.memory();
  memory.create(
    "/memories/facts/xss.md",
    "---\ncategory: project-fact\n---\n<script>alert(1)</script>\n",
  );
  const res = await t.app.request("/api/memory/body?path=/memories/facts/xss.md");
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type")!, /^application\/json/);
  assert.equal(res.headers.get("cache-control"), "no-store");
  const body = await json(res);
  assert.equal(body.path, "/memories/facts/xss.md");
  assert.equal(body.category, "project-fact");
  assert.equal(body.body.trim(), "<script>alert(1)</script>");
  const [row] = t.store.listAudit({ action: "body_read" });
  assert.equal(row!.target, "facts/xss.md");
  assert.equal(row!.actor, "dashboard");
});

Deno.test("GET /api/memory/body audits one row per reader, path and minute (reloads do not flood)", async () => {
  await using t = await makeTestOutpost({
    env: { AGENT_OUTPOST_TRUSTED_USER_HEADER: "X-Forwarded-User" },
  });
  const memory = await t.deps.memory();
  memory.create("/memories/facts/build.md", FACT);
  memory.create("/memories/preferences/style.md", PREF);
  const read = async (path: string, user = "ann", method = "GET") => {
    const res = await t.app.request(`/api/memory/body?path=${path}`, {
      method,
      headers: { "X-Forwarded-User": user },
    });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  };
  const rows = () =>
    t.store.listAudit({ action: "body_read" }).map((r) => `${r.actor} ${r.target}`).sort();
  await read("/memories/facts/build.md");
  await read("/memories/facts/build.md");
  await read("/memories/facts/build.md", "ann", "HEAD");
  assert.deepEqual(rows(), ["user:ann facts/build.md"], "two reads in one minute: one row");
  await read("/memories/preferences/style.md");
  await read("/memories/facts/build.md", "bob");
  assert.deepEqual(rows(), [
    "user:ann facts/build.md",
    "user:ann preferences/style.md",
    "user:bob facts/build.md",
  ], "another path or another reader: its own row");
  await t.clock.advance(60_000);
  await read("/memories/facts/build.md");
  assert.equal(rows().filter((r) => r === "user:ann facts/build.md").length, 2, "a minute later");
});

Deno.test("GET /api/memory/body refuses guard escapes (400), missing files (404) and oversized bodies (413)", async () => {
  await using t = await makeTestOutpost();
  const memory = await t.deps.memory();
  memory.create("/memories/facts/ok.md", FACT);
  const outside = `${t.home}/outside.txt`;
  await Deno.writeTextFile(outside, "SECRET");
  await Deno.symlink(outside, `${memory.root}/facts/link.md`);
  const refused = [
    "/memories/../outside.txt",
    "/memories/facts/..%2F..%2Foutside.txt",
    "%2Fmemories%2Ffacts%2Fok.md",
    "/memories/facts\\..\\..\\outside.txt",
    "/etc/passwd",
    "facts/ok.md",
    "/memories/.index/recall.db",
    "/memories/facts/link.md",
  ];
  for (const path of refused) {
    const res = await t.app.request(`/api/memory/body?path=${encodeURIComponent(path)}`);
    assert.equal(res.status, 400, path);
    const body = await json(res);
    assert.equal(body.error.code, "memory_path_refused");
    assert.equal(body.error.field, "path");
    assert.doesNotMatch(JSON.stringify(body), /SECRET/);
  }
  assert.equal((await t.app.request("/api/memory/body")).status, 400);
  const missing = await t.app.request("/api/memory/body?path=/memories/facts/none.md");
  assert.equal(missing.status, 404);
  await Deno.writeTextFile(`${memory.root}/facts/huge.md`, "x".repeat(64 * 1024 + 1));
  const huge = await t.app.request("/api/memory/body?path=/memories/facts/huge.md");
  assert.equal(huge.status, 413);
  assert.equal((await json(huge)).error.code, "memory_too_large");
  await Deno.writeTextFile(`${memory.root}/facts/edge.md`, "y".repeat(64 * 1024));
  assert.equal((await t.app.request("/api/memory/body?path=/memories/facts/edge.md")).status, 200);
  assert.deepEqual(t.store.listAudit({ action: "body_read" }).map((r) => r.target), [
    "facts/edge.md",
  ]);
});

Deno.test("memory routes answer 503 when the memory root cannot be opened", async () => {
  await using t = await makeTestOutpost();
  t.deps.memory = () => Promise.reject(new TypeError("memory_dir /nope is not a directory"));
  for (
    const path of ["/api/memory", "/api/memory/search?q=x", "/api/memory/body?path=/memories/a.md"]
  ) {
    const res = await t.app.request(path);
    assert.equal(res.status, 503, path);
    assert.equal((await json(res)).error.code, "memory_unavailable");
  }
});

Deno.test("files written by other processes show up in list and search after the refresh interval", async () => {
  await using t = await makeTestOutpost();
  const memory = await t.deps.memory();
  memory.create("/memories/facts/first.md", FACT);
  assert.equal((await json(await t.app.request("/api/memory"))).files.length, 1);
  // A job child writes a file directly (another process, another MemoryStore).
  await Deno.writeTextFile(
    `${memory.root}/facts/outside.md`,
    "---\ncategory: project-fact\n---\n# Quokka\nThe quokka migration is done.\n",
  );
  await t.clock.advance(5000);
  assert.equal((await json(await t.app.request("/api/memory"))).files.length, 2);
  const hits = (await json(await t.app.request("/api/memory/search?q=quokka"))).hits;
  assert.deepEqual(hits.map((h: { path: string }) => h.path), ["/memories/facts/outside.md"]);
});
