// The dashboard's server-rendered pages (spec 4.5): the landing page, /jobs?before=<id> (older
// pages of the job list), /runs/<job>/<run>,
// /inbox/<id>, the static page script and stylesheet, and /partials/* — the HTML fragments
// of each live region, which the page script re-fetches when /api/events says something
// changed (or on its polling fallback). Every response carries a strict CSP: scripts and
// styles only from this origin, no inline code, no framing.

import type { Context, Hono } from "hono";
import type { AppDeps } from "../deps.ts";
import { assetUrls, SERVICE_WORKER, STATIC_ASSETS, type StaticAsset } from "../static/assets.ts";
import { type Rendered, renderPage, renderPartial } from "../views/render.tsx";

export const PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "worker-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Headers on every page and partial. */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  "Content-Security-Policy": PAGE_CSP,
  "X-Content-Type-Options": "nosniff",
  "Referrer-Policy": "no-referrer",
  "X-Frame-Options": "DENY",
  "Cache-Control": "no-store",
};

const ID_RE = /^[1-9][0-9]{0,14}$/;

/** A positive id from a path segment, or null (the page then answers the friendly 404). */
function parseId(text: string | undefined): number | null {
  return text !== undefined && ID_RE.test(text) ? Number(text) : null;
}

function send(c: Context, out: Rendered): Response {
  return c.html(out.html, out.status, PAGE_HEADERS);
}

export function registerPages(app: Hono, deps: AppDeps): void {
  const assets = assetUrls();

  app.get("/", async (c) => send(c, await renderPage(deps, assets, { page: "landing" })));

  // Older pages of the job list; a missing or malformed `before` is the newest page.
  app.get("/jobs", async (c) => {
    const before = parseId(c.req.query("before"));
    return send(c, await renderPage(deps, assets, { page: "jobs", before }));
  });

  app.get("/runs/:job/:run", async (c) => {
    const job = parseId(c.req.param("job"));
    const run = parseId(c.req.param("run"));
    return send(c, await renderPage(deps, assets, { page: "run", job, run }));
  });

  app.get("/inbox/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    return send(c, await renderPage(deps, assets, { page: "inbox", id }));
  });

  app.get("/partials/:name", async (c) => {
    const name = c.req.param("name");
    if (name === "jobs") {
      const before = parseId(c.req.query("before"));
      return send(c, await renderPartial(deps, { name, before }));
    }
    return send(c, await renderPartial(deps, { name }));
  });

  app.get("/partials/run/:job/:run", async (c) => {
    const job = parseId(c.req.param("job"));
    const run = parseId(c.req.param("run"));
    return send(c, await renderPartial(deps, { name: "run", job, run }));
  });

  app.get("/partials/inbox-item/:id", async (c) => {
    const id = parseId(c.req.param("id"));
    return send(c, await renderPartial(deps, { name: "inbox-item", id }));
  });

  // The push service worker lives at the root so its scope covers every page; browsers
  // revalidate it themselves, and no-cache keeps an update one fetch away. Its logic module
  // sits beside it, so sw.js imports "./push_worker_logic.js" both here and on disk.
  const workerScript = (asset: StaticAsset) => (c: Context) =>
    c.body(asset.body, 200, {
      "Content-Type": asset.type,
      "Content-Security-Policy": "default-src 'none'; script-src 'self'; connect-src 'self'",
      "X-Content-Type-Options": "nosniff",
      "Cache-Control": "no-cache",
    });
  app.get("/sw.js", workerScript(SERVICE_WORKER));
  app.get("/push_worker_logic.js", workerScript(STATIC_ASSETS.get("push_worker_logic.js")!));

  app.get("/static/:file", (c) => {
    const asset = STATIC_ASSETS.get(c.req.param("file"));
    if (!asset) {
      return c.text("no such static file", 404, { "X-Content-Type-Options": "nosniff" });
    }
    const etag = `"${asset.hash}"`;
    const versioned = c.req.query("v") === asset.hash;
    const headers: Record<string, string> = {
      "Content-Type": asset.type,
      "X-Content-Type-Options": "nosniff",
      ETag: etag,
      // A URL carrying the content hash never changes; a bare one must revalidate.
      "Cache-Control": versioned ? "public, max-age=31536000, immutable" : "no-cache",
    };
    // Compression weakens the ETag it sends (W/"…"), so a revalidation may carry either form.
    const sent = c.req.header("If-None-Match")?.replace(/^W\//, "");
    if (sent === etag) return c.body(null, 304, headers);
    return c.body(asset.body, 200, headers);
  });
}

/** The friendly 404 page for any other path (app.ts may use it in its notFound). */
export async function notFoundPage(c: Context, deps: AppDeps): Promise<Response> {
  return send(c, await renderPage(deps, assetUrls(), { page: "missing", path: c.req.path }));
}
