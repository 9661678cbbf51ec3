// A TCP relay in front of the test cluster's PostgreSQL that can cut the network at one exact
// moment: once armed, after it has passed a client's COMMIT to the server, it drops the
// connection instead of passing the server's reply back. The server has committed; the client
// never hears it (the ambiguous COMMIT of core/store/README.md, "A lost server"). It runs as a
// Worker because the store's thread blocks while it waits for a reply.
//
// Messages in: { target: port } to start (answers { port }), "arm" (answers "armed").
// Out: "cut" each time a connection was dropped.

/// <reference lib="deno.worker" />

const COMMIT = new TextEncoder().encode("COMMIT");

function contains(haystack: Uint8Array, needle: Uint8Array): boolean {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) {
      if (haystack[i + j] !== needle[j]) continue outer;
    }
    return true;
  }
  return false;
}

let armed = false;

async function relay(client: Deno.Conn, target: number): Promise<void> {
  const server = await Deno.connect({ hostname: "127.0.0.1", port: target });
  let commitSent = false;
  const close = () => {
    try {
      client.close();
    } catch { /* closed already */ }
    try {
      server.close();
    } catch { /* closed already */ }
  };
  const up = (async () => {
    for await (const chunk of client.readable) {
      if (armed && contains(chunk, COMMIT)) {
        armed = false;
        commitSent = true;
      }
      await server.write(chunk);
    }
  })();
  const down = (async () => {
    for await (const chunk of server.readable) {
      if (commitSent) {
        close(); // the reply to COMMIT never reaches the client
        self.postMessage("cut");
        return;
      }
      await client.write(chunk);
    }
  })();
  await Promise.allSettled([up, down]);
  close();
}

self.onmessage = (event: MessageEvent<{ target: number } | "arm">) => {
  if (event.data === "arm") {
    armed = true;
    self.postMessage("armed");
    return;
  }
  const { target } = event.data;
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  self.postMessage({ port: (listener.addr as Deno.NetAddr).port });
  (async () => {
    for await (const conn of listener) relay(conn, target).catch(() => {});
  })();
};
