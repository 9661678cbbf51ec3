// Read-only status routes: the messenger pill, a health check for proxies and containers,
// the schedule preview of the job form, the audit log and (until recipes land) an empty
// recipe catalog.

import type { Hono } from "hono";
import { previewFires, validateSchedule } from "../../core/scheduler/schedule.ts";
import { isoZ } from "../../core/time.ts";
import type { AppDeps } from "../deps.ts";
import { ApiError } from "../http/errors.ts";
import { queryInt } from "../http/request.ts";

export function registerStatusRoutes(app: Hono, deps: AppDeps): void {
  app.get("/healthz", (c) => c.json({ ok: true }));

  app.get("/api/messenger/status", (c) => c.json(deps.messengerStatus()));

  app.get("/api/schedule/preview", (c) => {
    const count = queryInt(c, "count", 1, 20, 5)!;
    const now = deps.clock.now();
    const schedule = validateSchedule(
      { kind: c.req.query("kind"), expr: c.req.query("expr"), tz: c.req.query("tz") },
      now,
    );
    return c.json({ schedule, fires: previewFires(schedule, now, count).map(isoZ) });
  });

  app.get("/api/audit", (c) => {
    const limit = queryInt(c, "limit", 1, 500, 100)!;
    const before = queryInt(c, "before", 1, Number.MAX_SAFE_INTEGER, undefined);
    const action = c.req.query("action");
    const rows = deps.store.listAudit({
      limit,
      ...(before === undefined ? {} : { before_id: before }),
      ...(action ? { action } : {}),
    });
    return c.json({ rows });
  });

  // Recipes are a later issue: an honest empty catalog, and enable refuses every id.
  app.get("/api/recipes", (c) => c.json({ recipes: [], enabled_counts: {}, load_errors: [] }));
  app.get("/api/recipes/enabled", (c) => {
    return c.json({ jobs: deps.store.listJobs().filter((j) => j.recipe_id !== null) });
  });
  app.post("/api/recipes/:id/enable", (c) => {
    throw new ApiError(
      404,
      "not_found",
      `no recipe ${
        JSON.stringify(c.req.param("id").slice(0, 100))
      }; the catalog is empty in this build`,
    );
  });
}
