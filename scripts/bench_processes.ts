// Whole-process benchmarks: `agent --version` and a one-turn `agent -p` run against the
// local fake model server (both wires, memory reflection on as by default), started through
// the launcher `deno task install` writes (what users run), beside `deno run` of an empty
// file, all in this one script. Reports median wall time and median peak RSS (via
// /usr/bin/time when present).
// With Codex CLI as the peer: `codex exec` against an instant local Responses endpoint
// (scripts/bench_responses_server.ts), installed from npm into ~/.cache/agent-bench on first use
// (`--no-codex` skips it; a failed install is reported, not fatal).
//   deno run -A scripts/bench_processes.ts [--runs 15] [--no-codex]

import { parseArgs } from "node:util";
import { launcherScript } from "./install.ts";
import { reply, startFakeModelServer } from "../tests/fakes/model_server.ts";
import { startResponsesServer } from "./bench_responses_server.ts";

const CODEX_VERSION = "0.169.0";
const BENCH_CACHE = `${Deno.env.get("HOME")}/.cache/agent-bench`;

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" }, "no-codex": { type: "boolean" } },
});
const RUNS = Number(values.runs);
const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const TIME = (() => {
  try {
    return Deno.statSync("/usr/bin/time").isFile ? "/usr/bin/time" : null;
  } catch {
    return null;
  }
})();

const home = await Deno.makeTempDir({ prefix: "bench-home-" });
const empty = `${home}/empty.ts`;
await Deno.writeTextFile(empty, "");
const fake = await startFakeModelServer({ models: [{ id: "bench-model", max_model_len: 32768 }] });
const env = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: home,
  AGENT_HOME: `${home}/.agent`,
  DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
  AGENT_BASE_URL: fake.url,
};

interface Sample {
  ms: number;
  kib: number | null;
}

async function measure(
  args: string[],
  extraEnv: Record<string, string> = {},
  program = Deno.execPath(),
): Promise<Sample> {
  const cmd = TIME ? TIME : program;
  const full = TIME ? ["-f", "%M", program, ...args] : args;
  const t0 = performance.now();
  const out = await new Deno.Command(cmd, {
    args: full,
    env: { ...env, ...extraEnv },
    clearEnv: true,
    cwd: home,
    stdout: "null",
    stderr: "piped",
  }).output();
  const ms = performance.now() - t0;
  const err = new TextDecoder().decode(out.stderr).trim();
  if (!out.success) throw new Error(`${args.join(" ")} failed: ${err}`);
  const kib = TIME ? Number(err.split("\n").at(-1)) : null;
  return { ms, kib };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

async function series(
  name: string,
  run: () => Promise<Sample>,
): Promise<{ ms: number; mib: number | null }> {
  await run(); // warm the module cache
  const samples: Sample[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await run());
  const ms = median(samples.map((s) => s.ms));
  const mib = samples[0]!.kib === null ? null : median(samples.map((s) => s.kib!)) / 1024;
  console.log(
    `${name.padEnd(34)} ${ms.toFixed(1).padStart(7)} ms   ${
      mib === null ? "   n/a" : mib.toFixed(1).padStart(6)
    } MiB`,
  );
  return { ms, mib };
}

// The launcher exactly as `deno task install` writes it, pointed at this checkout.
const launcher = `${home}/agent`;
await Deno.writeTextFile(launcher, launcherScript("agent", Deno.execPath(), ROOT, env.DENO_DIR), {
  mode: 0o755,
});
const agent = (args: string[], extraEnv: Record<string, string> = {}) =>
  measure(args, extraEnv, launcher);
console.log(`median of ${RUNS} runs each${TIME ? "" : " (no /usr/bin/time: memory not measured)"}`);
const base = await series("deno run empty.ts", () => measure(["run", empty]));
const version = await series("agent --version", () => agent(["--version"]));
const oneTurn = async (provider: string) => {
  fake.enqueue(reply().text("done").usage(20, 2));
  return await agent(["-p", "--workdir", home, "--", "say done"], { AGENT_PROVIDER: provider });
};
const cc = await series("agent -p one turn (chat_completions)", () => oneTurn("chat_completions"));
const msg = await series("agent -p one turn (messages)", () => oneTurn("messages"));
const codex = values["no-codex"] ? null : await codexSeries();
console.log("");
console.log(`ratio agent --version / empty:        ${(version.ms / base.ms).toFixed(2)}x`);
console.log(`ratio one turn (chat) / empty:        ${(cc.ms / base.ms).toFixed(2)}x`);
console.log(`ratio one turn (messages) / empty:    ${(msg.ms / base.ms).toFixed(2)}x`);
if (codex) {
  console.log(`ratio one turn (chat) / codex exec:   ${(cc.ms / codex.ms).toFixed(2)}x`);
  console.log(`ratio one turn (messages) / codex:    ${(msg.ms / codex.ms).toFixed(2)}x`);
  if (codex.mib !== null && msg.mib !== null) {
    console.log(`ratio peak RSS (messages) / codex:    ${(msg.mib / codex.mib).toFixed(2)}x`);
  }
}
await fake.close();
await Deno.remove(home, { recursive: true });

/** Installs Codex CLI (pinned) into the bench cache once; null with a reason when it cannot. */
async function installCodex(): Promise<string | null> {
  const dir = `${BENCH_CACHE}/codex-${CODEX_VERSION}`;
  const bin = `${dir}/node_modules/.bin/codex`;
  try {
    await Deno.stat(bin);
    return bin;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  console.log(`installing @openai/codex@${CODEX_VERSION} into ${dir} …`);
  await Deno.mkdir(dir, { recursive: true });
  const out = await new Deno.Command("npm", {
    args: ["install", "--prefix", dir, "--no-audit", "--no-fund", `@openai/codex@${CODEX_VERSION}`],
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    console.log(
      `codex: not measured (npm install failed: ${
        new TextDecoder().decode(out.stderr).trim().split("\n").at(-1)
      })`,
    );
    return null;
  }
  return bin;
}

async function codexSeries(): Promise<{ ms: number; mib: number | null } | null> {
  const bin = await installCodex();
  if (!bin) return null;
  const server = await startResponsesServer();
  // Codex refuses to set up its helpers under /tmp; its home lives in the bench cache.
  const codexHome = `${BENCH_CACHE}/codex-home`;
  await Deno.mkdir(codexHome, { recursive: true });
  const args = [
    "exec",
    "--skip-git-repo-check",
    "-c",
    "model_provider=bench",
    "-c",
    "model_providers.bench.name=bench",
    "-c",
    `model_providers.bench.base_url="${server.url}"`,
    "-c",
    'model_providers.bench.wire_api="responses"',
    "-c",
    'model_providers.bench.env_key="BENCH_KEY"',
    "-m",
    "bench-model",
    "say done",
  ];
  try {
    const before = server.requests;
    const result = await series(
      "codex exec one turn (responses)",
      () => measure(args, { CODEX_HOME: codexHome, BENCH_KEY: "bench" }, bin),
    );
    if (server.requests - before !== RUNS + 1) {
      console.log(`codex: made ${server.requests - before} model requests for ${RUNS + 1} runs`);
    }
    return result;
  } finally {
    await server.close();
  }
}
