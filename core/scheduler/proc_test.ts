// The process table the outpost's startup recovery trusts: identities of live processes, a
// missing pid as null, a table it cannot read as a thrown error (never as "gone"), and all of
// it under the outpost's own permission flags, where Deno refuses direct /proc reads.

import assert from "node:assert/strict";
import { OUTPOST_PERMISSIONS, RUN_ENV, RUN_FLAGS } from "../../scripts/permissions.ts";
import { linuxProcessTable, parseProcStat, ProcessTableError } from "./proc.ts";

Deno.test("parseProcStat reads state and start time even when comm has spaces and parens", () => {
  const fields = Array.from({ length: 50 }, (_, i) => String(i));
  fields[0] = "S"; // state (field 3)
  fields[19] = "987654"; // starttime (field 22)
  const stat = `4242 (my (odd) prog) ${fields.join(" ")}`;
  assert.deepEqual(parseProcStat(stat), { state: "S", starttime: "987654" });
  assert.equal(parseProcStat("garbage"), null);
});

Deno.test("linuxProcessTable: a live process has a stable identity; a missing pid has none", () => {
  const table = linuxProcessTable();
  const mine = table.identity(Deno.pid);
  assert.ok(mine && /^[0-9a-f-]+:\d+$/.test(mine), String(mine));
  assert.equal(table.identity(Deno.pid), mine);
  assert.equal(table.identity(0), null);
  assert.equal(table.identity(-1), null);
  assert.equal(table.identity(2 ** 22 + 12345), null);
  table.probe();
});

async function scriptedProc(): Promise<string> {
  const root = await Deno.makeTempDir();
  await Deno.mkdir(`${root}/sys/kernel/random`, { recursive: true });
  await Deno.writeTextFile(`${root}/sys/kernel/random/boot_id`, "boot-1\n");
  const rest = (state: string) =>
    [state, ...Array.from({ length: 18 }, () => "0"), "555", "0"].join(" ");
  await Deno.mkdir(`${root}/10`);
  await Deno.writeTextFile(`${root}/10/stat`, `10 (agent) ${rest("S")}`);
  await Deno.mkdir(`${root}/11`);
  await Deno.writeTextFile(`${root}/11/stat`, `11 (agent) ${rest("Z")}`);
  return root;
}

Deno.test("linuxProcessTable reads a scripted /proc: zombies count as gone", async () => {
  const root = await scriptedProc();
  try {
    const table = linuxProcessTable(root);
    assert.equal(table.identity(10), "boot-1:555");
    assert.equal(table.identity(11), null);
    assert.equal(table.identity(12), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("linuxProcessTable: a stat it cannot read, or no boot id, is an error, not a missing process", async () => {
  const root = await scriptedProc();
  try {
    await Deno.mkdir(`${root}/12/stat`, { recursive: true }); // unreadable: a directory
    const table = linuxProcessTable(root);
    assert.throws(() => table.identity(12), ProcessTableError);
    await Deno.remove(`${root}/sys`, { recursive: true });
    assert.throws(() => table.identity(10), /cannot read the process table/);
    assert.throws(() => table.identity(99), /cannot read the process table/);
    assert.throws(() => table.probe(), ProcessTableError);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("under the outpost's own permission flags the table sees a live process and its start", async () => {
  // A child run with exactly the outpost's flags (not -A): Deno refuses it any direct /proc read.
  const dir = await Deno.makeTempDir();
  try {
    const script = `${dir}/probe.ts`;
    await Deno.writeTextFile(
      script,
      `import { linuxProcessTable } from ${
        JSON.stringify(new URL("./proc.ts", import.meta.url).href)
      };
const table = linuxProcessTable();
console.log(JSON.stringify({ mine: table.identity(Deno.pid), parent: table.identity(${Deno.pid}) }));
table.probe();
`,
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", ...RUN_FLAGS, ...OUTPOST_PERMISSIONS, script],
      env: RUN_ENV,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    const seen = JSON.parse(new TextDecoder().decode(out.stdout).split("\n")[0] || "{}");
    assert.match(String(seen.mine), /^[0-9a-f-]+:\d+$/, stderr);
    assert.equal(seen.parent, linuxProcessTable().identity(Deno.pid), "same identity as seen here");
    assert.equal(out.code, 0, stderr); // and the start-up probe passes
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
