// GET /metrics in Prometheus' text exposition format (version 0.0.4), on every node: runs by
// status, queue depth, runner use, fire lag, token rate, lease renewals and store latency.
// The format is a few lines of text, so it is written here rather than by a client library
// (prom-client would be one more package on the outpost's start-up path for a dozen series);
// tests/e2e/fleet_metrics_test.ts has a real Prometheus scrape it. Alerts: docs/fleet.md.

import { LAG_BUCKETS } from "../../core/scheduler/fleet.ts";
import { isoZ } from "../../core/time.ts";
import type { AppDeps } from "../deps.ts";

type Labels = Record<string, string>;

function labelText(labels: Labels): string {
  const parts = Object.entries(labels).map(([k, v]) =>
    `${k}="${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`
  );
  return parts.length ? `{${parts.join(",")}}` : "";
}

class Exposition {
  readonly lines: string[] = [];

  family(name: string, type: "gauge" | "counter" | "histogram" | "summary", help: string): this {
    this.lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    return this;
  }

  sample(name: string, value: number, labels: Labels = {}): this {
    this.lines.push(`${name}${labelText(labels)} ${Number.isFinite(value) ? value : "NaN"}`);
    return this;
  }

  text(): string {
    return this.lines.join("\n") + "\n";
  }
}

const HOUR_MS = 3_600_000;

export function metricsText(deps: AppDeps): string {
  const now = deps.clock.now();
  const out = new Exposition();
  const node = deps.fleet.nodeId;
  out.family("outpost_node_info", "gauge", "This outpost: its node id and store engine.")
    .sample("outpost_node_info", 1, { node, store: deps.fleet.store });

  const byStatus = new Map<string, number>();
  for (const row of deps.store.runsPerHour(isoZ(new Date(now.getTime() - 24 * HOUR_MS)))) {
    byStatus.set(row.key, (byStatus.get(row.key) ?? 0) + row.n);
  }
  out.family("outpost_runs_24h", "gauge", "Runs queued in the last 24 hours, by status.");
  for (const [status, n] of [...byStatus].sort()) out.sample("outpost_runs_24h", n, { status });

  out.family("outpost_queue_depth", "gauge", "Runs waiting to start (the whole store).")
    .sample("outpost_queue_depth", deps.store.countQueued());
  const active = deps.scheduler.activeRuns();
  const caps = deps.governor.config.max_concurrent;
  out.family("outpost_runners_in_use", "gauge", "Runs this node is starting or running, by class.");
  for (const cls of ["scheduled", "api"] as const) {
    const n = active.filter((a) => a.cls === cls).length;
    out.sample("outpost_runners_in_use", n, { class: cls });
  }
  out.family("outpost_runners_max", "gauge", "This node's runner cap per class (governor).");
  for (const cls of ["scheduled", "api"] as const) {
    out.sample("outpost_runners_max", caps[cls], { class: cls });
  }

  const lag = deps.scheduler.fireLag;
  out.family("outpost_fire_lag_seconds", "histogram", "From a fire's slot to its run starting.");
  LAG_BUCKETS.forEach((le, i) =>
    out.sample("outpost_fire_lag_seconds_bucket", lag.counts[i]!, { le: String(le) })
  );
  out.sample("outpost_fire_lag_seconds_bucket", lag.count, { le: "+Inf" })
    .sample("outpost_fire_lag_seconds_sum", lag.sum)
    .sample("outpost_fire_lag_seconds_count", lag.count);

  const hourAgo = isoZ(new Date(now.getTime() - HOUR_MS));
  out.family("outpost_tokens_last_hour", "gauge", "Tokens of runs finished in the last hour.");
  for (const cls of ["scheduled", "api"] as const) {
    out.sample("outpost_tokens_last_hour", deps.store.tokensSince(cls, hourAgo), { class: cls });
  }

  const counters = deps.fleet.counters();
  out.family("outpost_lease_renewals_total", "counter", "Lease renewals by this node.")
    .sample("outpost_lease_renewals_total", counters.renewals)
    .family("outpost_lease_lapses_total", "counter", "Times this node found its lease lapsed.")
    .sample("outpost_lease_lapses_total", counters.fenced)
    .family("outpost_runs_taken_over_total", "counter", "Runs of lapsed nodes settled here.")
    .sample("outpost_runs_taken_over_total", counters.takenOver);

  const nodes = deps.fleet.nodes();
  out.family("outpost_fleet_node_up", "gauge", "1 while a node's lease holds.");
  for (const n of nodes) out.sample("outpost_fleet_node_up", n.alive ? 1 : 0, { node: n.node_id });
  out.family("outpost_fleet_node_heartbeat_age_seconds", "gauge", "Since a node's last renewal.");
  for (const n of nodes) {
    const age = (now.getTime() - Date.parse(n.heartbeat_at)) / 1000;
    out.sample("outpost_fleet_node_heartbeat_age_seconds", Math.max(0, age), { node: n.node_id });
  }

  const latency = deps.fleet.storeLatency();
  if (latency) {
    out.family("outpost_store_latency_seconds", "summary", "Round trips to the database.")
      .sample("outpost_store_latency_seconds_sum", latency.totalMs / 1000)
      .sample("outpost_store_latency_seconds_count", latency.count);
  }
  return out.text();
}
