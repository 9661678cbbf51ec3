// The 30-day, 100-job outpost simulation (tests/fakes/scheduler_simulation.ts), timed: the month
// itself (scheduler, governor, store, fake children on virtual time) and, separately, the
// invariant checks over its history. Target: the month in under 5 s.
//   deno run -A scripts/bench_outpost_sim.ts [runs=3]

import { runSimulation } from "../tests/fakes/scheduler_simulation.ts";

const runs = Number(Deno.args[0] ?? 3);
const rows: { total: number; month: number }[] = [];
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const { violations, stats } = await runSimulation({ days: 30, jobs: 100, seed: 42 });
  const total = performance.now() - t0;
  if (violations.length > 0) throw new Error(`invariants broken:\n${violations.join("\n")}`);
  rows.push({ total, month: stats.loop_ms });
  if (i === 0) {
    console.log(
      `fires ${stats.fires} (all ${stats.expected_fires} due slots accounted for), ` +
        `spawns ${stats.spawns}, skipped: single-flight ${stats.skipped_single_flight}, ` +
        `governor ${stats.skipped_governor}; retries ${stats.retries}, timeouts ${stats.timeouts}, ` +
        `resumes ${stats.resumes}, one-shots ${stats.one_shots}, dead-lettered ${stats.dead_lettered}, ` +
        `max running ${stats.max_running}`,
    );
  }
}
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const month = median(rows.map((r) => r.month));
const total = median(rows.map((r) => r.total));
console.log(
  `30-day simulation, median of ${runs}: month ${(month / 1000).toFixed(2)} s, ` +
    `invariant checks ${((total - month) / 1000).toFixed(2)} s, total ${
      (total / 1000).toFixed(2)
    } s ` +
    `(target: month < 5 s)`,
);
