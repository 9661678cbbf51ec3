// The plain-http client against a raw TCP server that writes exactly the bytes each case needs
// (framing split across reads, bad heads, cut bodies, aborts), and modelServerFetch's choice
// between it and fetch. The wires' own errors through this client: transport_test.ts.

import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import { envFrom, type Fetch } from "../ports.ts";
import { modelServerFetch, plainHttpFetch } from "./plain_http.ts";

interface Received {
  head: string;
  body: string;
}

interface RawServer {
  url: string;
  received: Received[];
  /** Settles when every connection accepted so far has been handled and closed. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A server on loopback that reads each request (head, then a Content-Length body) and hands
 * the connection to `respond`, then closes it. `respond` writes raw response bytes.
 */
function rawServer(respond: (conn: Deno.Conn, req: Received) => Promise<void>): RawServer {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const received: Received[] = [];
  const handling: Promise<void>[] = [];
  const accepting = (async () => {
    for await (const conn of listener) {
      handling.push((async () => {
        try {
          const req = await readRequest(conn);
          received.push(req);
          await respond(conn, req);
        } catch {
          /* the client went away: that is some cases' point */
        } finally {
          try {
            conn.close();
          } catch { /* already closed */ }
        }
      })());
    }
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    idle: async () => void await Promise.all(handling),
    close: async () => {
      listener.close();
      await accepting.catch(() => {});
      await Promise.all(handling);
    },
  };
}

async function readRequest(conn: Deno.Conn): Promise<Received> {
  let bytes = new Uint8Array(0);
  const buf = new Uint8Array(4096);
  const text = () => new TextDecoder().decode(bytes);
  while (!text().includes("\r\n\r\n")) {
    const n = await conn.read(buf);
    if (n === null) throw new Error("client closed before its head ended");
    bytes = new Uint8Array([...bytes, ...buf.subarray(0, n)]);
  }
  const [head = "", rest = ""] = text().split(/\r\n\r\n(.*)/s);
  const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
  let body = rest;
  while (new TextEncoder().encode(body).length < length) {
    const n = await conn.read(buf);
    if (n === null) break;
    body += new TextDecoder().decode(buf.subarray(0, n));
  }
  return { head, body };
}

const encode = (s: string) => new TextEncoder().encode(s);

/** Writes each piece separately with a pause, so the client sees them in separate reads. */
async function writePieces(conn: Deno.Conn, pieces: (string | Uint8Array)[]): Promise<void> {
  for (const piece of pieces) {
    await conn.write(typeof piece === "string" ? encode(piece) : piece);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** A fetch that records what was handed to it and answers 200 "from fetch". */
function spyFetch(): { fetch: Fetch; calls: string[] } {
  const calls: string[] = [];
  const fetch = ((input: string | URL | Request) => {
    calls.push(String(input));
    return Promise.resolve(new Response("from fetch"));
  }) as Fetch;
  return { fetch, calls };
}

async function withServer(
  respond: (conn: Deno.Conn, req: Received) => Promise<void>,
  body: (server: RawServer) => Promise<void>,
): Promise<void> {
  const server = rawServer(respond);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

Deno.test("plain http: sends one framed request: path, query, host, length, no compression", async () => {
  await withServer(
    (conn) => writePieces(conn, ["HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok"]),
    async (server) => {
      const res = await plainHttpFetch(`${server.url}/v1/chat/completions?x=1`, {
        method: "POST",
        headers: { "Content-Type": "application/json", authorization: "Bearer k" },
        body: '{"a":"ü"}',
      });
      equal(await res.text(), "ok");
      await server.idle();
      const [req] = server.received;
      const lines = req!.head.split("\r\n");
      equal(lines[0], "POST /v1/chat/completions?x=1 HTTP/1.1");
      const port = new URL(server.url).port;
      for (
        const line of [
          `host: 127.0.0.1:${port}`,
          "content-type: application/json",
          "authorization: Bearer k",
          "content-length: 10", // bytes, not characters: ü is two
          "accept-encoding: identity",
          "connection: close",
        ]
      ) ok(lines.includes(line), `${line} in ${JSON.stringify(lines)}`);
      equal(req!.body, '{"a":"ü"}');
    },
  );
});

Deno.test("plain http: a chunked body split across reads, with an extension and a trailer", async () => {
  await withServer(
    (conn) =>
      writePieces(conn, [
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n",
        "\r\n5;ext=1\r\nhel",
        "lo\r\n",
        "e\r\n, world, ag",
        "ain\r",
        "\n0\r\nx-trailer: 1\r\n",
        "\r\n",
      ]),
    async (server) => {
      const res = await plainHttpFetch(`${server.url}/s`);
      equal(res.status, 200);
      ok(res.ok);
      equal(res.headers.get("CONTENT-TYPE"), "text/event-stream");
      equal(res.headers.get("x-absent"), null);
      equal(await res.text(), "hello, world, again");
    },
  );
});

Deno.test("plain http: a body without a length ends when the server closes", async () => {
  await withServer(
    (conn) => writePieces(conn, ["HTTP/1.0 200 OK\r\n\r\n", "data: 1\n\n", "data: 2\n\n"]),
    async (server) => {
      const res = await plainHttpFetch(`${server.url}/s`);
      const reader = res.body!.getReader();
      const parts: string[] = [];
      for (let r = await reader.read(); !r.done; r = await reader.read()) {
        parts.push(new TextDecoder().decode(r.value));
      }
      equal(parts.join(""), "data: 1\n\ndata: 2\n\n");
      ok(parts.length >= 2, "the body streams as it arrives, not all at the end");
    },
  );
});

Deno.test("plain http: 100 Continue is skipped; 204 has no body; headers repeat joined", async () => {
  await withServer(
    (conn) =>
      writePieces(conn, [
        "HTTP/1.1 100 Continue\r\n\r\n",
        "HTTP/1.1 204 No Content\r\nvary: a\r\nVary: b\r\n\r\n",
      ]),
    async (server) => {
      const res = await plainHttpFetch(`${server.url}/s`);
      equal(res.status, 204);
      equal(res.headers.get("vary"), "a, b");
      equal(await res.text(), "");
    },
  );
});

Deno.test("plain http: an error status is a response, not a failure", async () => {
  await withServer(
    (conn) =>
      writePieces(conn, [
        'HTTP/1.1 429 Too Many Requests\r\nretry-after: 2\r\ncontent-length: 11\r\n\r\n{"e":"slow"}',
      ]),
    async (server) => {
      const res = await plainHttpFetch(`${server.url}/s`);
      equal(res.ok, false);
      equal(res.status, 429);
      equal(res.headers.get("retry-after"), "2");
      equal(await res.text(), '{"e":"slow"', "exactly content-length bytes");
    },
  );
});

Deno.test("plain http: a gzip answer is decoded although identity was asked for", async () => {
  const zipped = new Uint8Array(
    await new Response(
      new Blob(["compressed answer"]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
  await withServer(
    (conn) =>
      writePieces(conn, [
        `HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: ${zipped.length}\r\n\r\n`,
        zipped,
      ]),
    async (server) => {
      equal(await (await plainHttpFetch(`${server.url}/s`)).text(), "compressed answer");
    },
  );
});

Deno.test("plain http: a redirect goes to fetch with the same request", async () => {
  await withServer(
    (conn) =>
      writePieces(conn, [
        "HTTP/1.1 307 Temporary Redirect\r\nlocation: /v2\r\ncontent-length: 0\r\n\r\n",
      ]),
    async (server) => {
      const spy = spyFetch();
      const res = await plainHttpFetch(
        `${server.url}/v1`,
        { method: "POST", body: "{}" },
        spy.fetch,
      );
      equal(await res.text(), "from fetch");
      deepEqual(spy.calls, [`${server.url}/v1`]);
    },
  );
});

Deno.test("plain http: a connection it cannot open goes to fetch (which tries every address)", async () => {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const url = `http://127.0.0.1:${(l.addr as Deno.NetAddr).port}/v1/models`;
  l.close();
  const spy = spyFetch();
  equal(await (await plainHttpFetch(url, {}, spy.fetch)).text(), "from fetch");
  deepEqual(spy.calls, [url]);
  // And with the real fetch, the refusal is fetch's own error.
  await rejects(plainHttpFetch(url), (e: unknown) => {
    ok(e instanceof TypeError);
    equal(e.message, "fetch failed");
    match(String((e.cause as Error).message), /connection refused/i);
    return true;
  });
});

for (
  const [what, pieces, error] of [
    [
      "a status line that is not HTTP/1.1",
      ["SSH-2.0-OpenSSH\r\n\r\n"],
      /not an HTTP\/1\.1 status line/,
    ],
    ["a close before any answer", [], /closed the connection without a response/],
    ["a close inside the head", ["HTTP/1.1 200 OK\r\ncontent-"], /inside the response head/],
    ["a header line without a colon", ["HTTP/1.1 200 OK\r\nbroken\r\n\r\n"], /malformed header/],
    [
      "an encoding it cannot decode",
      ["HTTP/1.1 200 OK\r\ncontent-encoding: br\r\n\r\n"],
      /unsupported content-encoding: br/,
    ],
  ] as [string, string[], RegExp][]
) {
  Deno.test(`plain http: ${what} is a clear error`, async () => {
    await withServer((conn) => writePieces(conn, pieces), async (server) => {
      await rejects(plainHttpFetch(`${server.url}/s`), error);
    });
  });
}

for (
  const [what, pieces, error] of [
    [
      "a body cut short of its content-length",
      ["HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc"],
      /the body ended 7 bytes short/,
    ],
    [
      "a chunked body cut inside a chunk",
      ["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\na\r\nabc"],
      /the body ended inside a chunk/,
    ],
    [
      "a chunk size that is not hex",
      ["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n"],
      /bad chunk size/,
    ],
  ] as [string, string[], RegExp][]
) {
  Deno.test(`plain http: ${what} fails the read`, async () => {
    await withServer((conn) => writePieces(conn, pieces), async (server) => {
      const res = await plainHttpFetch(`${server.url}/s`);
      await rejects(res.text(), error);
    });
  });
}

Deno.test("plain http: an abort while waiting for the head rejects with its reason", async () => {
  let hung = () => {};
  const hanging = new Promise<void>((r) => (hung = r));
  await withServer(async (conn) => {
    hung();
    await conn.read(new Uint8Array(16)); // until the client closes
  }, async (server) => {
    const ctl = new AbortController();
    const reason = new Error("esc");
    const pending = plainHttpFetch(`${server.url}/s`, { signal: ctl.signal });
    await hanging;
    ctl.abort(reason);
    await rejects(pending, (e) => e === reason);
  });
});

Deno.test("plain http: an abort mid-body rejects the read and closes the connection", async () => {
  let serverSawClose = false;
  await withServer(async (conn) => {
    await writePieces(conn, ["HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n"]);
    serverSawClose = (await conn.read(new Uint8Array(16))) === null;
  }, async (server) => {
    const ctl = new AbortController();
    const reason = new Error("esc");
    const res = await plainHttpFetch(`${server.url}/s`, { signal: ctl.signal });
    const reader = res.body!.getReader();
    equal(new TextDecoder().decode((await reader.read()).value), "abc");
    const next = reader.read();
    ctl.abort(reason);
    await rejects(next, (e) => e === reason);
    await server.idle();
    ok(serverSawClose, "the server saw the client close the connection");
  });
});

Deno.test("plain http: an aborted signal or a bad header sends nothing", async () => {
  await withServer(() => Promise.resolve(), async (server) => {
    const ctl = new AbortController();
    const reason = new Error("before");
    ctl.abort(reason);
    await rejects(plainHttpFetch(`${server.url}/s`, { signal: ctl.signal }), (e) => e === reason);
    await rejects(
      plainHttpFetch(`${server.url}/s`, { headers: { "x-evil": "a\r\nhost: elsewhere" } }),
      TypeError,
    );
    await rejects(plainHttpFetch(`${server.url}/s`, { headers: { "bad name": "v" } }), TypeError);
    // Not a byte string (fetch refuses it the same way).
    await rejects(plainHttpFetch(`${server.url}/s`, { headers: { "x-key": "k€y" } }), TypeError);
    await server.idle();
    equal(server.received.length, 0);
  });
});

Deno.test("plain http: a body is read once", async () => {
  await withServer(
    (conn) => writePieces(conn, ["HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}"]),
    async (server) => {
      const res = await plainHttpFetch(`${server.url}/s`);
      deepEqual(await res.json(), {});
      await rejects(res.text(), TypeError);
    },
  );
});

Deno.test("modelServerFetch: plain http for http URLs; fetch for https and behind a proxy", async () => {
  await withServer(
    (conn) => writePieces(conn, ["HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nplain"]),
    async (server) => {
      const spy = spyFetch();
      const direct = modelServerFetch(envFrom({}), spy.fetch);
      equal(await (await direct(`${server.url}/v1/models`)).text(), "plain");
      equal(await (await direct("https://api.example.invalid/v1/models")).text(), "from fetch");
      for (const name of ["HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"]) {
        const proxied = modelServerFetch(envFrom({ [name]: "http://proxy:3128" }), spy.fetch);
        equal(await (await proxied(`${server.url}/v1/models`)).text(), "from fetch", name);
      }
      // An empty variable is no proxy (as for fetch).
      const empty = modelServerFetch(envFrom({ HTTP_PROXY: "" }), spy.fetch);
      equal(await (await empty(`${server.url}/v1/models`)).text(), "plain");
      deepEqual(spy.calls, [
        "https://api.example.invalid/v1/models",
        ...Array(4).fill(`${server.url}/v1/models`),
      ]);
      equal(server.received.length, 2);
    },
  );
});
