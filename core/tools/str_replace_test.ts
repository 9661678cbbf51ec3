import assert from "node:assert/strict";
import { strReplaceTool } from "./str_replace.ts";
import { ToolInputError } from "./text_edit.ts";
import { WorkspacePathError } from "./workspace_path.ts";
import { leftoverTempFiles, SENTINEL, tempWorkspace } from "../../tests/fakes/test_workspace.ts";

const SOURCE =
  "function greet() {\n  return 'hello';\n}\n\nfunction part() {\n  return 'bye';\n}\n";

Deno.test("str_replace replaces the one occurrence and nothing else", async () => {
  await using ws = await tempWorkspace({ "a.ts": SOURCE });
  const out = await ws.run(strReplaceTool, {
    path: "a.ts",
    old_str: "return 'hello';",
    new_str: "return 'hi';\n  // multi-line",
  });
  assert.deepEqual(out, { content: "Edited a.ts", is_error: false });
  assert.equal(await ws.read("a.ts"), SOURCE.replace("'hello';", "'hi';\n  // multi-line"));
  assert.deepEqual(await leftoverTempFiles(ws.dir), []);
});

Deno.test("str_replace takes new_str literally and may delete text", async () => {
  await using ws = await tempWorkspace({ "a.txt": "price: X\nkeep\n" });
  await ws.run(strReplaceTool, { path: "a.txt", old_str: "X", new_str: "$& $1 $$" });
  assert.equal(await ws.read("a.txt"), "price: $& $1 $$\nkeep\n");
  await ws.run(strReplaceTool, { path: "a.txt", old_str: "price: $& $1 $$\n", new_str: "" });
  assert.equal(await ws.read("a.txt"), "keep\n");
});

Deno.test("str_replace with no match is a clear error and leaves the file byte-identical", async () => {
  await using ws = await tempWorkspace({ "a.ts": SOURCE });
  const before = await ws.bytes("a.ts");
  await assert.rejects(
    ws.run(strReplaceTool, { path: "a.ts", old_str: "return 'HELLO';", new_str: "x" }),
    (err: unknown) =>
      err instanceof ToolInputError &&
      err.message === "old_str was not found in the file; view it and copy the exact text",
  );
  assert.deepEqual(await ws.bytes("a.ts"), before);
});

Deno.test("str_replace with several matches names their lines and changes nothing", async () => {
  await using ws = await tempWorkspace({ "a.ts": SOURCE });
  const before = await ws.bytes("a.ts");
  await assert.rejects(
    ws.run(strReplaceTool, { path: "a.ts", old_str: "  return", new_str: "  yield" }),
    (err: unknown) =>
      err instanceof ToolInputError &&
      err.message ===
        "old_str occurs more than once (lines 2 and 6); include more context to make it unique",
  );
  assert.deepEqual(await ws.bytes("a.ts"), before);
  assert.deepEqual(await leftoverTempFiles(ws.dir), []);
});

Deno.test("str_replace refuses empty old_str and non-string input", async () => {
  await using ws = await tempWorkspace({ "a.txt": "abc" });
  await assert.rejects(
    ws.run(strReplaceTool, { path: "a.txt", old_str: "", new_str: "x" }),
    /old_str must not be empty/,
  );
  await assert.rejects(
    ws.run(strReplaceTool, { path: "a.txt", old_str: "a", new_str: 5 }),
    /old_str and new_str must be strings/,
  );
  await assert.rejects(
    ws.run(strReplaceTool, { path: "a.txt", new_str: "x" }),
    /old_str and new_str must be strings/,
  );
  assert.equal(await ws.read("a.txt"), "abc");
});

Deno.test("str_replace on a missing file or a directory says what to do", async () => {
  await using ws = await tempWorkspace({ "dir/x.txt": "x" });
  await assert.rejects(
    ws.run(strReplaceTool, { path: "nope.txt", old_str: "a", new_str: "b" }),
    (err: unknown) =>
      err instanceof ToolInputError &&
      err.message === "no such file: nope.txt (use create for new files)",
  );
  await assert.rejects(Deno.stat(`${ws.dir}/nope.txt`), Deno.errors.NotFound);
  await assert.rejects(
    ws.run(strReplaceTool, { path: "dir", old_str: "a", new_str: "b" }),
    /dir is a directory, not a file/,
  );
});

Deno.test("str_replace refuses a file that is not UTF-8 rather than corrupting it", async () => {
  // "café" in Latin-1: the 0xE9 byte would come back as U+FFFD if decoded leniently.
  const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a, 0x78, 0x0a]);
  await using ws = await tempWorkspace({ "latin1.txt": latin1 });
  await assert.rejects(
    ws.run(strReplaceTool, { path: "latin1.txt", old_str: "x", new_str: "y" }),
    /latin1\.txt is not UTF-8 text \(binary or another encoding\); edit it with the shell tool/,
  );
  assert.deepEqual(await ws.bytes("latin1.txt"), latin1);
});

Deno.test("str_replace keeps a byte-order mark, CRLF line ends and the executable bit", async () => {
  const original = "\ufeff#!/bin/sh\r\necho old\r\nexit 0\r\n";
  await using ws = await tempWorkspace({ "run.sh": original });
  await Deno.chmod(`${ws.dir}/run.sh`, 0o755);
  await ws.run(strReplaceTool, { path: "run.sh", old_str: "echo old", new_str: "echo new" });
  const bytes = await ws.bytes("run.sh");
  assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], "BOM kept");
  assert.equal(
    new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes),
    original.replace("old", "new"),
  );
  assert.equal((await Deno.stat(`${ws.dir}/run.sh`)).mode! & 0o777, 0o755);
});

Deno.test("str_replace never edits files outside the workspace", async () => {
  await using ws = await tempWorkspace();
  await Deno.symlink(`${ws.outside}/sentinel.txt`, `${ws.dir}/link.txt`);
  await Deno.symlink(ws.outside, `${ws.dir}/out-dir`);
  for (
    const path of [
      "../outside/sentinel.txt",
      `${ws.outside}/sentinel.txt`,
      "link.txt",
      "out-dir/sentinel.txt",
    ]
  ) {
    await assert.rejects(
      ws.run(strReplaceTool, { path, old_str: "sentinel", new_str: "PWNED" }),
      WorkspacePathError,
    );
  }
  assert.equal(await Deno.readTextFile(`${ws.outside}/sentinel.txt`), SENTINEL);
});
