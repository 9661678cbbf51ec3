// The interleaved-rounds method of the whole-process benchmarks (bench_processes.ts,
// bench_interactive_startup.ts), and the agent launcher they measure. The machines they run on
// are shared, so each round runs every series once, in a rotated order, after one warm-up run
// each (module and code caches), and a ratio is the median of the per-round ratios: a load
// spike hits both sides of a round.

export const loadavg = (): string =>
  Deno.readTextFileSync("/proc/loadavg").split(" ").slice(0, 3).join(" ");

/** The q-quantile (nearest rank) of xs. */
export function quantile(xs: readonly number[], q: number): number {
  const sorted = xs.toSorted((a, b) => a - b);
  return sorted[Math.round((sorted.length - 1) * q)]!;
}

export const median = (xs: readonly number[]): number => quantile(xs, 0.5);

export interface Series<S> {
  name: string;
  run: () => Promise<S>;
  samples: S[];
}

/** One warm-up run of each series, then `rounds` rotated rounds into each series' samples. */
export async function runRounds<S>(series: readonly Series<S>[], rounds: number): Promise<void> {
  for (const s of series) await s.run();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < series.length; i++) {
      const s = series[(round + i) % series.length]!;
      s.samples.push(await s.run());
    }
  }
}

/** `label  1.23x (p25–p75 1.10–1.30)` for per-round ratios, the label padded to `width`. */
export function ratioLine(label: string, width: number, ratios: readonly number[]): string {
  return `${label.padEnd(width)} ${median(ratios).toFixed(2)}x (p25–p75 ${
    quantile(ratios, 0.25).toFixed(2)
  }–${quantile(ratios, 0.75).toFixed(2)})`;
}

/**
 * The agent launcher of the checkout at `root`, installed by that checkout's own
 * `deno task install` (the module cache is already warm, so --no-cache) into `binDir`: exactly
 * what its users run, whatever that checkout's launcher does (this one runs a bundle,
 * scripts/bundle.ts). Returns the launcher's path.
 */
export async function installedAgent(
  root: string,
  binDir: string,
  denoDir: string,
): Promise<string> {
  const { code, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${root}/scripts/install.ts`, "--bin-dir", binDir, "--no-cache"],
    env: { DENO_DIR: denoDir },
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    throw new Error(`install in ${root} failed: ${new TextDecoder().decode(stderr)}`);
  }
  return `${binDir}/agent`;
}
