// Workspace tool costs on a generated tree of 2,000 source files (made once in a temp dir).
// What matters: path confinement is per call (should stay well under 0.1 ms), a grep over a
// mid-sized repository stays interactive, and capturing a flood of shell output is cheap.

import { resolveInWorkspace } from "./workspace_path.ts";
import { searchTool } from "./search.ts";
import { strReplaceTool } from "./str_replace.ts";
import { viewTool } from "./view.ts";
import { makeShellTool } from "./shell.ts";
import { testSandbox } from "../../tests/fakes/test_workspace.ts";
import { OutputCapture } from "./output_capture.ts";

const DIRS = 40;
const FILES_PER_DIR = 50;

const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "tools_bench_" }));
for (let d = 0; d < DIRS; d++) {
  Deno.mkdirSync(`${dir}/src/mod${d}`, { recursive: true });
  for (let f = 0; f < FILES_PER_DIR; f++) {
    const lines = Array.from(
      { length: 120 },
      (_, i) => `export const value_${d}_${f}_${i} = compute(${i}, "mod${d}");`,
    );
    if (f === 7) lines.push("// NEEDLE: the one line a grep looks for");
    Deno.writeTextFileSync(`${dir}/src/mod${d}/file${f}.ts`, lines.join("\n") + "\n");
  }
}
Deno.writeTextFileSync(`${dir}/edit.ts`, "const answer = 41;\n" + "x\n".repeat(2000));
const ctx = { workdir: dir, signal: new AbortController().signal };

globalThis.addEventListener("unload", () => {
  Deno.removeSync(dir, { recursive: true });
});

Deno.bench("tools: resolveInWorkspace, existing nested file", () => {
  resolveInWorkspace(dir, "src/mod3/file4.ts");
});

Deno.bench("tools: resolveInWorkspace, new file in a new directory", () => {
  resolveInWorkspace(dir, "src/mod3/new/deeper/file.ts");
});

Deno.bench("tools: view a 120-line file", async () => {
  await viewTool.execute({ path: "src/mod3/file4.ts" }, ctx);
});

let flip = false;
Deno.bench("tools: str_replace in a 2,000-line file (read, replace, atomic write)", async () => {
  const [from, to] = flip ? ["answer = 42", "answer = 41"] : ["answer = 41", "answer = 42"];
  flip = !flip;
  await strReplaceTool.execute({ path: "edit.ts", old_str: from, new_str: to }, ctx);
});

Deno.bench("tools: search grep over 2,000 files (240k lines)", { n: 20, warmup: 2 }, async () => {
  await searchTool.execute({ pattern: "NEEDLE" }, ctx);
});

Deno.bench("tools: search glob listing over 2,000 files", { n: 20, warmup: 2 }, async () => {
  await searchTool.execute({ glob: "src/**/file7.ts" }, ctx);
});

// Sandboxed with bubblewrap (scripts/bench_sandbox.ts compares it with a bare `sh -c true`).
const shellTool = makeShellTool(testSandbox(dir));
Deno.bench("tools: shell round trip (`true`)", { n: 50, warmup: 5 }, async () => {
  await shellTool.execute({ command: "true" }, ctx);
});

const chunk = new TextEncoder().encode("log line with some text in it\n".repeat(2200)); // ~64 KiB
Deno.bench("tools: capture 16 MiB of command output (256 chunks of 64 KiB)", () => {
  const capture = new OutputCapture(30_000);
  for (let i = 0; i < 256; i++) capture.push("stdout", chunk);
  capture.text();
});
