// The dashboard's static files, embedded through text imports (so a `deno compile` binary
// carries them and serving needs no file reads), with content hashes for cache-busting
// URLs and ETags. The page script is a set of ES modules (app.js imports the others), the
// stylesheet three files; there is no build step.

import { createHash } from "node:crypto";
import appJs from "./app.js" with { type: "text" };
import domJs from "./dom.js" with { type: "text" };
import jobFormJs from "./job_form.js" with { type: "text" };
import liveJs from "./live.js" with { type: "text" };
import panelsJs from "./panels.js" with { type: "text" };
import recipesJs from "./recipes.js" with { type: "text" };
import pushJs from "./push.js" with { type: "text" };
import pushWorkerLogicJs from "./push_worker_logic.js" with { type: "text" };
import serviceWorkerJs from "./sw.js" with { type: "text" };
import baseCss from "./base.css" with { type: "text" };
import controlsCss from "./controls.css" with { type: "text" };
import cardsCss from "./cards.css" with { type: "text" };
import historyCss from "./history.css" with { type: "text" };
import phoneCss from "./phone.css" with { type: "text" };
import memoryAdminJs from "./memory_admin.js" with { type: "text" };
import faviconSvg from "./favicon.svg" with { type: "text" };

export interface StaticAsset {
  body: string;
  type: string;
  /** First 12 hex digits of the SHA-256 of the body. */
  hash: string;
}

const JS = "text/javascript; charset=utf-8";
const CSS = "text/css; charset=utf-8";

function asset(body: string, type: string): StaticAsset {
  return { body, type, hash: createHash("sha256").update(body).digest("hex").slice(0, 12) };
}

export const STATIC_ASSETS: ReadonlyMap<string, StaticAsset> = new Map([
  ["app.js", asset(appJs, JS)],
  ["dom.js", asset(domJs, JS)],
  ["job_form.js", asset(jobFormJs, JS)],
  ["live.js", asset(liveJs, JS)],
  ["panels.js", asset(panelsJs, JS)],
  ["recipes.js", asset(recipesJs, JS)],
  ["push.js", asset(pushJs, JS)],
  ["push_worker_logic.js", asset(pushWorkerLogicJs, JS)],
  ["base.css", asset(baseCss, CSS)],
  ["controls.css", asset(controlsCss, CSS)],
  ["cards.css", asset(cardsCss, CSS)],
  ["history.css", asset(historyCss, CSS)],
  ["phone.css", asset(phoneCss, CSS)],
  ["memory_admin.js", asset(memoryAdminJs, JS)],
  ["favicon.svg", asset(faviconSvg, "image/svg+xml")],
]);

/** The push service worker, served at /sw.js so its scope is the whole dashboard. */
export const SERVICE_WORKER: StaticAsset = asset(serviceWorkerJs, JS);

/** Stylesheets in cascade order. */
export const STYLESHEETS = [
  "base.css",
  "controls.css",
  "cards.css",
  "history.css",
  "phone.css",
] as const;

/** The versioned URLs the layout links: the entry module and the stylesheets. */
export interface AssetUrls {
  script: string;
  styles: string[];
  icon: string;
}

function versioned(name: string): string {
  return `/static/${name}?v=${STATIC_ASSETS.get(name)!.hash}`;
}

export function assetUrls(): AssetUrls {
  return {
    script: versioned("app.js"),
    styles: STYLESHEETS.map(versioned),
    icon: versioned("favicon.svg"),
  };
}
