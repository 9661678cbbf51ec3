// The /fleet page: every outpost sharing this one's store, with its lease, runners in use and
// runs (a single box lists itself). Read-only; GET /api/fleet answers the same as JSON.

import type { FC } from "hono/jsx";
import type { FleetNode } from "../../core/fleet/pg_fleet.ts";

export const FleetPage: FC<{ nodeId: string; store: string; nodes: FleetNode[] }> = (p) => (
  <div class="stack">
    <section class="card card-wide" aria-labelledby="fleet-title">
      <h1 id="fleet-title">Fleet</h1>
      <p>
        This node: <strong>{p.nodeId}</strong> · store:{" "}
        {p.store === "postgres" ? "shared PostgreSQL" : "SQLite (a single box)"}
      </p>
      <table class="runs-table">
        <thead>
          <tr>
            <th scope="col">Node</th>
            <th scope="col">Lease</th>
            <th scope="col">Last heartbeat (UTC)</th>
            <th scope="col">Runners in use</th>
            <th scope="col">Runs</th>
            <th scope="col">Labels</th>
            <th scope="col">Lapses</th>
          </tr>
        </thead>
        <tbody>
          {p.nodes.map((n) => (
            <tr data-node={n.node_id}>
              <td>{n.url ? <a href={n.url}>{n.node_id}</a> : n.node_id}</td>
              <td>{n.alive ? "held" : "lapsed"}</td>
              <td>{n.heartbeat_at}</td>
              <td>{n.running}</td>
              <td>{n.runs}</td>
              <td>{n.labels.join(", ") || "—"}</td>
              <td>{n.fenced}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  </div>
);
