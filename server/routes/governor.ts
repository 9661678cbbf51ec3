// The GPU fairness card's data: levers (live-tunable, persisted to governor.json) and the
// current usage per class.

import type { Hono } from "hono";
import { AUDIT, audit } from "../../core/audit/audit.ts";
import type { AppDeps } from "../deps.ts";
import { humanActor, readJsonObject } from "../http/request.ts";

export function registerGovernorRoutes(app: Hono, deps: AppDeps): void {
  const view = () => ({ config: deps.governor.config, usage: deps.scheduler.usage() });

  app.get("/api/governor", (c) => c.json(view()));

  app.put("/api/governor", async (c) => {
    const body = await readJsonObject(c);
    await deps.governor.update(body);
    audit(deps.store, deps.logger, {
      action: AUDIT.governorUpdate,
      target: "governor",
      actor: humanActor(c, deps.trustedUserHeader),
      channel: "dashboard",
      detail: JSON.stringify(body).slice(0, 500),
    });
    deps.live.publish({ type: "governor" });
    deps.scheduler.poke(); // a raised cap may admit queued runs now
    return c.json(view());
  });
}
