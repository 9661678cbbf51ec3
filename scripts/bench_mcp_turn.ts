// The MCP start-up tax on a whole headless turn (issue 35), for scripts/bench_mcp.ts: one
// `agent -p` turn (the installed launcher, spawn to exit, the fake model answering text) with
// one stdio server (server-everything, not called) against the same turn without it,
// interleaved rounds, ratio of medians; with the sandbox on (the default) and off. Target:
// at most 1.15x. Each configuration runs once before the rounds, so the servers' tool lists
// are remembered (core/mcp/tool_list_cache.ts) as they are for a user's second run.
// Then a turn that calls one tool of the server (echo): the model asks for it, the answer goes
// back, the model answers (two model requests), for the agent and for Codex.
// When Codex CLI is installed (CODEX_BIN, or the peers' checkout at /work/peers-cc) the same
// series are measured for it in the same rounds, against an instant local Responses endpoint
// (scripts/bench_responses_server.ts), with the same server in its [mcp_servers] table.
// Figures only: no test depends on Codex.

import { reply, startFakeModelServer } from "../tests/fakes/model_server.ts";
import { everythingDir, everythingEntry, everythingProbe } from "../tests/mcp/everything.ts";
import { installedAgent } from "./bench_rounds.ts";
import { startResponsesServer } from "./bench_responses_server.ts";

const DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
const BENCH_CACHE = `${Deno.env.get("HOME")}/.cache/agent-bench`;

