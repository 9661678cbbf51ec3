// GET /api/events: server-sent events for live pages (run status, inbox, job and governor
// changes). Each event is a small ping (see LiveEvent in server/deps.ts); pages refetch the
// JSON routes for details. A reconnect with Last-Event-ID replays the kept events it missed.

import type { Context, Hono } from "hono";
import type { AppDeps, LiveEvent } from "../deps.ts";
import { errorJson } from "../http/errors.ts";
import { peerAddress } from "../http/request.ts";
import { sanitizeTitle } from "../../core/delivery/sanitize.ts";
import { DEFAULT_STREAM_LIMITS, StreamSlots } from "../http/stream_slots.ts";

const KEEPALIVE_MS = 25_000;
/** A client this far behind (queued chunks) is dropped; it reconnects and replays. */
const MAX_BACKLOG = 512;

function frame(event: LiveEvent): string {
  return `event: ${event.type}\nid: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * Who a stream counts against. Behind the SSO proxy with AGENT_OUTPOST_TRUSTED_USER_HEADER set,
 * the signed-in user (the proxy overwrites that header); otherwise the TCP peer address.
 * X-Forwarded-For is never read: a client can write anything there. Behind a proxy without the
 * trusted header every user shares the proxy's address, so the per-client cap is then a cap
 * for all of them together (docs/dashboard-api.md).
 */
export function streamClient(c: Context, trustedHeader: string | null): string {
  if (trustedHeader) {
    const user = sanitizeTitle(c.req.header(trustedHeader) ?? "");
    if (user !== "") return `user:${user}`;
  }
  return peerAddress(c);
}

export function registerEventRoutes(app: Hono, deps: AppDeps): void {
  const slots = new StreamSlots(deps.eventStreamLimits ?? DEFAULT_STREAM_LIMITS);
  app.get("/api/events", (c) => {
    const { live, clock } = deps;
    const slot = slots.acquire(streamClient(c, deps.trustedUserHeader));
    if (!slot.ok) {
      c.header("Retry-After", "30");
      return slot.cap === "client"
        ? errorJson(
          c,
          429,
          "too_many_streams",
          `this client already has ${slot.limit} live event streams open; close a tab or ` +
            `reuse a stream`,
        )
        : errorJson(
          c,
          503,
          "streams_full",
          `the outpost already serves ${slot.limit} live event streams; try again later ` +
            `(pages fall back to polling)`,
        );
    }
    const lastId = Number(c.req.header("Last-Event-ID") ?? c.req.query("after") ?? NaN);
    const encoder = new TextEncoder();
    const stop = new AbortController();
    let unsubscribe = () => {};
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        const close = () => {
          if (stop.signal.aborted) return;
          stop.abort();
          unsubscribe();
          slot.release();
          try {
            controller.close();
          } catch { /* already closed */ }
        };
        const send = (text: string) => {
          if (stop.signal.aborted) return;
          if ((controller.desiredSize ?? 0) < -MAX_BACKLOG) return close();
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            close();
          }
        };
        send(`retry: 3000\nevent: hello\ndata: ${JSON.stringify({ seq: live.seq })}\n\n`);
        if (Number.isSafeInteger(lastId) && lastId >= 0) {
          for (const event of live.since(lastId)) send(frame(event));
        }
        unsubscribe = live.subscribe((event) => send(frame(event)), close);
        // Comments keep proxies from timing the idle stream out.
        (async () => {
          while (!stop.signal.aborted) {
            try {
              await clock.sleep(KEEPALIVE_MS, stop.signal);
            } catch {
              return;
            }
            send(": keepalive\n\n");
          }
        })();
      },
      cancel() {
        stop.abort();
        unsubscribe();
        slot.release();
      },
    });
    return new Response(body, {
      headers: {
        "Content-Type": "text/event-stream; charset=utf-8",
        "Cache-Control": "no-store",
        "X-Accel-Buffering": "no",
      },
    });
  });
}
