// Small request helpers shared by the routes: JSON bodies, ids, query numbers, the actor.

import type { Context } from "hono";
import { sanitizeTitle } from "../../core/delivery/sanitize.ts";
import { ApiError, badInput } from "./errors.ts";
import "./json_body.ts"; // declares the jsonBodyText context variable

/** The parsed JSON body, which must be an object. 400 (field "body") otherwise. */
export function readJsonObject(c: Context): Record<string, unknown> {
  const value = readJson(c);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badInput("body", "expected a JSON object");
  }
  return value as Record<string, unknown>;
}

/**
 * The request body as text, as checked and decoded by jsonBodyGate (server/http/json_body.ts:
 * size, Content-Type, UTF-8). A route outside the gate is a wiring mistake, reported as one.
 */
export function readBodyText(c: Context): string {
  const text = c.get("jsonBodyText");
  if (text === undefined) {
    throw new Error(`readBodyText: ${c.req.method} ${c.req.path} is not behind jsonBodyGate`);
  }
  return text;
}

/** The parsed JSON body, or `fallback` when the body is empty. */
export function readJson(c: Context, fallback?: unknown): unknown {
  const text = readBodyText(c);
  if (text.trim() === "") {
    if (fallback !== undefined) return fallback;
    throw badInput("body", "empty; send a JSON object with Content-Type: application/json");
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new ApiError(
      400,
      "invalid_json",
      `body: not valid JSON (${(err as Error).message})`,
      "body",
    );
  }
}

/** A path id; routes only match digits, so this just converts (and bounds) it. */
export function pathId(c: Context, name: string): number {
  const n = Number(c.req.param(name));
  if (!Number.isSafeInteger(n) || n < 1) throw new ApiError(404, "not_found", `no such ${name}`);
  return n;
}

/** Regex fragment for numeric path params: `/api/jobs/:id{${ID}}`. */
export const ID = "[0-9]{1,15}";

/** An optional whole-number query parameter within bounds (400 naming it otherwise). */
export function queryInt(
  c: Context,
  name: string,
  min: number,
  max: number,
  fallback: number | undefined,
): number | undefined {
  const raw = c.req.query(name);
  if (raw === undefined || raw === "") return fallback;
  const n = /^\d{1,12}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= min && n <= max)) {
    throw badInput(name, `expected a whole number in ${min}..${max}, got ${JSON.stringify(raw)}`);
  }
  return n;
}

/**
 * Who is acting on the human door: the user the SSO proxy names in the configured header,
 * else "dashboard". No header is trusted unless one is configured.
 */
export function humanActor(c: Context, trustedHeader: string | null): string {
  if (!trustedHeader) return "dashboard";
  const value = sanitizeTitle(c.req.header(trustedHeader) ?? "");
  return value === "" ? "dashboard" : `user:${value}`;
}

/**
 * The TCP peer of a request, as limiters and tallies key a client: `addr:<ip>`.
 * X-Forwarded-For is never read: a client can write anything there.
 */
export function peerAddress(c: Context): string {
  const info = c.env as { remoteAddr?: { hostname?: string } } | undefined;
  return `addr:${info?.remoteAddr?.hostname ?? "unknown"}`;
}
