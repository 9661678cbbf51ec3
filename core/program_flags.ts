// The one place the programs' Deno permission flags live. scripts/compile.ts bakes them
// into the binaries, deno.json's `agent` and `outpost` tasks use them (a test checks the two
// agree), the outpost starts its `agent` children with them under `deno run`
// (server/commands/serve.ts), and the confinement tests run the entry points with exactly these
// flags. It lives in core/ because product code reads it; scripts/permissions.ts re-exports it
// for the scripts, tests and docs that name it there.

/** The terminal agent: reads and edits the workspace, runs shell tools, talks to a model. */
export const AGENT_PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys=hostname,osRelease,uid,gid,homedir",
  "--deny-ffi",
  "--no-prompt",
];

/** The dashboard service: serves HTTP, stores jobs, spawns agent children. */
export const OUTPOST_PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  "--allow-net",
  "--allow-env",
  "--allow-run",
  "--allow-sys=hostname,osRelease,uid,gid,homedir,loadavg,systemMemoryInfo",
  "--deny-ffi",
  "--no-prompt",
];

/**
 * V8 flags of the agent. A headless turn allocates a few MB of short-lived objects; in V8's
 * default 1 MB young generation that took two scavenges (~2.6 ms, seen with --trace-gc), the
 * first promoting nearly everything it found. With a 2 MB minimum semi-space a turn runs
 * without one: measured 0.96–0.97x the turn's time, peak RSS 47 MiB against 49
 * (scripts/bench_processes.ts).
 */
export const AGENT_ENGINE_FLAGS: readonly string[] = ["--v8-flags=--min-semi-space-size=2"];

/**
 * V8 flags of the outpost, a long-running server: the young generation stays at its starting
 * 1 MB instead of growing under request load. Measured with scripts/bench_outpost_rss.ts and
 * bench_outpost_http.ts: RSS after 1,000 requests 77.9 MiB against 82.2 with the Matrix bot
 * and push running (72.1 against 76.5 without the bot), idle 1–1.5 MiB less, and GET /api/jobs
 * as fast (p99 1.7–2.6x a bare handler, against 2.2–2.8x).
 */
export const OUTPOST_ENGINE_FLAGS: readonly string[] = ["--v8-flags=--max-semi-space-size=1"];

/**
 * Run flags every `deno run` of the programs gets (tasks, the outpost's dev-mode children,
 * tests, benchmarks). `--cached-only` because Deno 2.9.6 re-fetches the registry document of
 * some npm packages (the scoped ones reached by a dynamic import, such as @inquirer/prompts)
 * on every run even with a warm cache and a lockfile: each run then waited on the network and
 * printed `Download …` lines into the program's stderr. The cache is filled once by
 * `deno task install` (and by `deno task test`); after that nothing talks to a registry.
 */
export const RUN_FLAGS: readonly string[] = ["--cached-only"];

/**
 * Environment every `deno run` of the programs gets. Deno's background upgrade check looks up
 * dl.deno.land from every long-running `deno run` (the outpost, its children): the one network
 * contact left after --cached-only, found by tests/e2e/offline_test.ts under strace.
 */
export const RUN_ENV: Readonly<Record<string, string>> = { DENO_NO_UPDATE_CHECK: "1" };

/**
 * Each program's entry point. Modules a program needs only sometimes are reached through
 * string-literal dynamic imports, which deno.json's `lazy-dynamic-imports` loads when they run
 * rather than at start (see cli/main.ts); `deno cache`, `deno compile` and `deno bundle` still
 * see them, so the entry point alone names everything a program can load.
 */
export const ENTRY_POINTS = {
  agent: { entry: "cli/main.ts", permissions: AGENT_PERMISSIONS, engine: AGENT_ENGINE_FLAGS },
  "agent-outpost": {
    entry: "server/main.ts",
    permissions: OUTPOST_PERMISSIONS,
    engine: OUTPOST_ENGINE_FLAGS,
  },
} as const;

/** Every module the module cache must hold for the programs to run with --cached-only. */
export function cachedModules(root: string): string[] {
  return Object.values(ENTRY_POINTS).map((p) => `${root}/${p.entry}`);
}

export type ProgramName = keyof typeof ENTRY_POINTS;

/** A program's own flags, the same however it starts: its V8 flags, then its permissions. */
export function programFlags(program: ProgramName): string[] {
  const { engine, permissions } = ENTRY_POINTS[program];
  return [...engine, ...permissions];
}

/** The `deno run` command line for a program, as the tests and the outpost's dev mode use it. */
export function denoRunArgs(program: ProgramName, root: string): string[] {
  return ["run", ...RUN_FLAGS, ...programFlags(program), `${root}/${ENTRY_POINTS[program].entry}`];
}
