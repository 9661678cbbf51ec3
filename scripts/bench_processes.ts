// Whole-process benchmarks: `agent --version` and a one-turn `agent -p` run against the
// local fake model server (both wires, memory reflection on as by default), started through
// the launcher `deno task install` writes (what users run), beside `deno run` of an empty
// file and Codex CLI `exec`, all in this one script.
//
// The machines this runs on are shared, so every figure is a ratio against a baseline
// measured in the same rounds (scripts/bench_rounds.ts: rotated rounds, median of the per-round
// ratios).
// Wall times are medians with their p25–p75 spread; peak RSS via /usr/bin/time when present.
//
// With Codex CLI as the peer: `codex exec` against an instant local Responses endpoint
// (scripts/bench_responses_server.ts), installed from npm into ~/.cache/agent-bench on first use
// (`--no-codex` skips it; a failed install is reported, not fatal).
// `--compare DIR` adds the same two turns through another checkout (e.g. a `git worktree` of
// main), installed by that checkout's own install script, as a before/after in the same rounds.
// `--marks` also prints where a turn's time goes (AGENT_TIMING=1 marks; core/timing_marks.ts).
//   deno run -A scripts/bench_processes.ts [--runs 15] [--no-codex] [--compare DIR] [--marks]
//
// Measured 2026-11-26 (issue 16), 41 rounds, against 52c4104 (the turn over fetch): one turn
// 51.2 / 49.0 ms (chat_completions / messages) with the empty `deno run` at 18.8 ms, 2.63x /
// 2.62x the empty run (the 60 ms target is 2.73x of the 22 ms), 0.88x / 0.89x 52c4104,
// 0.16x Codex CLI exec (311 ms); peak RSS 45 MiB (0.31x Codex); `--version` 1.20x. Earlier the
// same day: the V8 flag 0.96–0.97x of 1339022; against 759f196, whose launcher ran the sources,
// the bundle made a turn 0.72–0.74x.
// What a turn pays beyond an empty `deno run`, measured on its own in Deno 2.9.6:
// - fetch() would cost 6.5–10 ms on first use: Deno loads fetch, Request/Response, Headers and
//   web streams then (a fetch of a data: URL costs the same). Model servers on http are reached
//   over core/wires/plain_http.ts instead; `new Worker` to load fetch elsewhere costs 18–25 ms.
// - node:sqlite ~2 ms (the memory's recall index); deno.json with its lockfile 1.5–2.4 ms.
// - process exit: ~0.1 ms per MiB of RSS (3 ms for the empty run's 26 MiB, ~5 for a turn).
// - V8 compiling our ~230 functions on first call, every run: Deno writes a module's code
//   cache right after compiling it, before anything ran, and esbuild drops the parentheses
//   that would make V8 compile a function eagerly. `--no-lazy` compiles everything: 1.03x.
// The rest is our own code, spread thin: settings ~4 ms, memory and system prompt ~4, request
// and stream handling ~8, the probe ~1 (skipping it: 0.99x), the timers' first abort ~1
// (0.98x without). Memory off altogether: 0.94x. ICU is never touched on a turn (its first
// use costs 7 ms for localeCompare, 14–17 for Intl.NumberFormat). A launcher without deno.json
// (all npm externals bundled): 0.94–0.98x, but Deno's bundler cannot bundle marked-terminal (emojilib
// requires its JSON data without the extension), so it stays an npm import, needing the
// lockfile. Tried without gain earlier: --minify (0.97–1.00x), --no-sparkplug, one bundle
// file (300 ms: any bundled CommonJS makes every chunk import node:module).

import { parseArgs } from "node:util";
import { reply, startFakeModelServer } from "../tests/fakes/model_server.ts";
import { startResponsesServer } from "./bench_responses_server.ts";
import {
  installedAgent,
  loadavg,
  median,
  quantile,
  ratioLine,
  runRounds,
  type Series,
} from "./bench_rounds.ts";

const CODEX_VERSION = "0.169.0";
const BENCH_CACHE = `${Deno.env.get("HOME")}/.cache/agent-bench`;

const { values } = parseArgs({
  args: Deno.args,
  options: {
    runs: { type: "string", default: "15" },
    "no-codex": { type: "boolean" },
    compare: { type: "string" },
    marks: { type: "boolean" },
  },
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

interface Sample {
  /** Epoch ms when the child was spawned. */
  spawnedAt: number;
  ms: number;
  kib: number | null;
  stderr: string;
}

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
  ...(values.marks ? { AGENT_TIMING: "1" } : {}),
};

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
  const stderr = new TextDecoder().decode(out.stderr).trim();
  if (!out.success) throw new Error(`${args.join(" ")} failed: ${stderr}`);
  const kib = TIME ? Number(stderr.split("\n").at(-1)) : null;
  return { spawnedAt: performance.timeOrigin + t0, ms, kib, stderr };
}

