// The SDK's Streamable HTTP transport, in its own module so a run with only stdio servers never
// loads it (its OAuth and SSE dependencies cost start-up time). Reached from connection.ts
// through a dynamic import.

import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type { Fetch } from "../ports.ts";

/**
 * `authProvider`: the server's OAuth (core/mcp/oauth.ts), whose tokens the SDK sends, refreshes
 * and, on a 401 or an insufficient_scope 403, renews through discovery and sign-in.
 */
export function httpTransport(
  url: string,
  headers: Record<string, string>,
  fetch: Fetch,
  authProvider?: OAuthClientProvider,
): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch,
    ...(authProvider ? { authProvider } : {}),
  });
}

export { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
