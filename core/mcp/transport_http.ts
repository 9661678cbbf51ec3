// The SDK's Streamable HTTP transport, in its own module so a run with only stdio servers never
// loads it (its OAuth and SSE dependencies cost start-up time). Reached from connection.ts
// through a dynamic import.

import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Fetch } from "../ports.ts";

export function httpTransport(
  url: string,
  headers: Record<string, string>,
  fetch: Fetch,
): Transport {
  return new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers },
    fetch,
  });
}
