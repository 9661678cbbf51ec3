import assert from "node:assert/strict";
import { linuxProcessTable, parseProcStat } from "./proc.ts";

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
  assert.ok(mine && /^[0-9a-f-]*:\d+$/.test(mine), String(mine));
  assert.equal(table.identity(Deno.pid), mine);
  assert.equal(table.identity(0), null);
  assert.equal(table.identity(-1), null);
  assert.equal(table.identity(2 ** 22 + 12345), null);
});

Deno.test("linuxProcessTable reads a scripted /proc: zombies count as gone", async () => {
  const root = await Deno.makeTempDir();
  try {
    await Deno.mkdir(`${root}/sys/kernel/random`, { recursive: true });
    await Deno.writeTextFile(`${root}/sys/kernel/random/boot_id`, "boot-1\n");
    const rest = (state: string) =>
      [state, ...Array.from({ length: 18 }, () => "0"), "555", "0"].join(" ");
    await Deno.mkdir(`${root}/10`);
    await Deno.writeTextFile(`${root}/10/stat`, `10 (agent) ${rest("S")}`);
    await Deno.mkdir(`${root}/11`);
    await Deno.writeTextFile(`${root}/11/stat`, `11 (agent) ${rest("Z")}`);
    const table = linuxProcessTable(root);
    assert.equal(table.identity(10), "boot-1:555");
    assert.equal(table.identity(11), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
