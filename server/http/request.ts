// Small request helpers shared by the routes: JSON bodies, ids, query numbers, the actor.

import type { Context } from "hono";
import { sanitizeTitle } from "../../core/delivery/sanitize.ts";
import { ApiError, badInput } from "./errors.ts";

/** The parsed JSON body, which must be an object. 400 (field "body") otherwise. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const value = await readJson(c);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw badInput("body", "expected a JSON object");
  }
  return value as Record<string, unknown>;
}

/** Largest request body accepted anywhere (a 32,000-character prompt fits many times). */
export const BODY_MAX_BYTES = 1024 * 1024;

function tooLarge(): ApiError {
  return new ApiError(413, "payload_too_large", `request body over ${BODY_MAX_BYTES} bytes`);
}

/** The body as text, refusing more than BODY_MAX_BYTES however it is framed (413). */
export async function readBodyText(c: Context): Promise<string> {
  const declared = Number(c.req.header("Content-Length") ?? NaN);
  if (declared > BODY_MAX_BYTES) throw tooLarge();
  const body = c.req.raw.body;
  if (!body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > BODY_MAX_BYTES) {
      await reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let off = 0;
  for (const chunk of chunks) {
    all.set(chunk, off);
    off += chunk.length;
  }
  return new TextDecoder().decode(all);
}

/** The parsed JSON body, or `fallback` when the body is empty. */
export async function readJson(c: Context, fallback?: unknown): Promise<unknown> {
  const text = await readBodyText(c);
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
