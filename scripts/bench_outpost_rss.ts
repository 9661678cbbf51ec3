// The outpost's resident memory with the Matrix bot running and without it (issue 16: idle
// RSS under 80 MiB with the Matrix bot and push adapters active; report idle and after 1,000
// requests). Starts a real Synapse on loopback (tests/e2e/synapse_kit.ts), mints the bot's
// token, makes a room with an operator, then runs scripts/bench_outpost_http.ts --rss-only
// alternately without and with the four MX_* variables, so both series see the same machine.
//
//   deno run -A scripts/bench_outpost_rss.ts [--runs 3]

import { parseArgs } from "node:util";
import { Synapse } from "../tests/e2e/synapse_kit.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");
const { values } = parseArgs({
  args: Deno.args,
  options: { runs: { type: "string", default: "3" } },
});
const RUNS = Number(values.runs);

interface Figures {
  idle: number;
  after1000: number;
}

async function benchOnce(env: Record<string, string>): Promise<Figures> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}/scripts/bench_outpost_http.ts`, "--rss-only"],
    env,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  const m = /idle ([\d.]+) MiB, after 1,000 requests ([\d.]+) MiB/.exec(text);
  if (!out.success || !m) throw new Error(`bench_outpost_http.ts failed:\n${text}`);
  return { idle: Number(m[1]), after1000: Number(m[2]) };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

await using synapse = await Synapse.start();
const { alice, bot } = await synapse.users();
const room = await alice.createRoom([bot.userId], "bench");
const matrixEnv = {
  MX_HOMESERVER: synapse.url,
  MX_TOKEN: bot.token,
  MX_ROOM: room,
  MX_ALLOWLIST: alice.userId,
};

const series: Record<"dormant" | "bot", Figures[]> = { dormant: [], bot: [] };
for (let i = 0; i < RUNS; i++) {
  series.dormant.push(await benchOnce({}));
  series.bot.push(await benchOnce(matrixEnv));
}

console.log(`agent-outpost RSS, push adapter active, median of ${RUNS} (MiB):`);
console.log("| Matrix bot | idle | after 1,000 requests |");
console.log("|---|---|---|");
for (const [label, figures] of Object.entries(series)) {
  const idle = median(figures.map((f) => f.idle));
  const after = median(figures.map((f) => f.after1000));
  console.log(
    `| ${label === "bot" ? "running (synced)" : "dormant"} | ${idle.toFixed(1)} | ${
      after.toFixed(1)
    } |`,
  );
}
const botIdle = median(series.bot.map((f) => f.idle));
const botAfter = median(series.bot.map((f) => f.after1000));
console.log(
  `target < 80 MiB with the bot: idle ${botIdle < 80 ? "met" : "MISSED"}, after 1,000 ` +
    `requests ${botAfter < 80 ? "met" : "MISSED"}`,
);
