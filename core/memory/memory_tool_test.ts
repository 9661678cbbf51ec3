import assert from "node:assert/strict";
import { MEMORY_INPUT_SCHEMA, memoryKind, memoryTool } from "./memory_tool.ts";
import type { Tool, ToolOutcome } from "../tools/types.ts";
import { BODY_CAP_BYTES } from "./limits.ts";
import { MemoryCommandError, MemoryTooLargeError } from "./errors.ts";
import { type Sandbox, sandbox, snapshotTree } from "../../tests/fixtures/memory/sandbox.ts";

const ctx = () => ({ workdir: "/w", signal: new AbortController().signal });

async function call(
  tool: Tool,
  input: Record<string, unknown>,
): Promise<ToolOutcome & { type: "result" }> {
  const out = await tool.execute(input, ctx());
  assert.equal(out.type, "result");
  return out as ToolOutcome & { type: "result" };
}

function rootFiles(sb: Sandbox): string {
  return snapshotTree(sb.root).split("\n").filter((l) => !l.includes("/.index")).join("\n");
}

Deno.test("memory tool: shape compatible with the Messages API memory tool", () => {
  const tool = memoryTool({ execute: () => "" });
  assert.equal(tool.name, "memory");
  assert.match(tool.description, /str_replace/);
  assert.match(tool.description, /category/);
  const props = Object.keys(MEMORY_INPUT_SCHEMA.properties).sort();
  assert.deepEqual(props, [
    "command",
    "file_text",
    "insert_line",
    "insert_text",
    "new_path",
    "new_str",
    "old_path",
    "old_str",
    "path",
    "view_range",
  ]);
  assert.deepEqual(MEMORY_INPUT_SCHEMA.properties.command.enum, [
    "view",
    "create",
    "str_replace",
    "insert",
    "delete",
    "rename",
  ]);
  assert.equal(typeof tool.kind, "function");
  assert.equal(memoryKind({ command: "view" }), "read");
  for (const c of ["create", "str_replace", "insert", "delete", "rename", "bogus", undefined]) {
    assert.equal(memoryKind({ command: c }), "edit", String(c));
  }
  assert.equal(
    tool.summarize?.({ command: "rename", old_path: "/memories/a", new_path: "/memories/b" }),
    "memory rename /memories/a → /memories/b",
  );
  assert.equal(tool.summarize?.({ command: "view", path: "/memories" }), "memory view /memories");
});

