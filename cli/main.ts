// Entry point of `agent`. Kept tiny so `--version` starts fast: Deno loads every module a
// string-literal `import("…")` names when the process starts, lazy or not, so the rest of
// the program is reached through a computed specifier (measured: `--version` 1.43x → 1.08x
// of an empty `deno run`). scripts/permissions.ts lists such modules so install, the test
// task and compile still cache and embed them.
import { VERSION } from "./version.ts";

const args = Deno.args;
if (args[0] === "--version" || args[0] === "-V") {
  console.log(`agent ${VERSION}`);
} else {
  const run: typeof import("./run.ts") = await import(new URL("./run.ts", import.meta.url).href);
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
