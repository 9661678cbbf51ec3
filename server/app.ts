// createApp(deps): the outpost's whole HTTP surface as one Hono app, so tests drive it with
// app.request() and main.ts serves it. Order: error mapping, security headers, body limit,
// CSRF (human door) and bearer auth (machine door), then the routes, then the pages.

import { Hono } from "hono";
import type { AppDeps } from "./deps.ts";
import { csrfMiddleware } from "./http/csrf.ts";
import { errorHandler, errorJson } from "./http/errors.ts";
import { BODY_MAX_BYTES } from "./http/request.ts";
import { registerEventRoutes } from "./routes/events.ts";
import { registerGovernorRoutes } from "./routes/governor.ts";
import { registerInboxRoutes } from "./routes/inbox.ts";
import { registerJobRoutes } from "./routes/jobs.ts";
import { registerMachineRoutes } from "./routes/machine_v1.ts";
import { registerMemoryRoutes } from "./routes/memory.ts";
import { registerPages } from "./routes/pages.ts";
import { registerPushRoutes } from "./routes/push.ts";
import { registerStatusRoutes } from "./routes/status.ts";

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.logger));
  app.notFound((c) => {
    if (c.req.path.startsWith("/api/")) {
      return errorJson(c, 404, "not_found", `no route ${c.req.method} ${c.req.path}`);
    }
    return c.text("not found\n", 404);
  });

  app.use("*", async (c, next) => {
    await next();
    const h = c.res.headers;
    if (!h.has("X-Content-Type-Options")) h.set("X-Content-Type-Options", "nosniff");
    if (!h.has("Referrer-Policy")) h.set("Referrer-Policy", "same-origin");
    if (!h.has("X-Frame-Options")) h.set("X-Frame-Options", "DENY");
  });
  // A declared oversized body is refused before any work; readJson caps the rest as it reads.
  app.use("/api/*", async (c, next) => {
    if (Number(c.req.header("Content-Length") ?? NaN) > BODY_MAX_BYTES) {
      return errorJson(c, 413, "payload_too_large", `request body over ${BODY_MAX_BYTES} bytes`);
    }
    await next();
  });
  app.use(
    "*",
    csrfMiddleware({ source: deps.csrf, secure: deps.baseUrl.startsWith("https:") }),
  );

  registerMachineRoutes(app, deps);
  registerJobRoutes(app, deps);
  registerInboxRoutes(app, deps);
  registerMemoryRoutes(app, deps);
  registerGovernorRoutes(app, deps);
  registerPushRoutes(app, deps);
  registerStatusRoutes(app, deps);
  registerEventRoutes(app, deps);
  registerPages(app, deps);
  return app;
}
