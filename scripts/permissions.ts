// The one place the programs' Deno permission flags live. scripts/compile.ts bakes them
// into the binaries, deno.json's `agent` and `outpost` tasks use them (a test checks the two
// agree), and the confinement tests run the entry points with exactly these flags.

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
 * Each program's entry point, and the modules it reaches only through a computed
 * `import(specifier)` (see cli/main.ts for why). Deno's cache and `deno compile` cannot see
 * those imports, so install, the test task and compile name them here.
 */
export const ENTRY_POINTS = {
  agent: {
    entry: "cli/main.ts",
    lazy: [
      "cli/run.ts",
      "cli/interactive.ts",
      "cli/terminal/markdown.ts",
      "cli/adoption.ts",
      "cli/mcp_command.ts",
      // The MCP SDK: loaded only when MCP servers are configured (core/mcp/manager.ts).
      "core/mcp/connection.ts",
      "core/mcp/transport_stdio.ts",
      "core/mcp/transport_http.ts",
      // @cfworker/json-schema: only when a tool's structured result is first checked.
      "core/mcp/output_schema.ts",
      // The MCP manager and launcher: only for runs with mcp_servers (cli/setup.ts).
      "core/mcp/manager.ts",
      "core/mcp/launch.ts",
      // Only for `agent config` and `agent sessions` (cli/run.ts).
      "cli/config_main.ts",
      "cli/sessions.ts",
      // Only for --resume, --output, and a reflection pass that runs (cli/headless.ts).
      "cli/resume_workdir.ts",
      "core/agent/resume.ts",
      "core/agent/report.ts",
      "core/memory/reflection.ts",
      // jsdiff: only for an edit's diff, shown when strict mode asks (core/tools/diff_preview.ts).
      "core/tools/file_change.ts",
    ],
    permissions: AGENT_PERMISSIONS,
  },
  "agent-outpost": {
    entry: "server/main.ts",
    // The Matrix transport (matrix-js-sdk), loaded only when all four MX_* variables are set.
    lazy: ["core/messenger/matrix_sdk_transport.ts"],
    permissions: OUTPOST_PERMISSIONS,
  },
} as const;

/** Every module the module cache must hold for the programs to run with --cached-only. */
export function cachedModules(root: string): string[] {
  return Object.values(ENTRY_POINTS).flatMap((p) =>
    [p.entry, ...p.lazy].map((path) => `${root}/${path}`)
  );
}

export type ProgramName = keyof typeof ENTRY_POINTS;

/** The `deno run` command line for a program, as the tests and the outpost's dev mode use it. */
export function denoRunArgs(program: ProgramName, root: string): string[] {
  const { entry, permissions } = ENTRY_POINTS[program];
  return ["run", ...RUN_FLAGS, ...permissions, `${root}/${entry}`];
}
