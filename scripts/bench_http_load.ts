// Closed-loop HTTP load for the benchmarks: `concurrency` workers fetch back to back, bounded
// in count and time, after a warm-up; latencies pooled into percentiles and printed.

export interface Stats {
  count: number;
  seconds: number;
  p50: number;
  p99: number;
  max: number;
  rps: number;
}

/** One request of a load: a URL, or a URL and its init (method, headers, body). */
export type Target = string | ((i: number) => [string, RequestInit]);

export interface LoadOptions {
  /** Requests per load (after the warm-up). */
  requests: number;
  /** A load stops after this many seconds even if requests remain. */
  seconds: number;
  /** The init of a plain URL target (its Accept-Encoding). */
  plainGet: RequestInit;
}

/** Latencies (ms) of one closed-loop load, and its wall time. */
export interface Sample {
  latencies: number[];
  seconds: number;
}

export async function sampleLoad(
  target: Target,
  concurrency: number,
  o: LoadOptions,
  requests = o.requests,
  warmup = 200,
): Promise<Sample> {
  let issued = 0;
  const next = (): [string, RequestInit] => {
    const i = issued++;
    return typeof target === "string" ? [target, o.plainGet] : target(i);
  };
  for (let i = 0; i < warmup; i++) {
    const [url, init] = next();
    const res = await fetch(url, init);
    await res.arrayBuffer();
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status} (warm-up)`);
  }
  const latencies: number[] = [];
  const deadline = performance.now() + o.seconds * 1000;
  const end = issued + requests;
  const start = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (issued < end && performance.now() < deadline) {
      const [url, init] = next();
      const t0 = performance.now();
      const res = await fetch(url, init);
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    }
  }));
  return { latencies, seconds: (performance.now() - start) / 1000 };
}

/** Percentiles over one or more samples (rounds of the same target pooled). */
export function statsOf(samples: Sample[]): Stats {
  const latencies = samples.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const seconds = samples.reduce((sum, s) => sum + s.seconds, 0);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  return {
    count: latencies.length,
    seconds,
    p50: pct(0.5),
    p99: pct(0.99),
    max: latencies[latencies.length - 1]!,
    rps: latencies.length / seconds,
  };
}

export function show(label: string, s: Stats): void {
  console.log(
    `${label.padEnd(34)} n=${s.count} p50=${s.p50.toFixed(2)} ms p99=${s.p99.toFixed(2)} ms ` +
      `max=${s.max.toFixed(2)} ms ${s.rps.toFixed(0)} req/s`,
  );
}
