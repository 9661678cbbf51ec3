// Waits for an outpost's `listening on <url>` line: the dev outpost of outpost_process_kit.ts,
// a container's log (container_kit.ts) and the release binaries (scripts/release_smoke.ts);
// and the free loopback port a test gives a server it starts. It imports nothing, so the
// release smoke check run on each target's runner loads no more.

/**
 * Reads an outpost's output until it has printed its `listening on <url>` line the `nth` time
 * (1 for a first start, 2 after a restart): that URL, or null when the output ended first,
 * with everything read (`seen`) for the failure message. The caller owns `reader`.
 */
export async function readListeningUrl(
  reader: ReadableStreamDefaultReader<string>,
  options: { nth?: number; pattern?: RegExp } = {},
): Promise<{ url: string | null; seen: string }> {
  const nth = options.nth ?? 1;
  const pattern = new RegExp(options.pattern ?? /listening on (http:\/\/\S+\/)/, "g");
  let seen = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { url: null, seen };
    seen += value;
    const urls = [...seen.matchAll(pattern)];
    if (urls.length >= nth) return { url: urls[nth - 1]![1]!, seen };
  }
}

/** A loopback port free at the moment of asking, for a server a test starts itself. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}
