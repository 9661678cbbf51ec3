// Read-only status routes: the messenger pill, a health check for proxies and containers,
// the schedule preview of the job form and the audit log. (Recipes: routes/recipes.ts.)

import type { Hono } from "hono";
import { AUDIT_CHANNELS } from "../../core/audit/audit.ts";
import { previewFires, validateSchedule } from "../../core/scheduler/schedule.ts";
import { isoZ } from "../../core/time.ts";
import type { AppDeps } from "../deps.ts";
import { badInput } from "../http/errors.ts";
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
    const channel = c.req.query("channel");
    if (channel && !(AUDIT_CHANNELS as readonly string[]).includes(channel)) {
      throw badInput("channel", `unknown channel; use one of ${AUDIT_CHANNELS.join(", ")}`);
    }
    const rows = deps.store.listAudit({
      limit,
      ...(before === undefined ? {} : { before_id: before }),
      ...(action ? { action } : {}),
      ...(channel ? { channel } : {}),
    });
    return c.json({ rows });
  });
}
