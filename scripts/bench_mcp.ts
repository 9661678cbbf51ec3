// MCP figures (issue 19):
// 1. Time from start to the first model request of `agent -p` (denoRunArgs, the release
//    flags) with two stdio MCP servers configured, as a ratio to none. The servers are
//    tests/mcp/raw_server.mjs under node: they answer initialize within ~50 ms of spawn, the
//    "servers answering within 100 ms" case (target: at most 1.2x).
// 2. Per-call overhead of an MCP echo tool (server-everything over stdio, in process through
//    McpManager) against the built-in `view` tool on a small file.
//   deno run -A scripts/bench_mcp.ts [--runs 15] [--calls 200]
// server-everything comes from the test kit (tests/mcp/everything.ts; installed with npm on
// first use).

import { parseArgs } from "node:util";
import { denoRunArgs, RUN_ENV } from "./permissions.ts";
import { reply, startFakeModelServer } from "../tests/fakes/model_server.ts";
import { everythingProbe, everythingStdioToml } from "../tests/mcp/everything.ts";
import { McpManager } from "../core/mcp/manager.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import { envFrom, systemClock } from "../core/ports.ts";
import { viewTool } from "../core/tools/view.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" }, calls: { type: "string", default: "200" } },
});
const RUNS = Number(values.runs);
const CALLS = Number(values.calls);
const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const RAW_SERVER = `${ROOT}/tests/mcp/raw_server.mjs`;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function homeWith(settings: string): Promise<string> {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench-mcp-" }));
  await Deno.mkdir(`${home}/.agent`);
  await Deno.mkdir(`${home}/work`);
  await Deno.writeTextFile(`${home}/.agent/settings.toml`, settings);
  return home;
}

/** Milliseconds from spawning `agent -p` to the fake model server's first request. */
async function firstRequestMs(home: string): Promise<number> {
  const fake = await startFakeModelServer({ models: [{ id: "bench", max_model_len: 32768 }] });
  fake.enqueue(reply().text("ok"));
  const t0 = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...denoRunArgs("agent", ROOT), "-p", "--workdir", `${home}/work`, "--", "hi"],
    env: {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      AGENT_HOME: `${home}/.agent`,
      DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
      AGENT_BASE_URL: fake.url,
      AGENT_PROVIDER: "chat_completions",
      AGENT_MEMORY_REFLECT: "0",
      ...RUN_ENV,
    },
    clearEnv: true,
    stdout: "null",
    stderr: "null",
  }).spawn();
  await fake.waitForRequests(1);
  const ms = performance.now() - t0;
  await child.status;
  await fake.close();
  return ms;
}

const twoServers = ["a", "b"].map((n) =>
  `[mcp_servers.${n}]\ncommand = "node"\nargs = [${JSON.stringify(RAW_SERVER)}]\n`
).join("");
const none = await homeWith("");
const two = await homeWith(twoServers);
await firstRequestMs(none); // warm the module cache
await firstRequestMs(two);
const noneMs: number[] = [];
const twoMs: number[] = [];
for (let i = 0; i < RUNS; i++) {
  noneMs.push(await firstRequestMs(none));
  twoMs.push(await firstRequestMs(two));
}
const ratio = median(twoMs) / median(noneMs);
console.log(
  `start to first model request: no MCP ${median(noneMs).toFixed(0)} ms, two stdio servers ` +
    `${median(twoMs).toFixed(0)} ms (median of ${RUNS}): ${ratio.toFixed(2)}x (target <= 1.2x)`,
);

const missing = everythingProbe();
if (missing) {
  console.log(`per-call overhead: skipped (${missing})`);
} else {
  const home = await homeWith(everythingStdioToml());
  const env = envFrom({ PATH: Deno.env.get("PATH"), HOME: home });
  const settings = resolveSettings({ flags: {}, env, cwd: `${home}/work`, home: `${home}/.agent` });
  const manager = new McpManager(settings, {
    env,
    fetch: globalThis.fetch,
    clock: systemClock,
    workdir: `${home}/work`,
    clientVersion: "bench",
  });
  await manager.start();
  const echo = manager.tools().find((t) => t.name === "mcp__everything__echo")!;
  await Deno.writeTextFile(`${home}/work/small.txt`, "hello\n".repeat(20));
  const ctx = { workdir: `${home}/work`, signal: new AbortController().signal };
  const time = async (fn: () => Promise<unknown>) => {
    for (let i = 0; i < 20; i++) await fn(); // warm-up
    const xs: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const t0 = performance.now();
      await fn();
      xs.push(performance.now() - t0);
    }
    return median(xs);
  };
  const viewMs = await time(() => viewTool.execute({ path: "small.txt" }, ctx));
  const echoMs = await time(() => echo.execute({ message: "hello" }, ctx));
  console.log(
    `per call (median of ${CALLS}): view ${(viewMs * 1000).toFixed(0)} µs, MCP echo ` +
      `${(echoMs * 1000).toFixed(0)} µs: MCP overhead ${
        ((echoMs - viewMs) * 1000).toFixed(0)
      } µs ` +
      `(${(echoMs / viewMs).toFixed(1)}x)`,
  );
  await manager.close();
  await Deno.remove(home, { recursive: true });
}
await Deno.remove(none, { recursive: true });
await Deno.remove(two, { recursive: true });
