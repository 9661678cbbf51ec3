// createApp(deps): the outpost's whole HTTP surface as one Hono app, so tests drive it with
// app.request() and main.ts serves it. Order: error mapping, the Host check (421 for a name
// the outpost does not serve), security headers, the same-origin check of mutating requests,
// CSRF (human door) and bearer auth (machine door), the JSON body gate (size, type, UTF-8),
// then the routes, then the pages.

import { Hono } from "hono";
import { compress } from "hono/compress";
import { secureHeaders } from "hono/secure-headers";
import type { AppDeps } from "./deps.ts";
import { csrfMiddleware } from "./http/csrf.ts";
import { errorHandler, errorJson } from "./http/errors.ts";
import { jsonBodyGate } from "./http/json_body.ts";
import { machineAuth } from "./http/machine_auth.ts";
import {
  ALLOWED_HOSTS_ENV,
  hostGuard,
  parseAllowedHosts,
  sameOriginGuard,
  type ServedHostsSource,
} from "./http/served_hosts.ts";
import { registerEventRoutes } from "./routes/events.ts";
import { registerFleetRoutes } from "./routes/fleet.tsx";
import { registerGovernorRoutes } from "./routes/governor.ts";
import { registerHistoryPages } from "./routes/history.tsx";
import { registerInboxRoutes } from "./routes/inbox.ts";
import { registerJobRoutes } from "./routes/jobs.ts";
import { registerMachineRoutes } from "./routes/machine_v1.ts";
import { registerMemoryRoutes } from "./routes/memory.ts";
import { registerMemoryAdminRoutes } from "./routes/memory_admin.ts";
import { notFoundPage, registerPages } from "./routes/pages.ts";
import { registerPushRoutes } from "./routes/push.ts";
import { registerRecipeRoutes } from "./routes/recipes.ts";
import { registerStatusRoutes } from "./routes/status.ts";
import { registerWebhookRoutes } from "./routes/webhooks.ts";

export function createApp(deps: AppDeps): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.logger));
  app.notFound((c) => {
    if (c.req.path.startsWith("/api/")) {
      return errorJson(c, 404, "not_found", `no route ${c.req.method} ${c.req.path}`);
    }
    return notFoundPage(c, deps);
  });

  // First: a request addressed to another name (a rebound DNS name) gets nothing else.
  // deps.listen and deps.baseUrl are read per request: serve.ts sets them once bound.
  const allowed = parseAllowedHosts(deps.env.get(ALLOWED_HOSTS_ENV));
  const served = (): ServedHostsSource => ({
    baseUrl: deps.baseUrl,
    allowed,
    ...(deps.listen ? { listen: deps.listen } : {}),
  });
  app.use("*", hostGuard(served));

  // Pages, JSON and static files over 1 KiB go out gzip-compressed when the client accepts it
  // (a 40 KiB landing page is 8 KiB): phones reach the outpost over mobile networks. The event
  // stream is never compressed (the middleware's type filter leaves text/event-stream alone).
  // It runs only for a request that accepts gzip or deflate: it reads the built response to
  // decide, and that alone doubled every page's p99 for the clients it then left alone
  // (in process, /audit p99 0.7 -> 2.2 ms; scripts/bench_outpost_http.ts --identity).
  const gzip = compress();
  app.use(
    "*",
    (c, next) => acceptsCompression(c.req.header("Accept-Encoding")) ? gzip(c, next) : next(),
  );
  // A header a route set itself is kept (the pages' CSP and no-referrer, a report's sandbox).
  // HSTS is the TLS-terminating proxy's to send (docs/deployment.md), not this loopback server's.
  app.use(
    "*",
    secureHeaders({
      referrerPolicy: "same-origin",
      xFrameOptions: "DENY",
      strictTransportSecurity: false,
      overwrite: false,
    }),
  );
  app.use("*", sameOriginGuard(served));
  app.use(
    "*",
    csrfMiddleware({ source: deps.csrf, secure: deps.baseUrl.startsWith("https:") }),
  );
  app.use("/api/v1/*", machineAuth(deps.store));
  app.use("/api/v1", machineAuth(deps.store));
  // After both doors' checks, so an unauthenticated body is never read.
  app.use("/api/*", ...jsonBodyGate());

  registerMachineRoutes(app, deps);
  registerJobRoutes(app, deps);
  registerInboxRoutes(app, deps);
  registerMemoryRoutes(app, deps);
  registerMemoryAdminRoutes(app, deps);
  registerGovernorRoutes(app, deps);
  registerPushRoutes(app, deps);
  registerStatusRoutes(app, deps);
  registerFleetRoutes(app, deps);
  registerRecipeRoutes(app, deps);
  registerWebhookRoutes(app, deps);
  registerEventRoutes(app, deps);
  registerHistoryPages(app, deps);
  registerPages(app, deps);
  return app;
}

/** Whether an Accept-Encoding header lists gzip or deflate (with any q but 0). */
export function acceptsCompression(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    if (name !== "gzip" && name !== "deflate") return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
