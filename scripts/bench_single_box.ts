// Single-box start-up time and memory with and without the PostgreSQL code (issue 32): the
// outpost of this checkout against the same program at a base commit (default: the merge base
// with main before the store was split, or --base REV), both on SQLite, in interleaved rounds
// (scripts/bench_rounds.ts); plus this checkout on PostgreSQL (a throwaway cluster) for the
// cost of the client when it is used. Start-up is spawn → "listening on" line; RSS is VmRSS
// of the process at that moment and after 2 s idle.
//
//   deno run -A scripts/bench_single_box.ts [--rounds 8] [--base REV] [--with-postgres]

import { parseArgs } from "node:util";
import { denoRunArgs } from "./permissions.ts";
import { loadavg, median, quantile, runRounds, type Series } from "./bench_rounds.ts";
import { childEnv, tempHome } from "../tests/e2e/agent_process.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const { values } = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "8" },
    base: { type: "string" },
    "with-postgres": { type: "boolean", default: false },
  },
});
const ROUNDS = Number(values.rounds);

function git(...args: string[]): string {
  const out = new Deno.Command("git", { args, cwd: ROOT, stdout: "piped" }).outputSync();
  return new TextDecoder().decode(out.stdout).trim();
}

/** The base commit's tree in a temp folder (git archive: no worktree, no shared metadata). */
async function baseCheckout(rev: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "bench_base_" });
  const archive = new Deno.Command("sh", {
    args: ["-c", `git archive ${rev} | tar -x -C ${dir}`],
    cwd: ROOT,
  });
  if (!(await archive.output()).success) throw new Error(`git archive ${rev} failed`);
  return dir;
}

interface Sample {
  startMs: number;
  rssListening: number;
  rssIdle: number;
}

function rssMiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function startOnce(root: string, env: Record<string, string>): Promise<Sample> {
  const home = await tempHome();
  const started = performance.now();
  const child = new Deno.Command(Deno.execPath(), {
    args: [...denoRunArgs("agent-outpost", root), "--port", "0"],
    env: childEnv({ home, ...env }),
    clearEnv: true,
    cwd: home,
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!/listening on http/.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`outpost in ${root} exited: ${seen}`);
    seen += value;
  }
  const startMs = performance.now() - started;
  const rssListening = rssMiB(child.pid);
  await new Promise((r) => setTimeout(r, 2000));
  const rssIdle = rssMiB(child.pid);
  child.kill("SIGTERM");
  await reader.cancel();
  await child.status;
  await Deno.remove(home, { recursive: true });
  return { startMs, rssListening, rssIdle };
}

const baseRev = values.base ?? git("merge-base", "HEAD", "main");
const base = await baseCheckout(baseRev);
const series: Series<Sample>[] = [
  {
    name: `base ${baseRev.slice(0, 8)} (no PostgreSQL code)`,
    run: () => startOnce(base, {}),
    samples: [],
  },
  { name: "this checkout, SQLite", run: () => startOnce(ROOT, {}), samples: [] },
];
let stopCluster = () => {};
if (values["with-postgres"]) {
  const { pgCluster, freshDatabaseUrl } = await import("../tests/pg_cluster.ts");
  const cluster = pgCluster();
  stopCluster = () => cluster.stop();
  series.push({
    name: "this checkout, PostgreSQL",
    run: () => startOnce(ROOT, { AGENT_OUTPOST_DATABASE_URL: freshDatabaseUrl() }),
    samples: [],
  });
}
console.log(`load average before: ${loadavg()}`);
await runRounds(series, ROUNDS);
console.log(`load average after: ${loadavg()}; ${ROUNDS} interleaved rounds, medians (p25–p75)`);
const fmt = (xs: number[], digits: number) =>
  `${median(xs).toFixed(digits)} (${quantile(xs, 0.25).toFixed(digits)}–${
    quantile(xs, 0.75).toFixed(digits)
  })`;
console.log("| outpost | start-up ms | RSS at listening MiB | RSS idle 2 s MiB |");
console.log("|---|---|---|---|");
for (const s of series) {
  console.log(
    `| ${s.name} | ${fmt(s.samples.map((x) => x.startMs), 0)} | ${
      fmt(s.samples.map((x) => x.rssListening), 1)
    } | ${fmt(s.samples.map((x) => x.rssIdle), 1)} |`,
  );
}
stopCluster();
await Deno.remove(base, { recursive: true });
