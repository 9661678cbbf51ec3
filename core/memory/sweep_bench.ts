// The `agent` start-up sweep on a typical small memory root (40 files), the cost a one-turn
// `agent -p` pays: openMemory alone against openMemory plus the sweep, with nothing due (the
// usual start) and with one file due (re-created each iteration, so every sweep deletes one).

import { openMemory } from "./store.ts";
import { systemClock } from "../ports.ts";

const base = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "sweep_bench_" }));
const root = `${base}/mem`;
Deno.mkdirSync(`${root}/facts`, { recursive: true });
for (let i = 0; i < 40; i++) {
  const category = ["project-fact", "preference", "episodic", "session"][i % 4];
  Deno.writeTextFileSync(
    `${root}/facts/m${i}.md`,
    `---\ncategory: ${category}\n---\n# Note ${i}\nSome remembered text number ${i}.\n`,
  );
}
const old = new Date(Date.now() - 3 * 24 * 3600 * 1000);
const dueFile = () => {
  Deno.writeTextFileSync(`${root}/due.md`, "---\ncategory: session\n---\nscratch\n");
  Deno.utimeSync(`${root}/due.md`, old, old);
};
// Build the index once so each iteration opens an existing index, as a real start-up does.
(await openMemory({ root, cwd: base, clock: systemClock, workspace: "/w" })).close();

globalThis.addEventListener("unload", () => Deno.removeSync(base, { recursive: true }));

const open = () => openMemory({ root, cwd: base, clock: systemClock, workspace: "/w" });

Deno.bench("sweep: openMemory alone (40 files)", { group: "startup", baseline: true }, async () => {
  (await open()).close();
});

Deno.bench("sweep: openMemory + start-up sweep, nothing due", { group: "startup" }, async () => {
  const s = await open();
  if (s.sweep({ refresh: false }).deleted.length !== 0) throw new Error("nothing is due");
  s.close();
});

// Once a day at most in real use: the due file is indexed by openMemory, then deleted.
Deno.bench("sweep: openMemory + start-up sweep, 1 file due", { group: "due" }, async () => {
  dueFile();
  const s = await open();
  if (s.sweep({ refresh: false }).deleted.length !== 1) throw new Error("expected one deletion");
  s.close();
});
