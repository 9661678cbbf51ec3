// `agent mcp login NAME`: signs in to a Streamable HTTP MCP server with OAuth 2.1, the SDK doing
// the protocol (discovery, dynamic client registration, PKCE, the token exchange) and this
// module the user's side: a loopback redirect on 127.0.0.1 (a free port, for this login only),
// the authorization URL printed and opened in the browser, the redirect's `state` checked, then
// one connection with the new tokens to prove they work. Tokens are kept by
// core/mcp/oauth.ts (0600, under the agent home).

import type { HttpServer } from "../settings/mcp_servers.ts";
import type { Fetch } from "../ports.ts";
import { McpClient } from "./client.ts";
import { type ProviderOptions, StoredOAuthProvider } from "./oauth.ts";
import { httpTransport, UnauthorizedError } from "./transport_http.ts";

export interface LoginIo {
  fetch: Fetch;
  clientVersion: string;
  /** Sends the user to the authorization URL (opens a browser); the URL is printed first. */
  openBrowser: (url: URL) => Promise<void>;
  print: (line: string) => void;
  /** Plain headers of the server's table. */
  headers?: Record<string, string>;
  preregistered?: ProviderOptions["preregistered"];
  clientMetadataUrl?: string;
  /** How long to wait for the browser to come back (default 5 minutes). */
  timeoutMs?: number;
}

/** Each sign-in (a first one, a scope step-up) comes back through the redirect once. */
const MAX_SIGN_INS = 3;

/** Signs in and checks the tokens with one connection; returns how many tools the server has. */
export async function loginMcp(home: string, server: HttpServer, io: LoginIo): Promise<number> {
  await using redirect = openLoopback();
  const provider = new StoredOAuthProvider(home, server, {
    redirectUrl: redirect.url,
    onRedirect: async (url) => {
      io.print(`sign in to ${server.name} in your browser: ${url.href}`);
      await io.openBrowser(url);
    },
    ...(io.preregistered ? { preregistered: io.preregistered } : {}),
    ...(io.clientMetadataUrl ? { clientMetadataUrl: io.clientMetadataUrl } : {}),
  });
  // A run refused for a scope (a step-up) left it here: sign in for that scope first.
  const wanted = await provider.wantedScope();
  await provider.startOver();
  if (wanted) await signIn(provider, server, io, redirect, wanted);
  for (let attempt = 0;; attempt++) {
    const transport = httpTransport(server.url, io.headers ?? {}, io.fetch, provider);
    const client = new McpClient({ name: "agent", version: io.clientVersion });
    try {
      await client.connect(transport);
      const { tools } = await client.listTools({});
      return tools.length;
    } catch (err) {
      if (!(err instanceof UnauthorizedError) || attempt + 1 >= MAX_SIGN_INS) throw err;
      const answer = await redirect.next(io.timeoutMs ?? 5 * 60_000);
      if (answer.error) throw new Error(`the sign-in was refused: ${answer.error}`);
      if (answer.state !== provider.expectedState) {
        throw new Error("the sign-in came back with another state than was sent: ignored");
      }
      await transport.finishAuth(answer.code);
    } finally {
      await client.close().catch(() => {}); // the login's one connection, done either way
    }
  }
}

/** One authorization-code sign-in for `scope`, through the SDK's auth(). */
async function signIn(
  provider: StoredOAuthProvider,
  server: HttpServer,
  io: LoginIo,
  redirect: ReturnType<typeof openLoopback>,
  scope: string,
): Promise<void> {
  const { auth } = await import("@modelcontextprotocol/sdk/client/auth.js");
  const options = { serverUrl: server.url, scope, fetchFn: io.fetch };
  // deno-lint-ignore no-explicit-any
  const sdkProvider = provider as any;
  if (await auth(sdkProvider, options) === "AUTHORIZED") return;
  const answer = await redirect.next(io.timeoutMs ?? 5 * 60_000);
  if (answer.error) throw new Error(`the sign-in was refused: ${answer.error}`);
  if (answer.state !== provider.expectedState) {
    throw new Error("the sign-in came back with another state than was sent: ignored");
  }
  await auth(sdkProvider, { ...options, authorizationCode: answer.code });
}

interface RedirectAnswer {
  code: string;
  state: string | null;
  error?: string;
}

/** A one-login HTTP listener on 127.0.0.1 for the authorization server's redirect. */
function openLoopback() {
  const answers: RedirectAnswer[] = [];
  let wake: (() => void) | undefined;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
    const error = url.searchParams.get("error");
    answers.push({
      code: url.searchParams.get("code") ?? "",
      state: url.searchParams.get("state"),
      ...(error
        ? { error: `${error} ${url.searchParams.get("error_description") ?? ""}`.trim() }
        : {}),
    });
    wake?.();
    return new Response(
      error ? "Sign-in refused. You can close this tab." : "Signed in. You can close this tab.",
      { headers: { "content-type": "text/plain; charset=utf-8" } },
    );
  });
  return {
    get url() {
      return `http://127.0.0.1:${server.addr.port}/callback`;
    },
    async next(timeoutMs: number): Promise<RedirectAnswer> {
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        while (answers.length === 0) {
          await new Promise<void>((resolve, reject) => {
            wake = resolve;
            timer = setTimeout(
              () => reject(new Error(`no sign-in within ${Math.round(timeoutMs / 1000)} s`)),
              timeoutMs,
            );
          });
          clearTimeout(timer);
        }
        return answers.shift()!;
      } finally {
        clearTimeout(timer);
      }
    },
    async [Symbol.asyncDispose]() {
      await server.shutdown();
    },
  };
}
