import assert from "node:assert/strict";
import { insertTool } from "./insert.ts";
import { ToolInputError } from "./text_edit.ts";
import { WorkspacePathError } from "./workspace_path.ts";
import { leftoverTempFiles, SENTINEL, tempWorkspace } from "../../tests/fakes/test_workspace.ts";

const ABC = "a\nb\nc\n";

Deno.test("insert at line 0 puts text at the top", async () => {
  await using ws = await tempWorkspace({ "f.txt": ABC });
  const out = await ws.run(insertTool, { path: "f.txt", insert_line: 0, insert_text: "top" });
  assert.deepEqual(out, { content: "Inserted into f.txt", is_error: false });
  assert.equal(await ws.read("f.txt"), "top\na\nb\nc\n");
});

Deno.test("insert in the middle goes after the given line", async () => {
  await using ws = await tempWorkspace({ "f.txt": ABC });
  await ws.run(insertTool, { path: "f.txt", insert_line: 2, insert_text: "x1\nx2" });
  assert.equal(await ws.read("f.txt"), "a\nb\nx1\nx2\nc\n");
  // A trailing newline on the inserted text does not add a blank line.
  await ws.run(insertTool, { path: "f.txt", insert_line: 1, insert_text: "y\n" });
  assert.equal(await ws.read("f.txt"), "a\ny\nb\nx1\nx2\nc\n");
  assert.deepEqual(await leftoverTempFiles(ws.dir), []);
});

Deno.test("insert after the last line appends, keeping the file's final newline (or lack)", async () => {
  await using ws = await tempWorkspace({ "nl.txt": ABC, "no-nl.txt": "a\nb" });
  await ws.run(insertTool, { path: "nl.txt", insert_line: 3, insert_text: "end" });
  assert.equal(await ws.read("nl.txt"), "a\nb\nc\nend\n");
  await ws.run(insertTool, { path: "no-nl.txt", insert_line: 2, insert_text: "end" });
  assert.equal(await ws.read("no-nl.txt"), "a\nb\nend");
});

Deno.test("insert accepts a line number sent as a numeric string", async () => {
  await using ws = await tempWorkspace({ "f.txt": ABC });
  await ws.run(insertTool, { path: "f.txt", insert_line: "1", insert_text: "s" });
  assert.equal(await ws.read("f.txt"), "a\ns\nb\nc\n");
});

Deno.test("insert into an empty file", async () => {
  await using ws = await tempWorkspace({ "empty.txt": "" });
  await ws.run(insertTool, { path: "empty.txt", insert_line: 0, insert_text: "first" });
  assert.equal(await ws.read("empty.txt"), "first\n");
});

Deno.test("insert_line out of range is a clear error and the file stays byte-identical", async () => {
  await using ws = await tempWorkspace({ "f.txt": ABC });
  const before = await ws.bytes("f.txt");
  for (const [line, shown] of [[4, "4"], [-1, "-1"], [1.5, "1.5"], ["9", "9"]] as const) {
    await assert.rejects(
      ws.run(insertTool, { path: "f.txt", insert_line: line, insert_text: "x" }),
      (err: unknown) =>
        err instanceof ToolInputError &&
        err.message === `insert_line must be an integer from 0 to 3; got ${shown}`,
    );
  }
  // Missing or non-numeric lines must not silently mean the top of the file.
  for (
    const [line, shown] of [[undefined, "nothing"], [null, "null"], ["", '""'], [true, "true"]]
  ) {
    await assert.rejects(
      ws.run(insertTool, { path: "f.txt", insert_line: line, insert_text: "x" }),
      (err: unknown) =>
        err instanceof ToolInputError &&
        err.message ===
          `insert_line must be an integer line number (0 = top of the file); got ${shown}`,
    );
  }
  assert.deepEqual(await ws.bytes("f.txt"), before);
  assert.deepEqual(await leftoverTempFiles(ws.dir), []);
});

Deno.test("insert refuses a missing file, non-string text and non-UTF-8 content", async () => {
  const latin1 = new Uint8Array([0x6e, 0x61, 0xef, 0x76, 0x65, 0x0a]);
  await using ws = await tempWorkspace({ "f.txt": ABC, "latin1.txt": latin1 });
  await assert.rejects(
    ws.run(insertTool, { path: "nope.txt", insert_line: 0, insert_text: "x" }),
    /no such file: nope\.txt \(use create for new files\)/,
  );
  await assert.rejects(
    ws.run(insertTool, { path: "f.txt", insert_line: 0, insert_text: 7 }),
    /insert_text must be a string/,
  );
  await assert.rejects(
    ws.run(insertTool, { path: "latin1.txt", insert_line: 0, insert_text: "x" }),
    /not UTF-8 text/,
  );
  assert.equal(await ws.read("f.txt"), ABC);
  assert.deepEqual(await ws.bytes("latin1.txt"), latin1);
});

Deno.test("insert keeps the file's permission bits", async () => {
  await using ws = await tempWorkspace({ "tool.sh": "#!/bin/sh\n" });
  await Deno.chmod(`${ws.dir}/tool.sh`, 0o700);
  await ws.run(insertTool, { path: "tool.sh", insert_line: 1, insert_text: "echo hi" });
  assert.equal(await ws.read("tool.sh"), "#!/bin/sh\necho hi\n");
  assert.equal((await Deno.stat(`${ws.dir}/tool.sh`)).mode! & 0o777, 0o700);
});

Deno.test("insert never edits files outside the workspace", async () => {
  await using ws = await tempWorkspace();
  await Deno.symlink(`${ws.outside}/sentinel.txt`, `${ws.dir}/link.txt`);
  for (const path of ["../outside/sentinel.txt", `${ws.outside}/sentinel.txt`, "link.txt"]) {
    await assert.rejects(
      ws.run(insertTool, { path, insert_line: 0, insert_text: "PWNED" }),
      WorkspacePathError,
    );
  }
  assert.equal(await Deno.readTextFile(`${ws.outside}/sentinel.txt`), SENTINEL);
});
