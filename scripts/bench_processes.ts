// Whole-process benchmarks: `agent --version` and a one-turn `agent -p` run against the
// local fake model server (both wires, memory reflection on as by default), started through
// the launcher `deno task install` writes (what users run), beside `deno run` of an empty
// file, all in this one script. Reports median wall time and median peak RSS (via
// /usr/bin/time when present).
//   deno run -A scripts/bench_processes.ts [--runs 15]

import { parseArgs } from "node:util";
import { launcherScript } from "./install.ts";
import { reply, startFakeModelServer } from "../tests/fakes/model_server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" } },
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
console.log("");
console.log(`ratio agent --version / empty:        ${(version.ms / base.ms).toFixed(2)}x`);
console.log(`ratio one turn (chat) / empty:        ${(cc.ms / base.ms).toFixed(2)}x`);
console.log(`ratio one turn (messages) / empty:    ${(msg.ms / base.ms).toFixed(2)}x`);
await fake.close();
await Deno.remove(home, { recursive: true });
