import assert from "node:assert/strict";
import { globToRegExp, searchTool } from "./search.ts";
import { ToolInputError } from "./text_edit.ts";
import { WorkspacePathError } from "./workspace_path.ts";
import { tempWorkspace } from "../../tests/fakes/test_workspace.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";

const TREE = {
  "README.md": "# Demo\nhello from the readme\n",
  "src/main.ts": "import { greet } from './lib/greet.ts';\nconsole.log(greet());\n",
  "src/lib/greet.ts": "export function greet() {\n  return 'Hello';\n}\n",
  "src/lib/notes.md": "no greeting here\n",
  "docs/guide.md": "say hello\nHELLO loudly\n",
  ".git/config": "hello from git\n",
  "node_modules/pkg/index.ts": "hello from a dependency\n",
  ".agent/state.json": "hello from the agent\n",
};

Deno.test("glob alone lists matching files, workspace-relative and sorted", async () => {
  await using ws = await tempWorkspace(TREE);
  const ts = await ws.run(searchTool, { glob: "**/*.ts" });
  assert.equal(ts.content, "src/lib/greet.ts\nsrc/main.ts");
  assert.equal((await ws.run(searchTool, { glob: "src/*.ts" })).content, "src/main.ts");
  // Without a slash the glob matches a file name at any depth.
  assert.equal(
    (await ws.run(searchTool, { glob: "*.md" })).content,
    "docs/guide.md\nREADME.md\nsrc/lib/notes.md",
  );
  assert.equal(
    (await ws.run(searchTool, { glob: "src/**/{greet,main}.ts" })).content,
    "src/lib/greet.ts\nsrc/main.ts",
  );
  assert.equal((await ws.run(searchTool, { glob: "*.rs" })).content, "no matches");
});

Deno.test("pattern greps file contents with file:line: text, skipping .git, node_modules, .agent", async () => {
  await using ws = await tempWorkspace(TREE);
  const out = await ws.run(searchTool, { pattern: "hello" });
  assert.equal(out.content, "docs/guide.md:1: say hello\nREADME.md:2: hello from the readme");
  assert.equal(out.is_error, false);
  const ci = await ws.run(searchTool, { pattern: "hello", case_insensitive: true });
  assert.equal(
    ci.content,
    [
      "docs/guide.md:1: say hello",
      "docs/guide.md:2: HELLO loudly",
      "README.md:2: hello from the readme",
      "src/lib/greet.ts:2:   return 'Hello';",
    ].join("\n"),
  );
  const re = await ws.run(searchTool, { pattern: "^export function \\w+\\(" });
  assert.equal(re.content, "src/lib/greet.ts:1: export function greet() {");
});

Deno.test("pattern and glob together, and path narrowing the search", async () => {
  await using ws = await tempWorkspace(TREE);
  const both = await ws.run(searchTool, { pattern: "greet", glob: "*.ts" });
  assert.equal(
    both.content,
    [
      "src/lib/greet.ts:1: export function greet() {",
      "src/main.ts:1: import { greet } from './lib/greet.ts';",
      "src/main.ts:2: console.log(greet());",
    ].join("\n"),
  );
  const lib = await ws.run(searchTool, { pattern: "greet", path: "src/lib" });
  assert.equal(
    lib.content,
    "src/lib/greet.ts:1: export function greet() {\nsrc/lib/notes.md:1: no greeting here",
  );
  // A file as path searches only that file.
  const one = await ws.run(searchTool, { pattern: "hello", path: "docs/guide.md" });
  assert.equal(one.content, "docs/guide.md:1: say hello");
});

Deno.test("search stays in the workspace and does not follow symlinks out", async () => {
  await using ws = await tempWorkspace({ "inside.txt": "sentinel inside\n" });
  await Deno.symlink(ws.outside, `${ws.dir}/out-dir`);
  await Deno.symlink(`${ws.outside}/sentinel.txt`, `${ws.dir}/out-file.txt`);
  const grep = await ws.run(searchTool, { pattern: "sentinel" });
  assert.equal(grep.content, "inside.txt:1: sentinel inside");
  const glob = await ws.run(searchTool, { glob: "**/*.txt" });
  assert.equal(glob.content, "inside.txt");
  for (const path of ["..", "../outside", ws.outside, "/etc"]) {
    await assert.rejects(ws.run(searchTool, { pattern: "x", path }), WorkspacePathError);
  }
  await assert.rejects(ws.run(searchTool, { pattern: "x", path: "out-dir" }), /through a symlink/);
});

Deno.test("search skips binary and oversized files", async () => {
  await using ws = await tempWorkspace({
    "bin.dat": new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]),
    "text.txt": "needle\n",
  });
  const big = await Deno.create(`${ws.dir}/big.log`);
  await big.write(new TextEncoder().encode("needle\n"));
  await big.truncate(2_000_001); // sparse beyond the 2 MB limit
  big.close();
  assert.equal((await ws.run(searchTool, { pattern: "needle" })).content, "text.txt:1: needle");
  // Listing by glob still names them.
  assert.equal(
    (await ws.run(searchTool, { glob: "*.{dat,log}" })).content,
    "big.log\nbin.dat",
  );
});

