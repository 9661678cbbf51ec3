// The one gate every request body of the JSON API passes (both doors, /api/... and
// /api/v1/...): at most BODY_MAX_BYTES (413, read by capped_body.ts), declared as
// `application/json` with no charset or charset=utf-8 (415 otherwise), and valid UTF-8
// (400 otherwise: a lenient decoder would store U+FFFD in place of the bytes it could not
// read), and nested at most JSON_MAX_DEPTH deep (400 otherwise, core/json_depth.ts). The decoded text is kept on the context for readJson (server/http/request.ts), so
// no route reads the raw body itself. A request without body bytes passes untouched: POST
// /api/jobs/1/trigger needs no Content-Type.

import type { Context, MiddlewareHandler } from "hono";
import { readCapped } from "./capped_body.ts";
import { errorJson } from "./errors.ts";
import { jsonDepthRefusal } from "../../core/json_depth.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** The request body, checked and decoded by jsonBodyGate ("" when there was none). */
    jsonBodyText: string;
  }
}

/** Largest request body accepted anywhere (a 32,000-character prompt fits many times). */
export const BODY_MAX_BYTES = 1024 * 1024;

const BODYLESS_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Middleware for the JSON API, in order: the size cap, then type and encoding. Mount it
 * after the CSRF and bearer checks: `app.use("/api/*", ...jsonBodyGate())`.
 */
export function jsonBodyGate(): MiddlewareHandler[] {
  const check: MiddlewareHandler = async (c, next) => {
    if (BODYLESS_METHODS.has(c.req.method)) return await next();
    const bytes = await readCapped(c, BODY_MAX_BYTES);
    if (bytes === null) {
      return errorJson(c, 413, "payload_too_large", `request body over ${BODY_MAX_BYTES} bytes`);
    }
    if (bytes.length === 0) {
      c.set("jsonBodyText", "");
      return await next();
    }
    const refusal = mediaTypeRefusal(c.req.header("Content-Type"));
    if (refusal !== null) return errorJson(c, 415, "unsupported_media_type", refusal);
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      return invalidUtf8(c);
    }
    const tooDeep = jsonDepthRefusal(text);
    if (tooDeep !== null) return errorJson(c, 400, "json_too_deep", `body: ${tooDeep}`, "body");
    c.set("jsonBodyText", text);
    await next();
  };
  return [check];
}

function invalidUtf8(c: Context): Response {
  return errorJson(
    c,
    400,
    "invalid_utf8",
    "body: not valid UTF-8; send JSON encoded as UTF-8",
    "body",
  );
}

/**
 * Why a Content-Type is not acceptable for a JSON body, or null when it is:
 * `application/json`, optionally with `charset=utf-8` (any case, quoted or not).
 */
export function mediaTypeRefusal(header: string | undefined): string | null {
  const want = "send Content-Type: application/json (charset, if given, must be utf-8)";
  if (header === undefined || header.trim() === "") return `missing Content-Type; ${want}`;
  const [type = "", ...params] = header.split(";");
  if (type.trim().toLowerCase() !== "application/json") {
    return `Content-Type ${JSON.stringify(header)} is not accepted; ${want}`;
  }
  for (const param of params) {
    if (param.trim() === "") continue;
    const eq = param.indexOf("=");
    const name = (eq < 0 ? param : param.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? "" : param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1");
    if (name !== "charset" || value.toLowerCase() !== "utf-8") {
      return `Content-Type ${JSON.stringify(header)} is not accepted; ${want}`;
    }
  }
  return null;
}
