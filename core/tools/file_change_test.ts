// Previews of what a call will do, as a strict-mode approver sees them, and that the edit
// then writes exactly the previewed text.

import assert from "node:assert/strict";
import { unifiedDiff } from "./file_change.ts";
import { strReplaceTool } from "./str_replace.ts";
import { insertTool } from "./insert.ts";
import { createFileTool } from "./create_file.ts";
import { makeShellTool } from "./shell.ts";
import { testSandbox } from "../../tests/fakes/test_workspace.ts";

async function workspace(): Promise<
  { dir: string; ctx: { workdir: string; signal: AbortSignal } }
> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  return { dir, ctx: { workdir: dir, signal: new AbortController().signal } };
}

Deno.test("unifiedDiff: a change with context, a new file whole, no change said so", () => {
  assert.equal(
    unifiedDiff({ shown: "a.txt", before: "1\n2\n3\n", after: "1\nTWO\n3\n" }),
    "--- a/a.txt\n+++ b/a.txt\n@@ -1,3 +1,3 @@\n 1\n-2\n+TWO\n 3",
  );
  assert.equal(
    unifiedDiff({ shown: "n.txt", before: null, after: "x\n" }),
    "--- /dev/null\n+++ b/n.txt\n@@ -1,0 +1,1 @@\n+x",
  );
  assert.match(unifiedDiff({ shown: "s", before: "a", after: "a" }), /no change to the text/);
});

Deno.test("str_replace and insert preview the diff they then apply, and refuse bad input alike", async () => {
  const { dir, ctx } = await workspace();
  await Deno.writeTextFile(`${dir}/f.txt`, "alpha\nbeta\n");
  const edit = { path: "f.txt", old_str: "beta", new_str: "gamma" };
  assert.equal(
    await strReplaceTool.preview!(edit, ctx),
    "--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma",
  );
  assert.equal(await Deno.readTextFile(`${dir}/f.txt`), "alpha\nbeta\n", "preview wrote nothing");
  await strReplaceTool.execute(edit, ctx);
  assert.equal(await Deno.readTextFile(`${dir}/f.txt`), "alpha\ngamma\n");

  const ins = { path: "f.txt", insert_line: 1, insert_text: "inserted" };
  assert.match(await insertTool.preview!(ins, ctx), /@@ -1,2 \+1,3 @@\n alpha\n\+inserted\n gamma/);
  await assert.rejects(
    strReplaceTool.preview!({ path: "f.txt", old_str: "zzz", new_str: "" }, ctx),
    /not found|no match|does not occur/i,
  );
  await assert.rejects(
    strReplaceTool.preview!({ path: "../outside", old_str: "a", new_str: "b" }, ctx),
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("create previews an overwrite as a diff and a binary target as replaced", async () => {
  const { dir, ctx } = await workspace();
  await Deno.writeTextFile(`${dir}/old.txt`, "old\n");
  assert.equal(
    await createFileTool.preview!({ path: "old.txt", file_text: "new\n" }, ctx),
    "--- a/old.txt\n+++ b/old.txt\n@@ -1,1 +1,1 @@\n-old\n+new",
  );
  await Deno.writeFile(`${dir}/blob.bin`, new Uint8Array([0xff, 0xfe, 0x00, 0x01]));
  assert.match(
    await createFileTool.preview!({ path: "blob.bin", file_text: "text\n" }, ctx),
    /blob\.bin: blob\.bin is not UTF-8 text.*it will be replaced by:\n--- \/dev\/null/s,
  );
  await Deno.remove(dir, { recursive: true });
});

Deno.test("shell previews the exact command and the directory it runs in", async () => {
  const { dir, ctx } = await workspace();
  const shell = makeShellTool(testSandbox(dir));
  assert.equal(
    await shell.preview!({ command: "make test" }, ctx),
    `$ make test\n(in ${dir}; sandbox: auto (bubblewrap, network off))`,
  );
  const off = makeShellTool(testSandbox(dir, "off"));
  assert.match(await off.preview!({ command: "make test" }, ctx), /sandbox: off \(commands run/);
  await Deno.remove(dir, { recursive: true });
});
