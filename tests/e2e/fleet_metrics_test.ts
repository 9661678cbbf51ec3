// GET /metrics scraped by a real Prometheus (issue 32): an outpost node on PostgreSQL, a
// Prometheus on loopback scraping it every second, and queries through Prometheus' own HTTP
// API, so the exposition is checked by the parser that will read it in production. The alert
// expressions of docs/fleet.md are evaluated too, so they are valid PromQL over these names.

import assert from "node:assert/strict";
import { join } from "node:path";
import { peerTest, probes } from "../peers.ts";
import { startFleet, waitFor } from "./fleet_kit.ts";
import { freePort } from "./listening_kit.ts";

/** The alert rules documented in docs/fleet.md ("Alerts"), as Prometheus expressions. */
export const ALERT_EXPRESSIONS = {
  OutpostHeartbeatStopped: "outpost_fleet_node_heartbeat_age_seconds > 90",
  OutpostFireLagHigh: "histogram_quantile(0.99, rate(outpost_fire_lag_seconds_bucket[10m])) > 120",
};

const both = () => probes.postgres() ?? probes.prometheus();

peerTest(
  "a real Prometheus scrapes /metrics of a fleet node and reads every family",
  both,
  async () => {
    const fleet = await startFleet(["n1"]);
    const dir = await Deno.makeTempDir({ prefix: "prometheus_" });
    const target = new URL(fleet.nodes[0]!.outpost.url).host;
    await Deno.writeTextFile(
      join(dir, "prometheus.yml"),
      `global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n` +
        `scrape_configs:\n  - job_name: outpost\n    static_configs:\n      - targets: ["${target}"]\n`,
    );
    const port = freePort();
    const prometheus = new Deno.Command("prometheus", {
      args: [
        `--config.file=${join(dir, "prometheus.yml")}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const logs = new Response(prometheus.stderr).text();
    const query = async (q: string) => {
      const res = await fetch(
        `http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(q)}`,
      )
        .catch(() => null);
      if (!res) return [];
      const body = await res.json();
      assert.equal(body.status, "success", `${q}: ${JSON.stringify(body)}`);
      return body.data.result as { metric: Record<string, string>; value: [number, string] }[];
    };
    try {
      const up = await waitFor(
        "the scrape to succeed",
        () => query("up"),
        (r) => r[0]?.value[1] === "1",
      );
      assert.equal(up[0]!.metric.job, "outpost");
      const renewed = await waitFor(
        "a lease renewal to show",
        () => query("outpost_lease_renewals_total"),
        (r) => Number(r[0]?.value[1] ?? 0) > 0,
      );
      assert.ok(Number(renewed[0]!.value[1]) > 0);
      for (
        const [q, want] of [
          ['outpost_node_info{node="n1",store="postgres"}', "1"],
          ['outpost_fleet_node_up{node="n1"}', "1"],
          ["outpost_queue_depth", "0"],
          ['outpost_runners_max{class="scheduled"}', null],
          ["outpost_fire_lag_seconds_count", "0"],
          ['outpost_tokens_last_hour{class="api"}', "0"],
          ["outpost_store_latency_seconds_count", null],
        ] as const
      ) {
        const r = await query(q);
        assert.equal(r.length, 1, `${q}: ${JSON.stringify(r)}`);
        if (want !== null) assert.equal(r[0]!.value[1], want, q);
      }
      // The documented alerts parse and, on a healthy node, do not fire.
      for (const [name, expr] of Object.entries(ALERT_EXPRESSIONS)) {
        assert.deepEqual(await query(expr), [], name);
      }
    } finally {
      prometheus.kill("SIGTERM");
      await prometheus.status;
      await logs;
      await fleet.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);
