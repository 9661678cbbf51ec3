import assert from "node:assert/strict";
import { DAY } from "./limits.ts";
import type { SweepReport } from "./sweep.ts";
import { sweepAtStartup, sweepCounts, sweepFailureLine } from "./sweep_runner.ts";
import { sandbox, touch } from "../../tests/fixtures/memory/sandbox.ts";

const empty: SweepReport = { deleted: [], stale: [], failed: [] };

Deno.test("sweepAtStartup: a sweep that throws is one warning line, never an exception", () => {
  const lines: string[] = [];
  const got = sweepAtStartup({
    sweep() {
      throw new Error("database disk image is malformed\n(code 11)");
    },
  }, (l) => lines.push(l));
  assert.equal(got, null);
  assert.deepEqual(lines, [
    "memory sweep failed: database disk image is malformed (code 11); " +
    "expired memory files stay until a later sweep",
  ]);
  // Not even a throwing warn (closed stderr) escapes.
  assert.equal(
    sweepAtStartup({
      sweep: () => {
        throw "odd";
      },
    }, () => {
      throw new Error("EPIPE");
    }),
    null,
  );
});

Deno.test("sweepAtStartup: files it could not delete are one line; a clean sweep is silent", () => {
  const lines: string[] = [];
  const failed: SweepReport = {
    deleted: ["/memories/a.md"],
    stale: [],
    failed: [
      { path: "/memories/x.md", error: "refused" },
      { path: "/memories/y.md", error: "refused" },
    ],
  };
  assert.equal(sweepAtStartup({ sweep: () => failed }, (l) => lines.push(l)), failed);
  assert.deepEqual(lines, [
    "memory sweep could not delete 2 expired files: /memories/x.md: refused (and 1 more); " +
    "move or delete them by hand",
  ]);
  lines.length = 0;
  assert.equal(sweepAtStartup({ sweep: () => empty }, (l) => lines.push(l)), empty);
  assert.deepEqual(lines, []);
  assert.equal(sweepFailureLine(empty), null);
  assert.equal(sweepCounts(failed), "deleted 1, could not delete 2, stale 0");
});

Deno.test("sweepAtStartup passes refresh:false through: planned from the index, due files re-read", async () => {
  const sb = await sandbox();
  try {
    const s = sb.store;
    s.create("/memories/old.md", "---\ncategory: session\n---\nscratch\n");
    touch(`${sb.root}/old.md`, new Date(sb.clock.now().getTime() - 2 * DAY));
    s.refresh();
    // Written behind the index's back after the last reconcile: a refresh-free sweep does not
    // know it yet (the next sweep with a refresh will), while the indexed file goes.
    Deno.writeTextFileSync(`${sb.root}/unseen.md`, "---\ncategory: session\n---\nx\n");
    touch(`${sb.root}/unseen.md`, new Date(sb.clock.now().getTime() - 2 * DAY));
    const report = sweepAtStartup(s, () => assert.fail("no warning expected"), { refresh: false });
    assert.deepEqual(report?.deleted, ["/memories/old.md"]);
    assert.ok(Deno.statSync(`${sb.root}/unseen.md`).isFile);
    assert.deepEqual(s.sweep().deleted, ["/memories/unseen.md"]);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("sweep: a file the walk finds but the guard refuses is reported failed, not thrown", async () => {
  const sb = await sandbox();
  try {
    // 16 directories deep: the index lists it, every command refuses its 17-level path.
    const dirs = Array.from({ length: 16 }, (_, i) => `d${i}`).join("/");
    Deno.mkdirSync(`${sb.root}/${dirs}`, { recursive: true });
    const deep = `${sb.root}/${dirs}/s.md`;
    Deno.writeTextFileSync(deep, "---\ncategory: session\n---\nx\n");
    touch(deep, new Date(sb.clock.now().getTime() - 2 * DAY));
    const lines: string[] = [];
    const report = sweepAtStartup(sb.store, (l) => lines.push(l));
    assert.deepEqual(report?.deleted, []);
    assert.equal(report?.failed.length, 1);
    assert.equal(lines.length, 1);
    assert.match(
      lines[0]!,
      /^memory sweep could not delete 1 expired file: \/memories\/d0\/.*\/s\.md: /,
    );
    assert.ok(Deno.statSync(deep).isFile, "left in place, nothing lost");
  } finally {
    await sb.cleanup();
  }
});
