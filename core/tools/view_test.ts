import assert from "node:assert/strict";
import { viewTool } from "./view.ts";
import { ToolInputError } from "./text_edit.ts";
import { WorkspacePathError } from "./workspace_path.ts";
import { tempWorkspace } from "../../tests/fakes/test_workspace.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";

Deno.test("view shows a file with 1-based line numbers", async () => {
  await using ws = await tempWorkspace({ "a.txt": "one\ntwo\nthree\n" });
  const out = await ws.run(viewTool, { path: "a.txt" });
  assert.equal(out.content, "1\tone\n2\ttwo\n3\tthree");
  assert.equal(out.is_error, false);
});

Deno.test("view pads line numbers to the widest one shown", async () => {
  const text = Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join("\n");
  await using ws = await tempWorkspace({ "long.txt": text });
  const lines = (await ws.run(viewTool, { path: "long.txt" })).content.split("\n");
  assert.equal(lines.length, 12);
  assert.equal(lines[0], " 1\tline 1");
  assert.equal(lines[11], "12\tline 12");
});

Deno.test("view_range pages through a file", async () => {
  await using ws = await tempWorkspace({ "a.txt": "l1\nl2\nl3\nl4\nl5\n" });
  assert.equal(
    (await ws.run(viewTool, { path: "a.txt", view_range: [2, 3] })).content,
    "2\tl2\n3\tl3",
  );
  assert.equal(
    (await ws.run(viewTool, { path: "a.txt", view_range: [4, -1] })).content,
    "4\tl4\n5\tl5",
  );
  // An end past the last line stops at the last line.
  assert.equal((await ws.run(viewTool, { path: "a.txt", view_range: [5, 99] })).content, "5\tl5");
});

Deno.test("a bad view_range is a clear error", async () => {
  await using ws = await tempWorkspace({ "a.txt": "l1\nl2\n" });
  for (const range of [[3, 2], [0, 1], [1.5, 2]]) {
    await assert.rejects(
      ws.run(viewTool, { path: "a.txt", view_range: range }),
      (err: unknown) =>
        err instanceof ToolInputError && /view_range must be \[start, end\]/.test(err.message),
    );
  }
  await assert.rejects(
    ws.run(viewTool, { path: "a.txt", view_range: [3, -1] }),
    /view_range starts at line 3 but the file has 2 lines/,
  );
});

Deno.test("view lists a directory two levels deep, skipping hidden entries and node_modules", async () => {
  await using ws = await tempWorkspace({
    "b.txt": "",
    "a/one.txt": "",
    "a/deep/two.txt": "",
    "a/deep/deeper/three.txt": "",
    ".hidden/secret.txt": "",
    ".env": "",
    "node_modules/pkg/index.js": "",
  });
  const out = await ws.run(viewTool, { path: "." });
  assert.equal(out.content, [".\/", "  a/", "    deep/", "    one.txt", "  b.txt"].join("\n"));
  const sub = await ws.run(viewTool, { path: "a" });
  assert.equal(
    sub.content,
    ["a/", "  deep/", "    deeper/", "    two.txt", "  one.txt"].join("\n"),
  );
});

Deno.test("a directory listing is cut at 400 entries with a note", async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 450; i++) files[`f${String(i).padStart(3, "0")}.txt`] = "";
  await using ws = await tempWorkspace(files);
  const lines = (await ws.run(viewTool, { path: "." })).content.split("\n");
  assert.equal(lines.length, 401);
  assert.equal(lines[1], "  f000.txt");
  assert.equal(lines[400], "… (listing cut at 400 entries)");
});

Deno.test("view of a missing path says so", async () => {
  await using ws = await tempWorkspace();
  await assert.rejects(
    ws.run(viewTool, { path: "nope/missing.txt" }),
    (err: unknown) =>
      err instanceof ToolInputError &&
      err.message === "no such file or directory: nope/missing.txt",
  );
});