Deno.test("memory tool: the six commands end to end", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  const tool = sb.store.tool();
  try {
    let r = await call(tool, {
      command: "create",
      path: "/memories/preferences/editor.md",
      file_text: "---\ncategory: preference\n---\n# Editor\nvim\n",
    });
    assert.equal(r.is_error, undefined);
    assert.equal(
      r.content,
      "File created successfully at: /memories/preferences/editor.md (category preference, global).",
    );

    r = await call(tool, {
      command: "create",
      path: "/memories/facts/build.md",
      file_text: "# Build\nmake\n",
    });
    assert.match(
      r.content,
      /category episodic, workspace \/repo\)\. Frontmatter: no category given/,
    );
    assert.equal(
      Deno.readTextFileSync(`${sb.root}/facts/build.md`),
      "---\ncategory: episodic\nworkspace: /repo\n---\n# Build\nmake\n",
    );

    r = await call(tool, { command: "view", path: "/memories/facts/build.md" });
    assert.equal(
      r.content,
      "Here's the content of /memories/facts/build.md with line numbers:\n" +
        "     1\t---\n     2\tcategory: episodic\n     3\tworkspace: /repo\n     4\t---\n" +
        "     5\t# Build\n     6\tmake",
    );
    r = await call(tool, {
      command: "view",
      path: "/memories/facts/build.md",
      view_range: [5, -1],
    });
    assert.equal(r.content.split("\n").slice(1).join("\n"), "     5\t# Build\n     6\tmake");

    r = await call(tool, {
      command: "str_replace",
      path: "/memories/facts/build.md",
      old_str: "make",
      new_str: "make -j8",
    });
    assert.match(r.content, /has been edited/);
    assert.match(r.content, /6\tmake -j8/);

    r = await call(tool, {
      command: "insert",
      path: "/memories/facts/build.md",
      insert_line: 6,
      insert_text: "then make test",
    });
    assert.match(r.content, /Text inserted at line 6/);
    assert.equal(
      Deno.readTextFileSync(`${sb.root}/facts/build.md`),
      "---\ncategory: episodic\nworkspace: /repo\n---\n# Build\nmake -j8\nthen make test\n",
    );

    r = await call(tool, {
      command: "rename",
      old_path: "/memories/facts/build.md",
      new_path: "/memories/facts/ci/build.md",
    });
    assert.equal(
      r.content,
      "Successfully renamed /memories/facts/build.md to /memories/facts/ci/build.md.",
    );

    Deno.writeTextFileSync(`${sb.root}/.hidden-by-hand`, "x");
    r = await call(tool, { command: "view", path: "/memories" });
    assert.equal(
      r.content,
      [
        "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:",
        "dir\t/memories",
        "dir\t/memories/facts/",
        "dir\t/memories/facts/ci/",
        "dir\t/memories/preferences/",
        "42\t/memories/preferences/editor.md",
      ].join("\n"),
      "two levels: facts/ci/build.md is deeper and not listed",
    );
    r = await call(tool, { command: "view", path: "/memories/facts" });
    assert.match(r.content, /\/memories\/facts\/ci\/build\.md/);

    r = await call(tool, { command: "delete", path: "/memories/facts" });
    assert.equal(r.content, "Successfully deleted /memories/facts and everything in it.");
    assert.throws(() => Deno.statSync(`${sb.root}/facts`), Deno.errors.NotFound);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("memory tool: bad input gives a clear error and loses nothing", async () => {
  const sb = await sandbox();
  const tool = sb.store.tool();
  try {
    sb.store.create("/memories/a.md", "---\ncategory: preference\n---\none\ntwo\ntwo\n");
    sb.store.create("/memories/b.md", "---\ncategory: preference\n---\nbee\n");
    Deno.mkdirSync(`${sb.root}/dir`);
    const before = rootFiles(sb);
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ command: "explode", path: "/memories/a.md" }, /Unknown command "explode"/],
      [{}, /Unknown command undefined/],
      [{ command: "view" }, /refused \(type\)/],
      [{ command: "view", path: "/memories/none.md" }, /does not exist/],
      [{ command: "view", path: "/memories/a.md", view_range: [0, 2] }, /Invalid view_range/],
      [{ command: "view", path: "/memories/a.md", view_range: [3, 1] }, /end is before start/],
      [{ command: "view", path: "/memories/a.md", view_range: [99, -1] }, /start is out of range/],
      [{ command: "view", path: "/memories/a.md", view_range: "1-2" }, /two integers/],
      [{ command: "view", path: "/memories/a.md", view_range: [1.5, 2] }, /two integers/],
      [{ command: "view", path: "/memories", view_range: [1, 2] }, /files, not directories/],
      [{ command: "create", path: "/memories/c.md" }, /needs `file_text`/],
      [{ command: "create", path: "/memories/dir", file_text: "x" }, /is a directory/],
      [{ command: "create", path: "/memories/a.md/x.md", file_text: "x" }, /a parent is a file/],
      [
        { command: "str_replace", path: "/memories/a.md", old_str: "zzz", new_str: "y" },
        /did not appear verbatim/,
      ],
      [
        { command: "str_replace", path: "/memories/a.md", old_str: "two", new_str: "y" },
        /occurs 2 times .*lines 5, 6/,
      ],
      [
        { command: "str_replace", path: "/memories/a.md", old_str: "", new_str: "y" },
        /must not be empty/,
      ],
      [{ command: "str_replace", path: "/memories/a.md", old_str: "one" }, /needs `new_str`/],
      [
        { command: "str_replace", path: "/memories/none.md", old_str: "a", new_str: "b" },
        /does not exist/,
      ],
      [
        { command: "insert", path: "/memories/a.md", insert_line: 99, insert_text: "x" },
        /Invalid insert_line 99.*\[0, 6\]/,
      ],
      [
        { command: "insert", path: "/memories/a.md", insert_line: -1, insert_text: "x" },
        /Invalid insert_line/,
      ],
      [
        { command: "insert", path: "/memories/a.md", insert_line: "2", insert_text: "x" },
        /Invalid insert_line "2"/,
      ],
      [{ command: "insert", path: "/memories/a.md", insert_line: 1 }, /needs `insert_text`/],
      [{ command: "delete", path: "/memories/none.md" }, /does not exist/],
      [
        { command: "rename", old_path: "/memories/a.md", new_path: "/memories/b.md" },
        /already exists/,
      ],
      [
        { command: "rename", old_path: "/memories/dir", new_path: "/memories/dir/sub" },
        /into itself/,
      ],
      [
        { command: "rename", old_path: "/memories/none.md", new_path: "/memories/z.md" },
        /does not exist/,
      ],
      [
        { command: "rename", path: "/memories/a.md", new_path: "/memories/z.md" },
        /refused \(type\)/,
      ],
    ];
    for (const [input, pattern] of cases) {
      const r = await call(tool, input);
      assert.equal(r.is_error, true, JSON.stringify(input));
      assert.match(r.content, /^Error: /);
      assert.match(r.content, pattern, JSON.stringify(input));
    }
    assert.equal(rootFiles(sb), before, "no file changed");
    assert.equal(sb.store.search("bee")[0]?.path, "/memories/b.md");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("memory tool: bodies over 64 KB are never returned whole", async () => {
  const sb = await sandbox();
  const tool = sb.store.tool();
  try {
    const big = Array.from({ length: 4000 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n") +
      "\n";
    assert.ok(big.length > BODY_CAP_BYTES);
    Deno.writeTextFileSync(`${sb.root}/big.md`, big);
    sb.store.refresh();
    let r = await call(tool, { command: "view", path: "/memories/big.md" });
    assert.ok(new TextEncoder().encode(r.content).length <= BODY_CAP_BYTES + 1024);
    const stop = /output stopped after line (\d+) of 4000.*view_range \[(\d+), 4000\]/.exec(
      r.content,
    );
    assert.ok(stop, r.content.slice(-300));
    r = await call(tool, { command: "view", path: "/memories/big.md", view_range: [3990, -1] });
    assert.match(r.content, / {2}4000\tline 3999 x+$/);
    assert.doesNotMatch(r.content, /output stopped/);

    assert.throws(() => sb.store.readBody("/memories/big.md"), MemoryTooLargeError);
    r = await call(tool, {
      command: "str_replace",
      path: "/memories/big.md",
      old_str: "line 1 ",
      new_str: "L1 ",
    });
    assert.match(r.content, /over the 65536-byte memory cap; str_replace cannot edit it/);
    r = await call(tool, { command: "create", path: "/memories/new.md", file_text: big });
    assert.match(r.content, /create was not applied; split the content/);
    assert.throws(() => Deno.statSync(`${sb.root}/new.md`), Deno.errors.NotFound);

    sb.store.create("/memories/small.md", "---\ncategory: preference\n---\nsmall\n");
    r = await call(tool, {
      command: "insert",
      path: "/memories/small.md",
      insert_line: 0,
      insert_text: big,
    });
    assert.match(r.content, /insert was not applied/);
    assert.equal(sb.store.readBody("/memories/small.md").body, "small\n", "unchanged");
    // The full big file is still intact on disk.
    assert.equal(Deno.readTextFileSync(`${sb.root}/big.md`), big);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("memory tool: an aborted call does nothing", async () => {
  const sb = await sandbox();
  try {
    const ac = new AbortController();
    ac.abort();
    const out = await sb.store.tool().execute(
      { command: "create", path: "/memories/x.md", file_text: "x" },
      { workdir: "/w", signal: ac.signal },
    );
    assert.equal(out.type === "result" && out.is_error, true);
    assert.throws(() => Deno.statSync(`${sb.root}/x.md`), Deno.errors.NotFound);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("memory tool: store methods throw typed errors for programmatic callers", async () => {
  const sb = await sandbox();
  try {
    assert.throws(() => sb.store.execute({ command: "nope" }), MemoryCommandError);
    assert.throws(() => sb.store.insert("/memories/x.md", 0, "x"), MemoryCommandError);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("memory tool: insert keeps line structure", async () => {
  const sb = await sandbox();
  const s = sb.store;
  try {
    s.create("/memories/l.md", "---\ncategory: preference\n---\na\nb");
    s.insert("/memories/l.md", 0, "top\n");
    s.insert("/memories/l.md", 6, "end");
    s.insert("/memories/l.md", 5, "x\ny");
    assert.equal(
      Deno.readTextFileSync(`${sb.root}/l.md`),
      "top\n---\ncategory: preference\n---\na\nx\ny\nb\nend",
    );
  } finally {
    await sb.cleanup();
  }
});

Deno.test("memory tool: create names the category applied, and how to fix a defaulted one", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  const tool = sb.store.tool();
  try {
    let r = await call(tool, {
      command: "create",
      path: "/memories/preferences/tabs.md",
      file_text: "# Tabs\nIndent with tabs.\n",
    });
    assert.match(r.content, /\(category episodic, workspace \/repo\)/);
    assert.match(r.content, /deleted after about 6 weeks/);
    assert.match(r.content, /`category: preference`/);
    r = await call(tool, {
      command: "create",
      path: "/memories/facts/ports.md",
      file_text: "---\ncategory: fact\n---\n# Ports\n8443\n",
    });
    assert.match(r.content, /unknown category "fact": set to episodic/);
    assert.match(r.content, /`category: project-fact`/);
    // An explicit category needs no advice.
    r = await call(tool, {
      command: "create",
      path: "/memories/facts/db.md",
      file_text: "---\ncategory: project-fact\n---\n# DB\n",
    });
    assert.doesNotMatch(r.content, /6 weeks|category: /);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("memory tool: the curated MEMORY.md is written as given, never categorized or stamped", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  const tool = sb.store.tool();
  try {
    const text = "# Memory index\n- preferences/ how I work\n";
    const r = await call(tool, { command: "create", path: "/memories/MEMORY.md", file_text: text });
    assert.equal(Deno.readTextFileSync(`${sb.root}/MEMORY.md`), text);
    assert.match(r.content, /curated index/);
    assert.doesNotMatch(r.content, /episodic|workspace \/repo/);
    assert.equal(sb.store.list().files[0]?.workspace, null);
  } finally {
    await sb.cleanup();
  }
});
