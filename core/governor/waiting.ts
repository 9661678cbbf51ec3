// The model server's waiting-requests gauge, for defer_when_interactive. vLLM exposes it on
// its Prometheus endpoint as `vllm:num_requests_waiting` (one sample per model/engine).

import type { Fetch } from "../ports.ts";

/** Current waiting requests, or null when unknown (unreachable, no such metric). */
export type WaitingReader = (signal: AbortSignal) => Promise<number | null>;

const METRIC = "vllm:num_requests_waiting";

/** Sums every sample of the gauge; null when the text has none. */
export function parseWaitingRequests(text: string): number | null {
  let total: number | null = null;
  for (const line of text.split("\n")) {
    if (!line.startsWith(METRIC)) continue;
    const rest = line.slice(METRIC.length);
    if (rest[0] !== "{" && rest[0] !== " ") continue; // another metric sharing the prefix
    const value = Number(rest.replace(/^\{[^}]*\}/, "").trim().split(/\s+/)[0]);
    if (Number.isFinite(value)) total = (total ?? 0) + value;
  }
  return total;
}

/** `<base without /v1>/metrics`, where vLLM serves Prometheus text. */
export function metricsUrlFor(baseUrl: string): string {
  return baseUrl.trim().replace(/\/+$/, "").replace(/\/v1$/, "") + "/metrics";
}

export function vllmWaitingReader(options: { fetch: Fetch; url: string }): WaitingReader {
  return async (signal) => {
    try {
      const res = await options.fetch(options.url, { signal });
      if (!res.ok) {
        await res.body?.cancel();
        return null;
      }
      return parseWaitingRequests(await res.text());
    } catch {
      return null; // fail-open: an unreachable server never holds admission
    }
  };
}
