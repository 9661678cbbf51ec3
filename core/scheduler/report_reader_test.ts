// The guarded report reader on real files: what a hostile run can leave in place of its
// report (symlinks, FIFOs, folders, paths outside the runs folder) is refused without ever
// blocking, and an oversize report is cut or refused as asked.

import assert from "node:assert/strict";
import { join } from "node:path";
import { cutNote, readReport, runsRoot } from "./report_reader.ts";
import { runRefused } from "../../tests/fixtures/refused.ts";
import { OUTPOST_PERMISSIONS } from "../../scripts/permissions.ts";
import {
  fifoWithWriter,
  replaceWithSymlink,
  SECRET,
  secretFile,
} from "../../tests/fakes/hostile_report.ts";

async function tempHome(): Promise<AsyncDisposable & { home: string; dir: string }> {
  const home = await Deno.makeTempDir({ prefix: "report_reader_" });
  const dir = join(runsRoot(home), "7");
  await Deno.mkdir(dir, { recursive: true });
  return {
    home,
    dir,
    async [Symbol.asyncDispose]() {
      await Deno.remove(home, { recursive: true });
    },
  };
}

const MAX = 1024;

Deno.test("readReport returns a regular report under the runs folder", async () => {
  await using t = await tempHome();
  const path = join(t.dir, "20260302T090000Z.md");
  await Deno.writeTextFile(path, "# Done\n\nall good\n");
  const read = await readReport({ home: t.home, path, maxBytes: MAX });
  assert.deepEqual(read, {
    kind: "text",
    text: "# Done\n\nall good\n",
    size: 17,
    cut: false,
    path,
  });
});

Deno.test("readReport: no recorded path and a missing file are absent", async () => {
  await using t = await tempHome();
  assert.equal((await readReport({ home: t.home, path: null, maxBytes: MAX })).kind, "absent");
  const gone = join(t.dir, "gone.md");
  assert.equal((await readReport({ home: t.home, path: gone, maxBytes: MAX })).kind, "absent");
  const noFolder = join(runsRoot(t.home), "99", "x.md");
  assert.equal((await readReport({ home: t.home, path: noFolder, maxBytes: MAX })).kind, "absent");
});

Deno.test("readReport refuses a symlink to a file outside the runs folder", async () => {
  await using t = await tempHome();
  const path = join(t.dir, "r.md");
  await replaceWithSymlink(path, await secretFile(t.home));
  const read = await readReport({ home: t.home, path, maxBytes: MAX });
  assert.deepEqual(read, { kind: "refused", why: "the report file is a symlink" });
  // Even a symlink to another report inside the runs folder is refused.
  const other = join(t.dir, "other.md");
  await Deno.writeTextFile(other, "other");
  await replaceWithSymlink(path, other);
  assert.equal((await readReport({ home: t.home, path, maxBytes: MAX })).kind, "refused");
  // /etc/passwd, the classic.
  await replaceWithSymlink(path, "/etc/passwd");
  assert.equal((await readReport({ home: t.home, path, maxBytes: MAX })).kind, "refused");
});

Deno.test("readReport refuses a FIFO and a symlink to one without opening it", async () => {
  await using t = await tempHome();
  await using fifo = await fifoWithWriter(join(t.dir, "fifo.md"));
  const direct = await readReport({ home: t.home, path: fifo.path, maxBytes: MAX });
  assert.deepEqual(direct, { kind: "refused", why: "the report is not a regular file" });
  const link = join(t.dir, "r.md");
  await replaceWithSymlink(link, fifo.path);
  const viaLink = await readReport({ home: t.home, path: link, maxBytes: MAX });
  assert.deepEqual(viaLink, { kind: "refused", why: "the report file is a symlink" });
});

Deno.test("readReport refuses a folder and a symlink to one", async () => {
  await using t = await tempHome();
  const folder = join(t.dir, "folder.md");
  await Deno.mkdir(folder);
  const read = await readReport({ home: t.home, path: folder, maxBytes: MAX });
  assert.deepEqual(read, { kind: "refused", why: "the report is not a regular file" });
  const link = join(t.dir, "r.md");
  await replaceWithSymlink(link, "/etc");
  assert.equal((await readReport({ home: t.home, path: link, maxBytes: MAX })).kind, "refused");
});

Deno.test("readReport refuses a report whose job folder is a symlink out of the runs folder", async () => {
  await using t = await tempHome();
  const outside = join(t.home, "elsewhere");
  await Deno.mkdir(outside);
  await Deno.writeTextFile(join(outside, "r.md"), SECRET);
  await Deno.remove(t.dir, { recursive: true });
  await Deno.symlink(outside, t.dir);
  const read = await readReport({ home: t.home, path: join(t.dir, "r.md"), maxBytes: MAX });
  assert.deepEqual(read, { kind: "refused", why: "a folder on the report's path is a symlink" });
});

Deno.test("readReport refuses a path outside the runs folder, however it is spelled", async () => {
  await using t = await tempHome();
  const secret = await secretFile(t.home);
  for (
    const path of [
      secret,
      join(t.dir, "..", "..", "..", "secret.md"),
      `${t.dir}/../../../secret.md`,
      join(t.dir, "notes.txt"),
      runsRoot(t.home),
    ]
  ) {
    const read = await readReport({ home: t.home, path, maxBytes: MAX });
    assert.equal(read.kind, "refused", path);
  }
});

Deno.test("readReport cuts an oversize report at maxBytes (whole characters), or refuses it", async () => {
  await using t = await tempHome();
  const path = join(t.dir, "big.md");
  // 3-byte characters: a cut at 1024 bytes lands inside one.
  await Deno.writeTextFile(path, "€".repeat(1000));
  const read = await readReport({ home: t.home, path, maxBytes: MAX });
  assert.ok(read.kind === "text");
  assert.equal(read.cut, true);
  assert.equal(read.size, 3000);
  assert.equal(read.text, "€".repeat(341));
  assert.equal(
    cutNote(read, MAX),
    `The report is 3000 bytes; only the first 1024 are shown. ` +
      `The whole file is on the outpost host at ${path}.`,
  );
  const refused = await readReport({ home: t.home, path, maxBytes: MAX, oversize: "refuse" });
  assert.deepEqual(refused, { kind: "too_large", size: 3000, path });
});

Deno.test("readReport throws a refused permission instead of calling the report absent", async () => {
  // Root reads a 000 file, so the outpost's own flags plus a --deny-read make the refusal.
  await using t = await tempHome();
  const path = join(t.dir, "locked.md");
  await Deno.writeTextFile(path, "locked");
  const [line] = await runRefused(
    `const { readReport } = await import(repo + "core/scheduler/report_reader.ts");
console.log(await outcome(() => readReport({ home: ${JSON.stringify(t.home)}, path: ${
      JSON.stringify(path)
    }, maxBytes: 1024 })));`,
    [`--deny-read=${path}`],
    OUTPOST_PERMISSIONS,
  );
  assert.match(line!, /^error: .*(NotCapable|Requires read access)/);
});