function oneTurn(launcher: string, provider: string) {
  return () => {
    fake.enqueue(reply().text("done").usage(20, 2));
    return measure(
      ["-p", "--workdir", home, "--", "say done"],
      { AGENT_PROVIDER: provider },
      launcher,
    );
  };
}

const launcher = await installedAgent(ROOT, `${home}/agent`, env.DENO_DIR);
const series: Series<Sample>[] = [
  { name: "deno run empty.ts", run: () => measure(["run", empty]), samples: [] },
  { name: "agent --version", run: () => measure(["--version"], {}, launcher), samples: [] },
  { name: "agent -p (chat_completions)", run: oneTurn(launcher, "chat_completions"), samples: [] },
  { name: "agent -p (messages)", run: oneTurn(launcher, "messages"), samples: [] },
];
if (values.compare) {
  const other = await installedAgent(
    values.compare.replace(/\/$/, ""),
    `${home}/agent-compare`,
    env.DENO_DIR,
  );
  series.push(
    { name: "compare -p (chat_completions)", run: oneTurn(other, "chat_completions"), samples: [] },
    { name: "compare -p (messages)", run: oneTurn(other, "messages"), samples: [] },
  );
}
const codex = values["no-codex"] ? null : await codexPeer();
if (codex) series.push({ name: "codex exec (responses)", run: codex.run, samples: [] });

console.log(
  `${RUNS} interleaved rounds${TIME ? "" : " (no /usr/bin/time: memory not measured)"}; ` +
    `load average before: ${loadavg()}`,
);
await runRounds(series, RUNS);
console.log(`load average after: ${loadavg()}\n`);
console.log(`${"".padEnd(30)} median ms (p25–p75)    peak RSS MiB`);
for (const s of series) {
  const ms = s.samples.map((x) => x.ms);
  const kib = s.samples[0]!.kib === null ? null : median(s.samples.map((x) => x.kib!));
  console.log(
    `${s.name.padEnd(30)} ${median(ms).toFixed(1).padStart(7)} (${quantile(ms, 0.25).toFixed(1)}–${
      quantile(ms, 0.75).toFixed(1)
    })   ${kib === null ? "n/a" : (kib / 1024).toFixed(1)}`,
  );
}

/** Median and spread of the per-round ratio a/b (a and b ran in the same round). */
function ratio(label: string, a: string, b: string, what: "ms" | "kib" = "ms"): void {
  const sa = series.find((s) => s.name === a);
  const sb = series.find((s) => s.name === b);
  if (!sa || !sb || (what === "kib" && sa.samples[0]!.kib === null)) return;
  console.log(ratioLine(label, 44, sa.samples.map((x, i) => x[what]! / sb.samples[i]![what]!)));
}
console.log("\nratios (median of per-round ratios)");
ratio("agent --version / empty deno run", "agent --version", "deno run empty.ts");
for (const wire of ["chat_completions", "messages"]) {
  ratio(`one turn (${wire}) / empty deno run`, `agent -p (${wire})`, "deno run empty.ts");
  ratio(`one turn (${wire}) / codex exec`, `agent -p (${wire})`, "codex exec (responses)");
  ratio(`one turn (${wire}) / compare checkout`, `agent -p (${wire})`, `compare -p (${wire})`);
}
ratio(
  "peak RSS one turn (messages) / codex",
  "agent -p (messages)",
  "codex exec (responses)",
  "kib",
);
if (codex && codex.requests() !== (RUNS + 1)) {
  console.log(`codex: made ${codex.requests()} model requests for ${RUNS + 1} runs`);
}
if (values.marks) printMarks();
await codex?.close();
await fake.close();
await Deno.remove(home, { recursive: true });

/** Median time between consecutive AGENT_TIMING marks of each agent -p series. */
function printMarks(): void {
  for (const s of series.filter((x) => x.name.includes("-p ("))) {
    const phases = new Map<string, number[]>();
    for (const sample of s.samples) {
      const line = sample.stderr.split("\n").find((l) => l.startsWith("agent-timing "));
      if (!line) continue;
      const { origin, marks } = JSON.parse(line.slice("agent-timing ".length)) as {
        origin: number;
        marks: [string, number][];
      };
      const add = (k: string, v: number) => phases.set(k, [...(phases.get(k) ?? []), v]);
      const start = origin - sample.spawnedAt;
      add("runtime start (spawn → time origin)", start);
      let prev = 0;
      for (const [name, at] of marks) {
        add(name, at - prev);
        prev = at;
      }
      add("process exit (after the exit mark)", sample.ms - start - prev);
    }
    if (phases.size === 0) continue; // a checkout without AGENT_TIMING marks
    console.log(`\nwhere ${s.name} spends its time (median ms per phase, ending at the mark)`);
    for (const [name, xs] of phases) {
      console.log(`  ${name.padEnd(38)} ${median(xs).toFixed(1).padStart(6)}`);
    }
  }
}

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

async function codexPeer() {
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
  return {
    run: () => measure(args, { CODEX_HOME: codexHome, BENCH_KEY: "bench" }, bin),
    requests: () => server.requests,
    close: () => server.close(),
  };
}