Deno.test("search results are capped at 200 with a note, and long lines are cut", async () => {
  const lines = Array.from({ length: 250 }, (_, i) => `match ${i + 1}`).join("\n");
  await using ws = await tempWorkspace({
    "many.txt": lines,
    "wide.txt": `match ${"w".repeat(500)}`,
  });
  const out = (await ws.run(searchTool, { pattern: "match" })).content.split("\n");
  assert.equal(out.length, 201);
  assert.equal(out[0], "many.txt:1: match 1");
  assert.equal(out[199], "many.txt:200: match 200");
  assert.equal(out[200], "… results cut at 200; narrow the pattern or glob");
  const wide = (await ws.run(searchTool, { pattern: "match", glob: "wide.txt" })).content;
  assert.equal(wide, `wide.txt:1: match ${"w".repeat(294)}`);
  const files: Record<string, string> = {};
  for (let i = 0; i < 210; i++) files[`f${String(i).padStart(3, "0")}.txt`] = "";
  await using many = await tempWorkspace(files);
  const listed = (await many.run(searchTool, { glob: "*.txt" })).content.split("\n");
  assert.equal(listed.length, 201);
  assert.equal(listed[200], "… results cut at 200; narrow the pattern or glob");
});

Deno.test("bad search input gets a clear error", async () => {
  await using ws = await tempWorkspace(TREE);
  await assert.rejects(
    ws.run(searchTool, { pattern: "(unclosed" }),
    (err: unknown) =>
      err instanceof ToolInputError &&
      err.message.startsWith("pattern is not a valid regular expression: "),
  );
  await assert.rejects(ws.run(searchTool, {}), /give a pattern, a glob, or both/);
  await assert.rejects(ws.run(searchTool, { pattern: "", glob: "" }), /give a pattern, a glob/);
  await assert.rejects(
    ws.run(searchTool, { pattern: "x", path: "no/such/dir" }),
    (err: unknown) =>
      err instanceof ToolInputError && err.message === "no such directory or file: no/such/dir",
  );
});

Deno.test("search stops walking once the run is aborted", async () => {
  await using ws = await tempWorkspace(TREE);
  const controller = new AbortController();
  controller.abort();
  const out = await searchTool.execute({ glob: "**" }, ws.ctx(controller.signal));
  assert.deepEqual(out, { type: "result", content: "no matches" });
});

Deno.test("globToRegExp: ** spans directories, * and ? stay in one segment, {a,b} alternates", () => {
  const m = (glob: string, path: string) => globToRegExp(glob).test(path);
  assert.ok(m("src/**/*.ts", "src/a.ts"));
  assert.ok(m("src/**/*.ts", "src/x/y/a.ts"));
  assert.ok(!m("src/**/*.ts", "lib/src/a.ts"));
  assert.ok(!m("src/*.ts", "src/x/a.ts"));
  assert.ok(m("*.ts", "deep/down/a.ts"));
  assert.ok(!m("*.ts", "a.tsx"));
  assert.ok(m("a?.md", "ab.md"));
  assert.ok(!m("a?.md", "a/.md"));
  assert.ok(m("*.{js,ts}", "x.js") && m("*.{js,ts}", "x.ts") && !m("*.{js,ts}", "x.rs"));
  // Regex metacharacters in a glob are literal.
  assert.ok(m("a+b(1).txt", "a+b(1).txt"));
  assert.ok(!m("a.b", "axb"));
  assert.ok(m("{unclosed", "{unclosed"));
});

Deno.test("a folder or file Deno refuses to read is an error naming it, never skipped as absent", async () => {
  await using ws = await tempWorkspace({
    "open/a.txt": "needle\n",
    "private/p.txt": "needle\n",
    "z-secret.txt": "needle\n",
  });
  const ctx = `{ workdir: ${JSON.stringify(ws.dir)}, signal: new AbortController().signal }`;
  const lines = await runRefused(
    `const { searchTool } = await import(repo + "core/tools/search.ts");
for (const input of [{ pattern: "needle", path: "private" }, { pattern: "needle", path: "z-secret.txt" }, { pattern: "needle" }, { pattern: "needle", path: "open" }]) {
  console.log(await outcome(() => searchTool.execute(input, ${ctx})));
}`,
    [`--deny-read=${ws.dir}/private,${ws.dir}/z-secret.txt`],
  );
  assert.equal(lines.length, 4, lines.join("\n"));
  // The refused search root, a refused file root, and a refused folder met on the walk: each an
  // error naming the path, never "no such directory" or a result that leaves its matches out.
  for (const [i, path] of [[0, "private"], [1, "z-secret.txt"], [2, "private"]] as const) {
    assert.ok(lines[i]!.startsWith("error: "), lines[i]);
    assert.ok(lines[i]!.includes(`"${ws.dir}/${path}"`), lines[i]);
    assert.doesNotMatch(lines[i]!, /no such/);
  }
  // What may be read is still searched.
  assert.equal(
    lines[3],
    `ok: ${JSON.stringify({ type: "result", content: "open/a.txt:1: needle" })}`,
  );
});