interface Series {
  name: string;
  run: () => Promise<number>;
  samples: number[];
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function loadavg(): string {
  return Deno.loadavg().map((x) => x.toFixed(2)).join(" ");
}

function codexBin(): string | null {
  const candidates = [Deno.env.get("CODEX_BIN"), "/work/peers-cc/node_modules/.bin/codex"];
  for (const path of candidates) {
    if (!path) continue;
    try {
      if (Deno.statSync(path).isFile) return path;
    } catch (err) {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    }
  }
  return null;
}

/** Milliseconds from spawn to exit of `program args`; throws on failure or a failed server. */
async function timed(
  program: string,
  args: string[],
  env: Record<string, string>,
  cwd: string,
): Promise<number> {
  const t0 = performance.now();
  const out = await new Deno.Command(program, {
    args,
    env,
    clearEnv: true,
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  const stderr = new TextDecoder().decode(out.stderr);
  if (!out.success) throw new Error(`${program} ${args.join(" ")} failed: ${stderr}`);
  // A server that failed to start would make the run look quick: such a figure is worthless.
  if (/MCP server \S+ failed/.test(stderr)) throw new Error(`a server failed: ${stderr}`);
  return ms;
}

export async function benchMcpTurn(root: string, runs: number): Promise<void> {
  const missing = everythingProbe();
  if (missing) return console.log(`headless turn with one MCP server: skipped (${missing})`);
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "bench-mcp-turn-" }));
  const launcher = await installedAgent(root, `${base}/bin`, DENO_DIR);
  const fake = await startFakeModelServer({ models: [{ id: "bench", max_model_len: 32768 }] });
  const server = `[mcp_servers.everything]\ncommand = "node"\nargs = [${
    JSON.stringify(everythingEntry())
  }, "stdio"]\nread_paths = [${JSON.stringify(everythingDir())}]\n`;
  const agentTurn = async (label: string, settings: string, calls = false): Promise<Series> => {
    const home = `${base}/${label}`;
    await Deno.mkdir(`${home}/.agent`, { recursive: true });
    await Deno.mkdir(`${home}/work`);
    await Deno.writeTextFile(`${home}/.agent/settings.toml`, settings);
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: home,
      AGENT_HOME: `${home}/.agent`,
      DENO_DIR,
      AGENT_BASE_URL: fake.url,
      AGENT_PROVIDER: "chat_completions",
      AGENT_MEMORY_REFLECT: "0",
    };
    const run = () => {
      if (calls) fake.enqueue(reply().tool("mcp__everything__echo", { message: "hi" }));
      fake.enqueue(reply().text("done").usage(20, 2));
      return timed(launcher, ["-p", "--workdir", `${home}/work`, "--", "say done"], env, home);
    };
    return { name: `agent -p, ${label}`, run, samples: [] };
  };
  const series: Series[] = [
    await agentTurn("no MCP", ""),
    await agentTurn("one stdio server", server),
    await agentTurn("no MCP, sandbox off", 'sandbox = "off"\n'),
    await agentTurn("one stdio server, sandbox off", `sandbox = "off"\n${server}`),
    await agentTurn("one stdio server, calls echo", server, true),
  ];
  const codex = codexBin();
  const responses = codex ? await startResponsesServer() : null;
  const calling = codex
    ? await startResponsesServer({
      name: "echo",
      namespace: "mcp__everything",
      arguments: { message: "hi" },
    })
    : null;
  if (codex && responses) {
    const codexHome = `${BENCH_CACHE}/codex-home-mcp`;
    await Deno.mkdir(codexHome, { recursive: true });
    const common = [
      "exec",
      "--skip-git-repo-check",
      "-c",
      "model_provider=bench",
      "-c",
      "model_providers.bench.name=bench",
      "-c",
      `model_providers.bench.base_url="${responses.url}"`,
      "-c",
      'model_providers.bench.wire_api="responses"',
      "-c",
      'model_providers.bench.env_key="BENCH_KEY"',
      "-m",
      "bench-model",
    ];
    const mcp = [
      "-c",
      'mcp_servers.everything.command="node"',
      "-c",
      `mcp_servers.everything.args=[${JSON.stringify(everythingEntry())}, "stdio"]`,
    ];
    const env = {
      PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      HOME: Deno.env.get("HOME") ?? base,
      CODEX_HOME: codexHome,
      BENCH_KEY: "bench",
    };
    series.push(
      {
        name: "codex exec, no MCP",
        run: () => timed(codex, [...common, "say done"], env, base),
        samples: [],
      },
      {
        name: "codex exec, one stdio server",
        run: () => timed(codex, [...common, ...mcp, "say done"], env, base),
        samples: [],
      },
      {
        name: "codex exec, one stdio server, calls echo",
        run: () =>
          timed(
            codex,
            [...common.map((a) => a.replace(responses.url, calling!.url)), ...mcp, "say done"],
            env,
            base,
          ),
        samples: [],
      },
    );
  }
  // Warm-up: module caches, and each configuration's tool list remembered.
  for (const s of series) await s.run();
  const before = loadavg();
  for (let i = 0; i < runs; i++) for (const s of series) s.samples.push(await s.run());
  console.log(
    `\nheadless turn, spawn to exit (median of ${runs} interleaved rounds; load average ` +
      `before ${before}, after ${loadavg()}):`,
  );
  for (const s of series) console.log(`  ${s.name.padEnd(40)} ${median(s.samples).toFixed(0)} ms`);
  const ratio = (a: string, b: string, target: string) => {
    const sa = series.find((s) => s.name === a);
    const sb = series.find((s) => s.name === b);
    if (!sa || !sb) return;
    const r = median(sa.samples) / median(sb.samples);
    const extra = median(sa.samples) - median(sb.samples);
    console.log(`  ${a} / ${b}: ${r.toFixed(2)}x (+${extra.toFixed(0)} ms)${target}`);
  };
  ratio("agent -p, one stdio server", "agent -p, no MCP", " (target <= 1.15x)");
  ratio("agent -p, one stdio server, sandbox off", "agent -p, no MCP, sandbox off", "");
  ratio("codex exec, one stdio server", "codex exec, no MCP", "");
  ratio("agent -p, one stdio server, calls echo", "codex exec, one stdio server, calls echo", "");
  if (calling && calling.requests !== 2 * (runs + 1)) {
    console.log(
      `  codex: ${calling.requests} model requests for ${runs + 1} tool turns (expected 2 each)`,
    );
  }
  if (!codex) console.log("  codex: not installed (CODEX_BIN or /work/peers-cc), not measured");
  await responses?.close();
  await calling?.close();
  await fake.close();
  await Deno.remove(base, { recursive: true });
}
