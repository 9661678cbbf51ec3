// Start-up timing marks for profiling a run: with AGENT_TIMING=1 each mark is a
// `performance.mark`, and `agent` prints them on exit (cli/main.ts) for
// `scripts/bench_processes.ts --marks`. Otherwise a mark costs one boolean test and stores
// nothing, so long interactive sessions and the outpost never accumulate entries.

const enabled = Deno.env.get("AGENT_TIMING") === "1";

export function timingMark(name: string): void {
  if (enabled) performance.mark(name);
}
