import assert from "node:assert/strict";
import { createFileTool } from "./create_file.ts";
import { ToolInputError } from "./text_edit.ts";
import { WorkspacePathError } from "./workspace_path.ts";
import {
  leftoverTempFiles,
  SENTINEL,
  tempWorkspace,
  type TestWorkspace,
} from "../../tests/fakes/test_workspace.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";

async function assertOutsideUntouched(ws: TestWorkspace): Promise<void> {
  const names: string[] = [];
  for await (const e of Deno.readDir(ws.outside)) names.push(e.name);
  assert.deepEqual(names, ["sentinel.txt"], "nothing new may appear outside the workspace");
  assert.equal(await Deno.readTextFile(`${ws.outside}/sentinel.txt`), SENTINEL);
}

Deno.test("create writes a new file with exactly the given text", async () => {
  await using ws = await tempWorkspace();
  const text = "first line\n  indented — ünïcode\n\nno trailing newline";
  const out = await ws.run(createFileTool, { path: "new.txt", file_text: text });
  assert.deepEqual(out, { content: "Created new.txt", is_error: false });
  assert.equal(await ws.read("new.txt"), text);
  assert.deepEqual(await leftoverTempFiles(ws.dir), []);
});

Deno.test("create makes missing parent directories", async () => {
  await using ws = await tempWorkspace();
  const out = await ws.run(createFileTool, {
    path: "src/lib/deep/mod.ts",
    file_text: "export {};\n",
  });
  assert.equal(out.content, "Created src/lib/deep/mod.ts");
  assert.equal(await ws.read("src/lib/deep/mod.ts"), "export {};\n");
});

Deno.test("create may write an empty file and a file named like ..foo", async () => {
  await using ws = await tempWorkspace();
  await ws.run(createFileTool, { path: "empty.txt", file_text: "" });
  assert.equal(await ws.read("empty.txt"), "");
  const out = await ws.run(createFileTool, { path: "..foo", file_text: "dots" });
  assert.equal(out.content, "Created ..foo");
  assert.equal(await ws.read("..foo"), "dots");
  await assertOutsideUntouched(ws);
});

Deno.test("create overwrites an existing file, as documented, keeping its permissions", async () => {
  await using ws = await tempWorkspace({ "run.sh": "#!/bin/sh\necho old\n" });
  await Deno.chmod(`${ws.dir}/run.sh`, 0o750);
  const out = await ws.run(createFileTool, { path: "run.sh", file_text: "#!/bin/sh\necho new\n" });
  assert.equal(out.content, "Overwrote run.sh");
  assert.equal(await ws.read("run.sh"), "#!/bin/sh\necho new\n");
  assert.equal((await Deno.stat(`${ws.dir}/run.sh`)).mode! & 0o777, 0o750);
  assert.deepEqual(await leftoverTempFiles(ws.dir), []);
});

Deno.test("create through a symlink inside the workspace writes its target", async () => {
  await using ws = await tempWorkspace({ "real.txt": "old" });
  await Deno.symlink("real.txt", `${ws.dir}/alias.txt`);
  const out = await ws.run(createFileTool, { path: "alias.txt", file_text: "new" });
  assert.equal(out.content, "Overwrote real.txt");
  assert.equal(await ws.read("real.txt"), "new");
  assert.ok((await Deno.lstat(`${ws.dir}/alias.txt`)).isSymlink, "the link itself stays a link");
});

Deno.test("create refuses a directory path and leaves the directory alone", async () => {
  await using ws = await tempWorkspace({ "dir/keep.txt": "keep" });
  await assert.rejects(
    ws.run(createFileTool, { path: "dir", file_text: "x" }),
    (err: unknown) => err instanceof ToolInputError && err.message === "dir is a directory",
  );
  assert.equal(await ws.read("dir/keep.txt"), "keep");
  await assert.rejects(ws.run(createFileTool, { path: ".", file_text: "x" }), /is a directory/);
});

Deno.test("create refuses a file standing where a parent directory should be", async () => {
  await using ws = await tempWorkspace({ "a.txt": "a" });
  await assert.rejects(
    ws.run(createFileTool, { path: "a.txt/b.txt", file_text: "x" }),
    /a parent of the path is a file, not a directory/,
  );
  assert.equal(await ws.read("a.txt"), "a");
});

Deno.test("create refuses bad input and writes nothing", async () => {
  await using ws = await tempWorkspace();
  for (const file_text of [undefined, 42, null, ["x"]]) {
    await assert.rejects(
      ws.run(createFileTool, { path: "x.txt", file_text }),
      (err: unknown) =>
        err instanceof ToolInputError && err.message === "file_text must be a string",
    );
  }
  await assert.rejects(ws.run(createFileTool, { file_text: "x" }), WorkspacePathError);
  await assert.rejects(Deno.stat(`${ws.dir}/x.txt`), Deno.errors.NotFound);
});

