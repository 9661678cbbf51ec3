// A request body read up to a byte cap, for the two doors that take bodies (the JSON API's
// jsonBodyGate and the webhook door). It reads the request's own stream and never builds a
// new Request around it: `new Request(request, …)` reads `request.signal`, and Deno.serve then
// warns on every successful response ("request.signal aborts on successful responses (legacy
// behavior)"), which hono/body-limit did for each chunked body.

import type { Context } from "hono";
import { concatBytes } from "../../core/bytes.ts";

/** The raw body, or null once it passes `max` bytes (the rest is never read). */
export async function readCapped(c: Context, max: number): Promise<Uint8Array | null> {
  const declared = Number(c.req.header("Content-Length") ?? "0");
  if (Number.isFinite(declared) && declared > max) {
    await c.req.raw.body?.cancel().catch(() => {});
    return null;
  }
  const reader = c.req.raw.body?.getReader();
  if (!reader) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel().catch(() => {});
      return null;
    }
    chunks.push(value);
  }
  return chunks.length === 0 ? new Uint8Array() : concatBytes(chunks);
}
