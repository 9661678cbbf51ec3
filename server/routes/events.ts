// GET /api/events: server-sent events for live pages (run status, inbox, job and governor
// changes). Each event is a small ping (see LiveEvent in server/deps.ts); pages refetch the
// JSON routes for details. A reconnect with Last-Event-ID replays the kept events it missed.

import type { Hono } from "hono";
import type { AppDeps, LiveEvent } from "../deps.ts";

const KEEPALIVE_MS = 25_000;
/** A client this far behind (queued chunks) is dropped; it reconnects and replays. */
const MAX_BACKLOG = 512;

function frame(event: LiveEvent): string {
  return `event: ${event.type}\nid: ${event.seq}\ndata: ${JSON.stringify(event)}\n\n`;
}

export function registerEventRoutes(app: Hono, deps: AppDeps): void {
  app.get("/api/events", (c) => {
    const { live, clock } = deps;
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