Deno.test("create never writes outside the workspace", async () => {
  await using ws = await tempWorkspace();
  await Deno.symlink(ws.outside, `${ws.dir}/out-dir`);
  await Deno.symlink(`${ws.outside}/sentinel.txt`, `${ws.dir}/out-file`);
  await Deno.symlink(`${ws.outside}/planted.txt`, `${ws.dir}/dangling`);
  const attempts = [
    "../outside/sentinel.txt",
    "../outside/new.txt",
    `${ws.outside}/sentinel.txt`,
    `${ws.outside}/new.txt`,
    "out-dir/sentinel.txt",
    "out-dir/new.txt",
    "out-dir/sub/new.txt",
    "out-file",
    "dangling",
  ];
  for (const path of attempts) {
    await assert.rejects(
      ws.run(createFileTool, { path, file_text: "PWNED" }),
      WorkspacePathError,
      `create ${path} must be refused`,
    );
  }
  await assertOutsideUntouched(ws);
  await assert.rejects(Deno.stat(`${ws.base}/new.txt`), Deno.errors.NotFound);
});

Deno.test("an existing file Deno refuses is never taken for a new one: the error names it and it stays as it was", async () => {
  await using ws = await tempWorkspace({ "secret.txt": "secret\n", "locked.txt": "locked\n" });
  await Deno.chmod(`${ws.dir}/locked.txt`, 0o640);
  const at = (rel: string) => JSON.stringify(`${ws.dir}/${rel}`);
  const ctx = `{ workdir: ${JSON.stringify(ws.dir)}, signal: new AbortController().signal }`;
  const lines = await runRefused(
    `const { createFileTool } = await import(repo + "core/tools/create_file.ts");
const { existingMode } = await import(repo + "core/tools/text_file.ts");
const input = (path: string) => ({ path, file_text: "replaced\\n" });
console.log(await outcome(() => createFileTool.preview!(input("secret.txt"), ${ctx})));
console.log(await outcome(() => createFileTool.execute(input("secret.txt"), ${ctx})));
console.log(await outcome(() => existingMode(${at("secret.txt")})));
console.log(await outcome(() => existingMode(${at("locked.txt")})));
console.log(await outcome(() => existingMode(${at("missing.txt")})));
console.log(await outcome(() => createFileTool.execute(input("locked.txt"), ${ctx})));`,
    [`--deny-read=${ws.dir}/secret.txt`, `--deny-write=${ws.dir}/locked.txt`],
  );
  assert.equal(lines.length, 6, lines.join("\n"));
  // Unreadable: the preview and the write stop with the path named, never "Created" over it;
  // existingMode throws rather than answering "no such file, no mode to keep".
  for (const i of [0, 1, 2]) {
    assert.ok(lines[i]!.startsWith("error: ") && lines[i]!.includes(at("secret.txt")), lines[i]);
  }
  // Readable but not writable: its mode is known; the write is refused, naming the file.
  assert.deepEqual(lines.slice(3, 5), [`ok: ${0o640}`, "ok: undefined"]);
  assert.ok(lines[5]!.startsWith("error: ") && lines[5]!.includes(at("locked.txt")), lines[5]);
  assert.equal(await ws.read("secret.txt"), "secret\n");
  assert.equal(await ws.read("locked.txt"), "locked\n");
  assert.deepEqual(await leftoverTempFiles(ws.dir), []);
});

Deno.test("create, str_replace, insert and view refuse the project settings, with or without .agent", async () => {
  const { strReplaceTool } = await import("./str_replace.ts");
  const { insertTool } = await import("./insert.ts");
  const { viewTool } = await import("./view.ts");
  for (const existing of [false, true]) {
    await using ws = await tempWorkspace(
      existing ? { ".agent/settings.toml": 'model = "m"\n' } : {},
    );
    const calls = [
      [createFileTool, {
        path: ".agent/settings.toml",
        file_text: 'base_url = "http://evil/v1"\n',
      }],
      [strReplaceTool, { path: ".agent/settings.toml", old_str: "m", new_str: "evil" }],
      [insertTool, { path: ".agent/settings.toml", insert_line: 0, insert_text: "x = 1\n" }],
      [viewTool, { path: ".agent/settings.toml" }],
    ] as const;
    for (const [tool, input] of calls) {
      // The loop turns this error into the tool result the model reads (a tool error).
      await assert.rejects(ws.run(tool, input), (err: unknown) => {
        assert.ok(err instanceof WorkspacePathError, `${tool.name} (existing ${existing})`);
        assert.match(err.message, /path is in a \.agent folder/, tool.name);
        return true;
      });
    }
    if (existing) assert.equal(await ws.read(".agent/settings.toml"), 'model = "m"\n');
    else await assert.rejects(Deno.lstat(`${ws.dir}/.agent`), Deno.errors.NotFound);
  }
});
