// The fake model server's streamed answer: a text/event-stream body played from a reply's
// actions (frames, a hang until the client leaves or the server closes, a gate, a scripted
// connection reset), optionally split into small writes the way a real network splits them.

import type { StreamAction } from "./model_server_chat.ts";

/** A stream still being written; `wake` ends a hang or a gate early (client gone, close). */
export interface OpenStream {
  wake(): void;
}

export interface StreamOptions {
  /** Split every frame into writes of this many bytes (default: one write a frame). */
  chunkBytes: number | undefined;
  /** The server's open streams: this one is in it until its last write. */
  streams: Set<OpenStream>;
  /** True once the server is closing: the stream stops writing. */
  closing: () => boolean;
  /** The client closed the connection before the stream's end. */
  clientGone: () => void;
}

const encoder = new TextEncoder();

export function sseResponse(actions: readonly StreamAction[], options: StreamOptions): Response {
  let open: OpenStream | undefined;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let wake = () => {};
      const woken = new Promise<void>((resolve) => (wake = resolve));
      open = { wake };
      options.streams.add(open);
      const write = (text: string) => {
        const bytes = encoder.encode(text);
        const size = options.chunkBytes ?? bytes.length;
        for (let i = 0; i < bytes.length; i += size) {
          controller.enqueue(bytes.subarray(i, i + size));
        }
      };
      (async () => {
        for (const action of actions) {
          if (options.closing()) break;
          if (action.type === "frame") write(action.text);
          else if (action.type === "hang") await woken;
          else if (action.type === "gate") await Promise.race([action.opened, woken]);
          else {
            // Deno aborts the connection (and logs this one line).
            controller.error(
              new DOMException("fake model server: scripted connection reset", "AbortError"),
            );
            return;
          }
        }
        controller.close();
      })().catch(() => {/* the client went away */}).finally(() => {
        if (open) options.streams.delete(open);
      });
    },
    cancel() {
      // Deno cancels a response body when its connection closes before the body's end.
      options.clientGone();
      open?.wake();
    },
  });
  return new Response(body, {
    headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
  });
}
