// The fleet's read-only doors: the /fleet page and GET /api/fleet (the nodes sharing the
// store, with their heartbeats, runners in use and runs), and GET /metrics (Prometheus text,
// server/http/metrics.ts). The page and the metrics are loaded on their first request, so a
// single box that is never scraped does not carry them (scripts/bench_single_box.ts).

import type { Hono } from "hono";
import type { AppDeps } from "../deps.ts";
import { assetUrls } from "../static/assets.ts";
import { shell } from "../views/render.tsx";
import { PAGE_HEADERS } from "./pages.ts";

export function registerFleetRoutes(app: Hono, deps: AppDeps): void {
  const page = shell(deps, assetUrls());

  app.get("/fleet", async (c) => {
    const { FleetPage } = await import("../views/fleet_page.tsx");
    const body = (
      <FleetPage nodeId={deps.fleet.nodeId} store={deps.fleet.store} nodes={deps.fleet.nodes()} />
    );
    const out = await page({ title: "Fleet", page: "fleet" }, body);
    return c.html(out.html, out.status, PAGE_HEADERS);
  });

  app.get(
    "/api/fleet",
    (c) =>
      c.json({ node_id: deps.fleet.nodeId, store: deps.fleet.store, nodes: deps.fleet.nodes() }),
  );

  app.get("/metrics", async (c) => {
    const { metricsText } = await import("../http/metrics.ts");
    return c.body(metricsText(deps), 200, {
      "Content-Type": "text/plain; version=0.0.4; charset=utf-8",
    });
  });
}
