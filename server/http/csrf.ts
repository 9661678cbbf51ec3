// CSRF (spec 5.2): every mutating route of the human door checks the X-CSRF-Token header
// against an HttpOnly, SameSite=Strict cookie. The token is minted once per install and
// persisted (<home>/outpost/csrf_secret, mode 0600); verification only reads it. Pages get
// it through <meta name="csrf-token">; the cookie is (re)set on GET responses that lack it.
//
// A request passes when header, cookie and the install token are all the same value, so a
// cookie planted by a sibling origin cannot pair with a header of the attacker's choosing.
// The machine door (/api/v1/) skips this check: it authenticates with a bearer token and
// sends no cookie. So does the webhook door (/hooks/): each delivery carries an HMAC.

import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import { loadOrCreateSecretFile } from "../../core/secret_file.ts";
import type { CsrfTokenSource } from "../deps.ts";
import { ApiError } from "./errors.ts";

export const CSRF_COOKIE = "outpost_csrf";
export const CSRF_HEADER = "X-CSRF-Token";
/** Browsers cap cookie lifetimes at 400 days. */
const COOKIE_MAX_AGE_S = 400 * 24 * 3600;
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const TOKEN_RE = /^[A-Za-z0-9_-]{32,128}$/;

export function csrfSecretPath(home: string): string {
  return join(home, "outpost", "csrf_secret");
}

/** A token source over a fixed value (tests). */
export function fixedCsrfToken(token: string): CsrfTokenSource {
  if (!TOKEN_RE.test(token)) throw new TypeError("a CSRF token is 32..128 base64url characters");
  return { token: () => token };
}

/**
 * Reads the install's token, minting and persisting it (mode 0600) on first start. A file
 * that holds something else is an error naming the file, never silently replaced.
 */
export async function loadOrCreateCsrfToken(home: string): Promise<CsrfTokenSource> {
  const path = csrfSecretPath(home);
  const token = await loadOrCreateSecretFile(path);
  if (!TOKEN_RE.test(token)) {
    throw new Error(
      `${path} does not hold a CSRF token (32..128 base64url characters); delete it and ` +
        `restart to mint a new one (open dashboards then need a reload)`,
    );
  }
  return { token: () => token };
}

function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function isMachineDoor(path: string): boolean {
  return path === "/api/v1" || path.startsWith("/api/v1/");
}

/**
 * The webhook door of trigger recipes (server/routes/webhooks.ts): a code host sends no
 * cookie and has no session to forge a request with; each delivery is authenticated by the
 * HMAC of its body under the trigger's secret instead.
 */
export function isWebhookDoor(path: string): boolean {
  return path.startsWith("/hooks/");
}

export interface CsrfOptions {
  source: CsrfTokenSource;
  /** Adds Secure to the cookie (the dashboard is served over https). */
  secure: boolean;
}

export function csrfCookieHeader(token: string, secure: boolean): string {
  return `${CSRF_COOKIE}=${token}; Path=/; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; ` +
    `SameSite=Strict${secure ? "; Secure" : ""}`;
}

/**
 * Checks every non-GET request outside /api/v1/ and /hooks/ (403 otherwise) and hands out
 * the cookie.
 */
export function csrfMiddleware(options: CsrfOptions): MiddlewareHandler {
  return async (c, next) => {
    if (isMachineDoor(c.req.path) || isWebhookDoor(c.req.path)) return await next();
    const token = options.source.token();
    const cookie = getCookie(c, CSRF_COOKIE);
    if (SAFE_METHODS.has(c.req.method)) {
      await next();
      if (!same(cookie, token)) {
        c.res.headers.append("Set-Cookie", csrfCookieHeader(token, options.secure));
      }
      return;
    }
    const header = c.req.header(CSRF_HEADER);
    if (!same(cookie, token) || !same(header, token)) {
      const why = header === undefined
        ? `missing ${CSRF_HEADER} header`
        : cookie === undefined
        ? `missing ${CSRF_COOKIE} cookie`
        : `${CSRF_HEADER} does not match`;
      throw new ApiError(
        403,
        "csrf_failed",
        `CSRF check failed: ${why}; reload the dashboard page and retry`,
      );
    }
    await next();
  };
}

/** The meta tag a page puts in its <head> (the token is base64url: nothing to escape). */
export function csrfMetaTag(source: CsrfTokenSource): string {
  return `<meta name="csrf-token" content="${source.token()}">`;
}