Deno.test("view refuses paths outside the workspace and symlinks leading out", async () => {
  await using ws = await tempWorkspace();
  await Deno.symlink(`${ws.outside}/sentinel.txt`, `${ws.dir}/link.txt`);
  await Deno.symlink(ws.outside, `${ws.dir}/out-dir`);
  for (const path of ["../outside/sentinel.txt", `${ws.outside}/sentinel.txt`, "/etc/passwd"]) {
    await assert.rejects(ws.run(viewTool, { path }), WorkspacePathError);
  }
  for (const path of ["link.txt", "out-dir", "out-dir/sentinel.txt"]) {
    await assert.rejects(ws.run(viewTool, { path }), /through a symlink/);
  }
  // A listing shows a symlinked directory by name but does not descend into it.
  const listing = (await ws.run(viewTool, { path: "." })).content;
  assert.equal(listing, "./\n  link.txt\n  out-dir");
  assert.ok(!listing.includes("sentinel"));
});

Deno.test("view describes a binary file instead of dumping it", async () => {
  const bin = new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff, 0xfe, 10, 0]);
  await using ws = await tempWorkspace({ "prog.bin": bin });
  const out = await ws.run(viewTool, { path: "prog.bin" });
  assert.equal(
    out.content,
    "prog.bin is a binary file (11 bytes); not shown. " +
      "Use the shell tool (for example file or xxd) to inspect it.",
  );
});

Deno.test("view cuts a long file in the middle and says how much", async () => {
  const text = Array.from({ length: 5000 }, (_, i) => `row ${i + 1} ${"x".repeat(20)}`).join("\n");
  await using ws = await tempWorkspace({ "big.txt": text });
  const out = (await ws.run(viewTool, { path: "big.txt" })).content;
  assert.ok(out.length <= 40_000 + 60, `view output is ${out.length} chars`);
  assert.match(out, /\n… \[\d+ characters cut\] …\n/);
  assert.ok(out.startsWith("   1\trow 1 "));
  assert.ok(out.endsWith("5000\trow 5000 " + "x".repeat(20)));
  // A range inside the file is shown whole.
  const page = (await ws.run(viewTool, { path: "big.txt", view_range: [2500, 2502] })).content;
  assert.equal(page.split("\n").length, 3);
  assert.ok(!page.includes("characters cut"));
});

Deno.test("view refuses a file over 16 MiB without reading it", async () => {
  await using ws = await tempWorkspace();
  const file = await Deno.create(`${ws.dir}/huge.log`);
  await file.truncate(17 * 1024 * 1024); // sparse: no real bytes written
  file.close();
  await assert.rejects(
    ws.run(viewTool, { path: "huge.log" }),
    (err: unknown) =>
      err instanceof ToolInputError &&
      /huge\.log is 17825792 bytes, over the 16777216-byte view limit; use search/.test(
        err.message,
      ),
  );
});

Deno.test("view refuses a FIFO instead of blocking on it", async () => {
  await using ws = await tempWorkspace();
  const made = await new Deno.Command("mkfifo", { args: [`${ws.dir}/pipe`] }).output();
  assert.ok(made.success, "mkfifo must work on the test machine");
  await assert.rejects(
    ws.run(viewTool, { path: "pipe" }),
    /pipe is not a regular file or directory/,
  );
});

Deno.test("a file or folder Deno refuses to read is an error naming it, never 'no such file'", async () => {
  await using ws = await tempWorkspace({ "secret.txt": "secret\n", "private/p.txt": "p\n" });
  const ctx = `{ workdir: ${JSON.stringify(ws.dir)}, signal: new AbortController().signal }`;
  const lines = await runRefused(
    `const { viewTool } = await import(repo + "core/tools/view.ts");
for (const path of ["secret.txt", "private", "private/p.txt", "."]) {
  console.log(await outcome(() => viewTool.execute({ path }, ${ctx})));
}`,
    [`--deny-read=${ws.dir}/secret.txt,${ws.dir}/private`],
  );
  // The listing of "." meets the refused folder when it walks into it.
  const named = ["secret.txt", "private", "private/p.txt", "private"].map((p) => `${ws.dir}/${p}`);
  assert.equal(lines.length, named.length, lines.join("\n"));
  lines.forEach((line, i) => {
    assert.ok(line.startsWith("error: ") && line.includes(`"${named[i]}"`), line);
    assert.doesNotMatch(line, /no such file/);
  });
});
