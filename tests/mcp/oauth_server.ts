// A Streamable HTTP MCP server behind OAuth 2.1, for the `agent mcp login` tests: protected-
// resource metadata (RFC 9728, announced in the 401's WWW-Authenticate), authorization-server
// metadata (RFC 8414), dynamic client registration (RFC 7591), an authorization endpoint that
// approves at once and redirects back with a code (the "browser" is a fetch), a token endpoint
// that checks PKCE (S256) and issues access and refresh tokens, and `revokeAccess()` so a test
// can make the current access token stale and watch the client refresh it. The MCP side answers
// JSON (no SSE): initialize, tools/list (one tool, `whoami`), tools/call (the token it was
// called with), notifications with 202.

export interface OAuthPeer {
  url: string;
  /** Access tokens issued so far, in order. */
  issued: string[];
  /** Refresh-token grants served. */
  refreshes: number;
  /** The current access tokens stop working (a refresh gets a new one). */
  revokeAccess(): void;
  [Symbol.asyncDispose](): Promise<void>;
}

async function sha256Base64Url(text: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)),
  );
  return btoa(String.fromCharCode(...digest)).replaceAll("+", "-").replaceAll("/", "_")
    .replace(/=+$/, "");
}

export function startOAuthMcpServer(): OAuthPeer {
  const valid = new Set<string>();
  const refreshTokens = new Set<string>();
  const codes = new Map<string, { challenge: string; redirect: string }>();
  const state = { issued: [] as string[], refreshes: 0, n: 0 };
  const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
    new Response(JSON.stringify(body), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
  const issue = () => {
    const access = `access-${++state.n}`;
    const refresh = `refresh-${state.n}`;
    valid.add(access);
    refreshTokens.add(refresh);
    state.issued.push(access);
    return json({
      access_token: access,
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: refresh,
    });
  };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const origin = url.origin;
    switch (url.pathname) {
      case "/.well-known/oauth-protected-resource/mcp":
        return json({ resource: `${origin}/mcp`, authorization_servers: [origin] });
      case "/.well-known/oauth-authorization-server":
        return json({
          issuer: origin,
          authorization_endpoint: `${origin}/authorize`,
          token_endpoint: `${origin}/token`,
          registration_endpoint: `${origin}/register`,
          response_types_supported: ["code"],
          grant_types_supported: ["authorization_code", "refresh_token"],
          code_challenge_methods_supported: ["S256"],
          token_endpoint_auth_methods_supported: ["none"],
        });
      case "/register": {
        const body = await req.json();
        return json({
          ...body,
          client_id: `client-${crypto.randomUUID()}`,
          token_endpoint_auth_method: "none",
        }, 201);
      }
      case "/authorize": {
        const q = url.searchParams;
        if (q.get("code_challenge_method") !== "S256" || !q.get("code_challenge")) {
          return new Response("PKCE required", { status: 400 });
        }
        const code = `code-${crypto.randomUUID()}`;
        codes.set(code, { challenge: q.get("code_challenge")!, redirect: q.get("redirect_uri")! });
        const back = new URL(q.get("redirect_uri")!);
        back.searchParams.set("code", code);
        if (q.get("state")) back.searchParams.set("state", q.get("state")!);
        return Response.redirect(back.href, 302);
      }
      case "/token": {
        const form = new URLSearchParams(await req.text());
        if (form.get("grant_type") === "refresh_token") {
          if (!refreshTokens.delete(form.get("refresh_token") ?? "")) {
            return json({ error: "invalid_grant" }, 400);
          }
          state.refreshes++;
          return issue();
        }
        const pending = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        if (!pending || form.get("redirect_uri") !== pending.redirect) {
          return json({ error: "invalid_grant" }, 400);
        }
        if (await sha256Base64Url(form.get("code_verifier") ?? "") !== pending.challenge) {
          return json({ error: "invalid_grant", error_description: "PKCE check failed" }, 400);
        }
        return issue();
      }
      case "/mcp":
        return await mcp(req, origin);
    }
    return new Response("not found", { status: 404 });
  });

  async function mcp(req: Request, origin: string): Promise<Response> {
    const token = req.headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
    if (!valid.has(token)) {
      await req.body?.cancel();
      return json({ error: "invalid_token" }, 401, {
        "www-authenticate":
          `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`,
      });
    }
    if (req.method !== "POST") return new Response(null, { status: 405 });
    const msg = await req.json();
    if (msg.id === undefined) return new Response(null, { status: 202 });
    const result = msg.method === "initialize"
      ? {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "oauth-test", version: "1.0.0" },
      }
      : msg.method === "tools/list"
      ? {
        tools: [{
          name: "whoami",
          description: "The access token this call came with",
          inputSchema: { type: "object", properties: {} },
          annotations: { readOnlyHint: true },
        }],
      }
      : msg.method === "tools/call"
      ? { content: [{ type: "text", text: `called with ${token}` }] }
      : {};
    return json({ jsonrpc: "2.0", id: msg.id, result });
  }

  return {
    url: `http://127.0.0.1:${server.addr.port}/mcp`,
    get issued() {
      return state.issued;
    },
    get refreshes() {
      return state.refreshes;
    },
    revokeAccess: () => valid.clear(),
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
