// Time from launching `agent` (no -p) to its input prompt, and from submitting a message to
// the first token of the reply on the screen (the fake model answers at once), beside
// `deno run` of an empty file. Each run gets a pseudo-terminal from util-linux `script`, whose
// output arrives here through a pipe; a clock stops when its marker is on it. Target for the
// prompt: < 100 ms.
//   deno run -A scripts/bench_interactive_startup.ts [--runs 15]

import { parseArgs } from "node:util";
import { denoRunArgs } from "./permissions.ts";
import { reply, startFakeModelServer } from "../tests/fakes/model_server.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "15" } },
});
const RUNS = Number(values.runs);
const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const PROMPT = "›";

const home = await Deno.makeTempDir({ prefix: "bench-interactive-" });
const empty = `${home}/empty.ts`;
await Deno.writeTextFile(empty, "");
const fake = await startFakeModelServer({ models: [{ id: "bench-model", max_model_len: 32768 }] });
const baseEnv = {
  PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
  HOME: home,
  TERM: "xterm-256color",
  AGENT_HOME: `${home}/.agent`,
  DENO_DIR: Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`,
  AGENT_MEMORY_REFLECT: "0",
};

function quote(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Milliseconds from spawn until `until` shows up in the program's terminal output (or, with
 * no marker, until the program exits).
 */
async function measure(
  args: string[],
  env: Record<string, string>,
  until?: string,
  then?: { send: string; until: string },
): Promise<number> {
  const command = [Deno.execPath(), ...args].map(quote).join(" ");
  const t0 = performance.now();
  const child = new Deno.Command("script", {
    args: ["-q", "-f", "-e", "-c", command, "/dev/null"],
    env,
    clearEnv: true,
    cwd: home,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  // A run that never shows its marker is killed and reported with what it showed.
  const stuck = setTimeout(() => child.kill("SIGKILL"), 30_000);
  const decoder = new TextDecoder();
  let seen = "";
  let ms: number | null = null;
  let t1: number | null = null;
  let writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  for await (const chunk of child.stdout) {
    seen += decoder.decode(chunk, { stream: true });
    if (until === undefined || !seen.includes(until)) continue;
    if (!then) {
      ms = performance.now() - (t1 ?? t0);
      break;
    }
    if (t1 === null) {
      // The prompt is up: submit, and time from here to the reply's first token.
      seen = "";
      writer = child.stdin.getWriter();
      t1 = performance.now();
      await writer.write(new TextEncoder().encode(then.send));
      until = then.until;
      then = undefined;
    }
  }
  if (until === undefined) ms = performance.now() - t0;
  // ctrl+q quits the session; closing stdin ends `script` either way.
  try {
    writer ??= child.stdin.getWriter();
    await writer.write(new Uint8Array([0x11]));
    await writer.close();
  } catch { /* already gone */ }
  await child.stdout.cancel().catch(() => {});
  await child.status;
  clearTimeout(stuck);
  if (ms === null) throw new Error(`never saw ${until} in the output:\n${seen}`);
  return ms;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function series(name: string, run: () => Promise<number>): Promise<number> {
  await run(); // warm the module cache
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) samples.push(await run());
  const ms = median(samples);
  const spread = `${Math.min(...samples).toFixed(1)}–${Math.max(...samples).toFixed(1)}`;
  console.log(`${name.padEnd(46)} ${ms.toFixed(1).padStart(7)} ms   (range ${spread})`);
  return ms;
}

const agent = denoRunArgs("agent", ROOT);
console.log(`median of ${RUNS} runs each, in a pseudo-terminal`);
const base = await series("deno run empty.ts (to exit)", () => measure(["run", empty], baseEnv));
const local = await series(
  "agent to prompt (base_url: probe + memory)",
  () => measure(agent, { ...baseEnv, AGENT_BASE_URL: fake.url }, PROMPT),
);
const hosted = await series(
  "agent to prompt (hosted preset, no probe)",
  () =>
    measure(
      agent,
      { ...baseEnv, AGENT_PRESET: "hosted-messages", AGENT_API_KEY: "sk-bench-0000" },
      PROMPT,
    ),
);
const FIRST_TOKEN = "pong";
const firstToken = await series(
  "submit to first token on screen (base_url)",
  () => {
    fake.enqueue(reply().text(`${FIRST_TOKEN} and the rest of a short reply.`).usage(10, 8));
    return measure(
      agent,
      { ...baseEnv, AGENT_BASE_URL: fake.url },
      PROMPT,
      { send: "ping\r", until: FIRST_TOKEN },
    );
  },
);
console.log("");
console.log(
  `to prompt, base_url: ${local.toFixed(1)} ms (${(local / base).toFixed(2)}x empty); ` +
    `hosted: ${hosted.toFixed(1)} ms (${(hosted / base).toFixed(2)}x empty); target < 100 ms`,
);
console.log(
  `first token: ${firstToken.toFixed(1)} ms (${(firstToken / base).toFixed(2)}x empty)`,
);
await fake.close();
await Deno.remove(home, { recursive: true });
