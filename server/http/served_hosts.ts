// Which names the outpost answers to, and which origins may change its state (issue 37, DNS
// rebinding). A web page the operator visits can point its own name at 127.0.0.1; the
// browser then treats the outpost as that page's origin, so the page could read the CSRF
// token and drive the API. Two rules close that, both written once here:
//
// 1. hostGuard, first in the chain: a request whose Host (and request-target host) is not a
//    name the outpost serves gets 421 and one plain line. Served names: the bound address
//    with its port, localhost / 127.0.0.1 / [::1] with the bound port, the host of the
//    public base URL (--base-url), and the names in AGENT_OUTPOST_ALLOWED_HOSTS (a reverse
//    proxy's). GET /healthz alone is exempt: it answers {ok: true} and nothing else (the
//    container's probe sends `Host: localhost` without a port).
// 2. sameOriginGuard: a mutating request (not GET/HEAD/OPTIONS) on any door whose Origin is
//    present and is not one of those served names, or whose Sec-Fetch-Site is present and is
//    neither same-origin nor none, gets 403. A request with neither header passes this rule:
//    browsers send them, programs (curl, the machine door's clients, code hosts' webhooks)
//    do not, and those are held by their own checks (CSRF, bearer token, HMAC).

import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors.ts";

export const ALLOWED_HOSTS_ENV = "AGENT_OUTPOST_ALLOWED_HOSTS";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];
/** A host name, IPv4 address or [IPv6] literal, with an optional port. */
const HOST_RE = /^(?:[a-z0-9_-]+(?:\.[a-z0-9_-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/;

/** What the served names are made of; read on every request (the port is known after bind). */
export interface ServedHostsSource {
  /** The bound address, once listening (server/commands/serve.ts sets it). */
  listen?: { hostname: string; port: number };
  /** The public base URL (deps.baseUrl). */
  baseUrl: string;
  /** Names from AGENT_OUTPOST_ALLOWED_HOSTS (parseAllowedHosts). */
  allowed: readonly string[];
}

/**
 * One Host value in comparable form: lower case, no trailing dot, no default port (a browser
 * leaves :80 and :443 out of Host and Origin). Null for anything that is not a host.
 */
export function normalizeHost(raw: string): string | null {
  let host = raw.trim().toLowerCase();
  if (host.length > 260 || !HOST_RE.test(host)) return null;
  host = host.replace(/\.(?=:\d+$|$)/, "");
  return host.replace(/:(?:80|443)$/, "");
}

/**
 * Parses AGENT_OUTPOST_ALLOWED_HOSTS: comma-separated host names, each with an optional port
 * (`outpost.example.org, outpost.internal:8443`). Throws naming the bad entry.
 */
export function parseAllowedHosts(text: string | undefined): string[] {
  const out: string[] = [];
  for (const entry of (text ?? "").split(",")) {
    if (entry.trim() === "") continue;
    const host = normalizeHost(entry);
    if (host === null || entry.includes("/")) {
      throw new Error(
        `${ALLOWED_HOSTS_ENV}: ${JSON.stringify(entry.trim())} is not a host name ` +
          "(expected comma-separated names such as outpost.example.org or outpost.lan:8443)",
      );
    }
    out.push(host);
  }
  return out;
}

function withPort(host: string, port: number): string | null {
  return normalizeHost(`${host}:${port}`);
}

/** Every name the outpost answers to, normalized. */
export function servedHosts(source: ServedHostsSource): Set<string> {
  const hosts = new Set<string>(source.allowed);
  if (source.listen) {
    const { hostname, port } = source.listen;
    const bound = hostname.includes(":") && !hostname.startsWith("[") ? `[${hostname}]` : hostname;
    // A wildcard bind (0.0.0.0, [::]) is served under that literal too: it is what the
    // listening line prints, and an address literal cannot be rebound by anyone's DNS.
    for (const name of [bound, ...LOOPBACK_NAMES]) {
      const host = withPort(name, port);
      if (host !== null) hosts.add(host);
    }
  }
  try {
    const base = normalizeHost(new URL(source.baseUrl).host);
    if (base !== null) hosts.add(base);
  } catch {
    // serveConfig refuses a base URL that does not parse; tests may pass anything.
  }
  return hosts;
}

function requestHosts(url: string, hostHeader: string | undefined): string[] {
  // The request-target's host is what routing sees; Host is what the browser addressed.
  // An absolute-form target may differ from Host, so both must be served names.
  const hosts = [new URL(url).host];
  if (hostHeader !== undefined) hosts.push(hostHeader);
  return hosts;
}

/** 421 for a request addressed to a name the outpost does not serve (rule 1 above). */
export function hostGuard(source: () => ServedHostsSource): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.path === "/healthz" && (c.req.method === "GET" || c.req.method === "HEAD")) {
      return await next();
    }
    const served = servedHosts(source());
    for (const raw of requestHosts(c.req.url, c.req.header("Host"))) {
      const host = normalizeHost(raw);
      if (host === null || !served.has(host)) {
        return c.text(
          `misdirected request: this outpost does not serve the host ${
            JSON.stringify(raw.slice(0, 100))
          } (a proxy's name goes in ${ALLOWED_HOSTS_ENV})\n`,
          421,
          { "Cache-Control": "no-store" },
        );
      }
    }
    await next();
  };
}

/** Why a mutating request's browser headers refuse it, or null when they do not. */
export function crossOriginRefusal(
  served: ReadonlySet<string>,
  origin: string | undefined,
  fetchSite: string | undefined,
): string | null {
  if (fetchSite !== undefined) {
    const site = fetchSite.trim().toLowerCase();
    if (site !== "same-origin" && site !== "none") {
      return `Sec-Fetch-Site is ${JSON.stringify(fetchSite.slice(0, 40))}, not same-origin`;
    }
  }
  if (origin !== undefined) {
    let host: string | null = null;
    try {
      const url = new URL(origin);
      if (url.protocol === "http:" || url.protocol === "https:") host = normalizeHost(url.host);
    } catch {
      host = null;
    }
    if (host === null || !served.has(host)) {
      return `Origin ${JSON.stringify(origin.slice(0, 100))} is not this outpost`;
    }
  }
  return null;
}

/** 403 for a mutating request a browser sent from another origin (rule 2 above). */
export function sameOriginGuard(source: () => ServedHostsSource): MiddlewareHandler {
  return async (c, next) => {
    if (!SAFE_METHODS.has(c.req.method)) {
      const why = crossOriginRefusal(
        servedHosts(source()),
        c.req.header("Origin"),
        c.req.header("Sec-Fetch-Site"),
      );
      if (why !== null) {
        throw new ApiError(403, "cross_origin_refused", `cross-origin request refused: ${why}`);
      }
    }
    await next();
  };
}
