import assert from "node:assert/strict";
import { displayPath, resolveInWorkspace, WorkspacePathError } from "./workspace_path.ts";
import { tempWorkspace } from "../../tests/fakes/test_workspace.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";

function refused(workdir: string, input: unknown, reason: RegExp): void {
  assert.throws(
    () => resolveInWorkspace(workdir, input),
    (err: unknown) => {
      assert.ok(err instanceof WorkspacePathError, `expected WorkspacePathError, got ${err}`);
      assert.equal(err.name, "WorkspacePathError");
      assert.match(err.message, reason);
      return true;
    },
  );
}

Deno.test("relative and absolute paths inside the workspace resolve to canonical paths", async () => {
  await using ws = await tempWorkspace({ "a.txt": "a", "sub/b.txt": "b" });
  assert.equal(resolveInWorkspace(ws.dir, "a.txt"), `${ws.dir}/a.txt`);
  assert.equal(resolveInWorkspace(ws.dir, "sub/b.txt"), `${ws.dir}/sub/b.txt`);
  assert.equal(resolveInWorkspace(ws.dir, "./sub/../a.txt"), `${ws.dir}/a.txt`);
  assert.equal(resolveInWorkspace(ws.dir, "sub//b.txt"), `${ws.dir}/sub/b.txt`);
  assert.equal(resolveInWorkspace(ws.dir, `${ws.dir}/sub/b.txt`), `${ws.dir}/sub/b.txt`);
  assert.equal(resolveInWorkspace(ws.dir, "."), ws.dir);
  assert.equal(resolveInWorkspace(ws.dir, ws.dir), ws.dir);
  // A path that does not exist yet resolves through its nearest existing ancestor.
  assert.equal(resolveInWorkspace(ws.dir, "new/deep/c.txt"), `${ws.dir}/new/deep/c.txt`);
});

Deno.test("paths that leave the workspace lexically are refused", async () => {
  await using ws = await tempWorkspace({ "a.txt": "a" });
  for (const input of ["..", "../", "../x", "../outside/sentinel.txt", "sub/../../x", "./.."]) {
    refused(ws.dir, input, /path leaves the workspace/);
  }
  refused(ws.dir, `${ws.outside}/sentinel.txt`, /path leaves the workspace/);
  refused(ws.dir, "/etc/passwd", /path leaves the workspace/);
  refused(ws.dir, "/", /path leaves the workspace/);
  refused(ws.dir, `${ws.dir}-sibling/x`, /path leaves the workspace/);
});

Deno.test("names that merely start with dots stay inside", async () => {
  await using ws = await tempWorkspace({ "..foo": "dots", "...": "three", "..d/x.txt": "x" });
  assert.equal(resolveInWorkspace(ws.dir, "..foo"), `${ws.dir}/..foo`);
  assert.equal(resolveInWorkspace(ws.dir, "./..foo"), `${ws.dir}/..foo`);
  assert.equal(resolveInWorkspace(ws.dir, "..."), `${ws.dir}/...`);
  assert.equal(resolveInWorkspace(ws.dir, "..d/x.txt"), `${ws.dir}/..d/x.txt`);
  assert.equal(resolveInWorkspace(ws.dir, "..new-file"), `${ws.dir}/..new-file`);
  assert.equal(displayPath(ws.dir, `${ws.dir}/..foo`), "..foo");
  refused(ws.dir, "../foo", /path leaves the workspace/);
  refused(ws.dir, "../..foo", /path leaves the workspace/);
});

Deno.test("bad path inputs get a clear error", async () => {
  await using ws = await tempWorkspace();
  for (const input of ["", "   ", 42, undefined, null, ["a.txt"]]) {
    refused(ws.dir, input, /path must be a non-empty string/);
  }
  refused(ws.dir, "a\0b", /NUL byte/);
});

Deno.test("symlinks inside pointing outside are refused, file and directory", async () => {
  await using ws = await tempWorkspace();
  await Deno.symlink(`${ws.outside}/sentinel.txt`, `${ws.dir}/file-link`);
  await Deno.symlink(ws.outside, `${ws.dir}/dir-link`);
  await Deno.symlink("../outside", `${ws.dir}/relative-link`);
  const escape = /resolves \(through a symlink\) outside the workspace/;
  refused(ws.dir, "file-link", escape);
  refused(ws.dir, "dir-link", escape);
  refused(ws.dir, "dir-link/sentinel.txt", escape);
  // A symlinked parent directory also covers files that do not exist yet.
  refused(ws.dir, "dir-link/new.txt", escape);
  refused(ws.dir, "dir-link/new/deeper.txt", escape);
  refused(ws.dir, "relative-link/sentinel.txt", escape);
  refused(ws.dir, `${ws.dir}/dir-link/sentinel.txt`, escape);
});

Deno.test("a dangling symlink is refused, whatever it points at", async () => {
  await using ws = await tempWorkspace();
  await Deno.symlink(`${ws.outside}/not-there.txt`, `${ws.dir}/dangling-out`);
  await Deno.symlink(`${ws.outside}/no-dir`, `${ws.dir}/dangling-dir`);
  await Deno.symlink("missing-inside.txt", `${ws.dir}/dangling-in`);
  refused(ws.dir, "dangling-out", /dangling symlink/);
  refused(ws.dir, "dangling-dir/new.txt", /dangling symlink/);
  // Also one pointing inside: writing through it would create its target, so it is refused too.
  refused(ws.dir, "dangling-in", /dangling symlink/);
});

