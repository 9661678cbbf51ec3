// A pass-through in front of a Streamable HTTP MCP server (server-everything over HTTP), for
// tests that must see what the agent sends on the wire: each request's headers and JSON-RPC
// method are recorded, and a hook can act when a tools/call arrives (a test kills the server
// behind it mid-call). Responses, SSE streams included, are relayed unchanged.

export interface TappedRequest {
  method: string;
  headers: Headers;
  /** JSON-RPC methods in the body (empty for a GET or DELETE). */
  rpc: string[];
  /** The tool named by a tools/call in the body, if any. */
  tool?: string;
}

export interface HttpTap extends AsyncDisposable {
  url: string;
  requests: TappedRequest[];
}

/** Listens on a free loopback port and relays to `target`; `onCall` runs once the server
 * behind has begun answering a tools/call (its response headers are in). */
export function startHttpTap(
  target: string,
  onCall?: (tool: string) => void,
): HttpTap {
  const requests: TappedRequest[] = [];
  const upstream = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    async (req) => {
      const body = req.body ? await req.text() : undefined;
      const tapped: TappedRequest = { method: req.method, headers: req.headers, rpc: [] };
      if (body) {
        const parsed = JSON.parse(body) as unknown;
        for (const msg of Array.isArray(parsed) ? parsed : [parsed]) {
          const m = msg as { method?: string; params?: { name?: string } };
          if (m.method) tapped.rpc.push(m.method);
          if (m.method === "tools/call" && m.params?.name) tapped.tool = m.params.name;
        }
      }
      requests.push(tapped);
      const headers = new Headers(req.headers);
      headers.delete("host");
      const relayed = fetch(target, {
        method: req.method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: upstream.signal,
      });
      try {
        const res = await relayed;
        // The server has taken the call (its answer has begun): now the hook may act.
        if (tapped.tool) onCall?.(tapped.tool);
        return new Response(res.body, { status: res.status, headers: res.headers });
      } catch {
        // The server behind went away: what a client sees from a dead server, a refused request.
        return new Response("upstream gone", { status: 502 });
      }
    },
  );
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    requests,
    async [Symbol.asyncDispose]() {
      upstream.abort();
      await server.shutdown();
    },
  };
}
