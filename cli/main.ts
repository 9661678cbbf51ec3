// Entry point of `agent`. Kept tiny so `--version` starts fast: the rest of the program is a
// dynamic import. By default Deno loads every module a string-literal `import("…")` names when
// the process starts; deno.json's `lazy-dynamic-imports` makes it load them when the import
// runs (measured: `--version` 1.43x → 1.08x of an empty `deno run`). The same dynamic imports
// are where the bundle the launcher runs splits into chunks (scripts/bundle.ts).
import { VERSION } from "./version.ts";

const args = Deno.args;
if (args[0] === "--version" || args[0] === "-V") {
  console.log(`agent ${VERSION}`);
} else {
  const run = await import("./run.ts");
  const code = await run.main(args);
  if (Deno.env.get("AGENT_TIMING") === "1") printTimingMarks();
  Deno.exit(code);
}

/**
 * AGENT_TIMING=1: one stderr line with the `performance.mark` marks the run set (ms since the
 * runtime's time origin, which is epoch ms `origin`), for scripts/bench_processes.ts --marks.
 */
function printTimingMarks(): void {
  const marks = performance.getEntriesByType("mark").map((m) => [m.name, m.startTime]);
  marks.push(["exit", performance.now()]);
  console.error(`agent-timing ${JSON.stringify({ origin: performance.timeOrigin, marks })}`);
}