Deno.test("a symlink inside pointing inside is followed to its target", async () => {
  await using ws = await tempWorkspace({ "real/t.txt": "t" });
  await Deno.symlink(`${ws.dir}/real/t.txt`, `${ws.dir}/file-link`);
  await Deno.symlink("real", `${ws.dir}/dir-link`);
  assert.equal(resolveInWorkspace(ws.dir, "file-link"), `${ws.dir}/real/t.txt`);
  assert.equal(resolveInWorkspace(ws.dir, "dir-link/t.txt"), `${ws.dir}/real/t.txt`);
  assert.equal(resolveInWorkspace(ws.dir, "dir-link/new.txt"), `${ws.dir}/real/new.txt`);
});

Deno.test("a symlinked workdir is canonicalized rather than refusing everything", async () => {
  await using ws = await tempWorkspace({ "a.txt": "a" });
  const link = `${ws.base}/ws-link`;
  await Deno.symlink(ws.dir, link);
  assert.equal(resolveInWorkspace(link, "a.txt"), `${ws.dir}/a.txt`);
  assert.equal(resolveInWorkspace(link, `${link}/a.txt`), `${ws.dir}/a.txt`);
  assert.equal(resolveInWorkspace(link, `${ws.dir}/a.txt`), `${ws.dir}/a.txt`);
  assert.equal(resolveInWorkspace(link, "new.txt"), `${ws.dir}/new.txt`);
  assert.equal(displayPath(link, `${ws.dir}/a.txt`), "a.txt");
  assert.equal(displayPath(link, ws.dir), ".");
  refused(link, "../outside/sentinel.txt", /path leaves the workspace/);
  refused(link, `${ws.outside}/sentinel.txt`, /path leaves the workspace/);
  // The link's own parent is not part of the workspace.
  refused(link, `${ws.base}/ws-link-other`, /path leaves the workspace/);
});

Deno.test("a file used as a directory and a missing workdir get clear errors", async () => {
  await using ws = await tempWorkspace({ "a.txt": "a" });
  refused(ws.dir, "a.txt/child", /a parent of the path is a file, not a directory: "a.txt\/child"/);
  refused(`${ws.base}/gone`, "x.txt", /the workspace directory does not exist/);
});

Deno.test("displayPath is workspace-relative", async () => {
  await using ws = await tempWorkspace();
  assert.equal(displayPath(ws.dir, ws.dir), ".");
  assert.equal(displayPath(ws.dir, `${ws.dir}/sub/b.txt`), "sub/b.txt");
});

Deno.test("a refused lstat is an error naming the path, never 'not a symlink'", async () => {
  await using ws = await tempWorkspace({ "a.txt": "a" });
  await Deno.symlink(`${ws.base}/nowhere`, `${ws.dir}/dangling`);
  const denied = `${ws.dir}/denied-link`;
  await Deno.symlink(`${ws.base}/nowhere`, denied);
  const lines = await runRefused(
    `const { isSymlink, resolveInWorkspace } = await import(repo + "core/tools/workspace_path.ts");
console.log(await outcome(() => isSymlink(${JSON.stringify(denied)})));
console.log(await outcome(() => isSymlink(${JSON.stringify(`${ws.dir}/dangling`)})));
console.log(await outcome(() => isSymlink(${JSON.stringify(`${ws.dir}/missing`)})));
console.log(await outcome(() => resolveInWorkspace(${JSON.stringify(ws.dir)}, "denied-link")));`,
    [`--deny-read=${denied}`],
  );
  const at = JSON.stringify(denied).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  assert.match(lines[0]!, new RegExp(`^error: cannot check whether ${at} is a symlink: `));
  assert.deepEqual(lines.slice(1, 3), ["ok: true", "ok: false"]);
  // The walk meets the refusal at realpath first: an error naming the path, not a new file.
  assert.match(lines[3]!, new RegExp(`^error: .*${at.slice(1, -1)}`));
});

Deno.test("a .agent folder is refused, present or not, spelled or reached through a link", async () => {
  await using ws = await tempWorkspace({ ".agent/settings.toml": 'model = "m"\n', "src/a.ts": "" });
  for (
    const input of [
      ".agent",
      ".agent/settings.toml",
      "./.agent/../.agent/settings.toml",
      `${ws.dir}/.agent/settings.toml`,
      "src/.agent/settings.toml", // a subproject's, absent: never the model's either
    ]
  ) refused(ws.dir, input, /path is in a \.agent folder/);
  await Deno.symlink(`${ws.dir}/.agent`, `${ws.dir}/cfg`);
  refused(ws.dir, "cfg/settings.toml", /path is in a \.agent folder/);
  // Names that only look alike are ordinary files.
  assert.equal(resolveInWorkspace(ws.dir, ".agents/x"), `${ws.dir}/.agents/x`);
  assert.equal(resolveInWorkspace(ws.dir, "src/x.agent"), `${ws.dir}/src/x.agent`);
});
