// Sandbox start-up per shell call: the shell tool's own spawn path (core/tools/shell.ts
// runShell) running `sh -c true` unsandboxed (sandbox = "off") and inside bubblewrap, in
// alternation in this one script, so both see the same machine load. Reports the medians, the
// ratio and the milliseconds the sandbox adds per call (target: under 10 ms).
//   deno run -A scripts/bench_sandbox.ts [--runs 200]

import { parseArgs } from "node:util";
import { processEnv } from "../core/ports.ts";
import { openSandbox, type SandboxMode } from "../core/sandbox/sandbox.ts";
import { runShell } from "../core/tools/shell.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "200" } },
});
const RUNS = Number(values.runs);

const workdir = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench-sandbox-" }));
const home = Deno.env.get("HOME") ?? "/root";

function sandbox(mode: SandboxMode) {
  return openSandbox({
    mode,
    network: false,
    passEnv: [],
    workdir,
    // What a real run hides: the agent home and the real HOME (their masks are part of the cost).
    hidden: [`${home}/.agent`, home],
    readOnly: [],
    env: processEnv,
    settingsPath: `${home}/.agent/settings.toml`,
    places: { agentHome: `${home}/.agent`, userHome: home },
  });
}

const off = sandbox("off");
const boxed = sandbox("auto");
const refusal = await boxed.check();
if (refusal !== null) {
  console.error(refusal);
  Deno.exit(1);
}

async function once(mode: "off" | "bubblewrap"): Promise<number> {
  const sb = mode === "off" ? off : boxed;
  const start = performance.now();
  const wrapped = await sb.wrap({ argv: ["sh", "-c", "true"], cwd: workdir });
  const result = await runShell(wrapped, 60_000, new AbortController().signal);
  const elapsed = performance.now() - start;
  if (result.code !== 0) throw new Error(`${mode}: exit ${result.code}: ${result.output}`);
  return elapsed;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

for (let i = 0; i < 10; i++) await once(i % 2 ? "off" : "bubblewrap"); // warm-up
const times = { off: [] as number[], bubblewrap: [] as number[] };
for (let i = 0; i < RUNS; i++) {
  times.off.push(await once("off"));
  times.bubblewrap.push(await once("bubblewrap"));
}
await Deno.remove(workdir, { recursive: true });

const mOff = median(times.off);
const mBox = median(times.bubblewrap);
console.log(`shell call, sh -c true, ${RUNS} runs each (median):`);
console.log(`  unsandboxed  ${mOff.toFixed(2)} ms`);
console.log(`  bubblewrap   ${mBox.toFixed(2)} ms`);
console.log(`  ratio        ${(mBox / mOff).toFixed(2)}x`);
console.log(`  added        ${(mBox - mOff).toFixed(2)} ms per call (target < 10 ms)`);
