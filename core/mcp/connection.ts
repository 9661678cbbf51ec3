// One live MCP session over the official TypeScript SDK (@modelcontextprotocol/sdk): connect
// (stdio over a server process McpManager already started through the StdioLauncher seam, or
// Streamable HTTP), list the tools, call them, and report a stdio server's stderr tail on
// failure. This module, client.ts (the client on the SDK's Protocol) and the two transport
// modules are the only ones that import the SDK; core/mcp/manager.ts reaches this one through
// a dynamic import, so a run without MCP servers never loads it, and each transport loads only
// when a server uses it.

import { type ElicitHandler, McpClient } from "./client.ts";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Fetch } from "../ports.ts";
import type { McpServerConfig } from "../settings/mcp_servers.ts";
import type { StdioServerProcess } from "./stdio_process.ts";
import type { McpCallResult } from "./result.ts";

/** What a server says about one of its tools (the parts the agent uses). */
export interface McpToolInfo {
  name: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; title?: string };
}

export interface McpConnection {
  readonly tools: readonly McpToolInfo[];
  call(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<McpCallResult>;
  close(): Promise<void>;
  /** The last lines a stdio server wrote to stderr (empty for HTTP). */
  stderrTail(): string;
  /** Set by the owner: called once when the server goes away (exit, closed stream). */
  onclose?: (() => void) | undefined;
}

export interface ConnectOptions {
  /** A stdio server's process, already spawned (stdio_process.ts); ignored for HTTP. */
  process?: StdioServerProcess;
  fetch: Fetch;
  /** The agent's version, sent in `initialize`. */
  clientVersion: string;
  /** Headers for an HTTP server, the stored key included. */
  headers?: Record<string, string>;
  /** Aborting it gives up: the transport is closed and a stdio child is stopped. */
  signal: AbortSignal;
  /** Answers the server's form requests; absent: the client declares no elicitation. */
  elicit?: ElicitHandler;
  /** An HTTP server's OAuth (core/mcp/oauth.ts StoredOAuthProvider). */
  authProvider?: unknown;
}

export async function connectMcp(
  server: McpServerConfig,
  options: ConnectOptions,
): Promise<McpConnection> {
  const process = options.process;
  const stderrTail = () => process?.stderrTail() ?? "";
  let transport: Transport;
  if (server.transport === "stdio") {
    if (!process) throw new Error("a stdio server needs its process");
    transport = (await import("./transport_stdio.ts")).stdioTransport(process);
  } else {
    const mod = await import("./transport_http.ts");
    transport = mod.httpTransport(
      server.url,
      options.headers ?? {},
      options.fetch,
      options.authProvider as Parameters<typeof mod.httpTransport>[3],
    );
  }
  const client = new McpClient({ name: "agent", version: options.clientVersion }, options.elicit);
  const tools: McpToolInfo[] = [];
  const connection: McpConnection = {
    tools,
    call: async (name, args, { timeoutMs, signal }) =>
      await client.callTool({ name, arguments: args }, {
        timeout: timeoutMs,
        signal,
      }) as McpCallResult,
    close: () => client.close(),
    stderrTail,
  };
  let closed = false;
  client.onclose = () => {
    if (closed) return;
    closed = true;
    connection.onclose?.();
  };
  // Closing the client closes the transport, which stops a stdio server's process group.
  const giveUp = () => void client.close().catch(() => {});
  options.signal.addEventListener("abort", giveUp, { once: true });
  try {
    await client.connect(transport, { signal: options.signal });
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : {}, { signal: options.signal });
      tools.push(...(page.tools as McpToolInfo[]));
      cursor = page.nextCursor;
    } while (cursor);
    if (server.transport === "http") watchHttpStreams(client, () => closed, giveUp);
    return connection;
  } catch (err) {
    giveUp();
    // The stderr tail is what says why a server would not start (a missing module, a bad flag).
    const failure = err instanceof Error ? err : new Error(String(err));
    throw Object.assign(failure, { stderrTail: stderrTail() });
  } finally {
    options.signal.removeEventListener("abort", giveUp);
  }
}

/** How long a Streamable HTTP server has to answer the ping after one of its streams broke. */
const HTTP_LIVENESS_MS = 5_000;
const STREAM_LOST = /^(SSE stream disconnected|Maximum reconnection attempts)/;

/**
 * The SDK's Streamable HTTP transport reports a response stream cut mid-call (the server died,
 * or a proxy dropped the connection) only through onerror, and leaves the call pending until
 * its tool_timeout_s (60 s by default): resumption may still deliver the answer. A ping tells
 * the two apart. A server that does not answer it has gone: the client closes, which fails
 * every pending call at once and reports the server gone, as a stdio server's exit does. One
 * that answers is left to the SDK's resumption.
 */
function watchHttpStreams(client: McpClient, isClosed: () => boolean, giveUp: () => void): void {
  let checking = false;
  client.onerror = (err: Error) => {
    if (checking || isClosed() || !STREAM_LOST.test(err.message)) return;
    checking = true;
    client.ping({ timeout: HTTP_LIVENESS_MS }).then(() => checking = false, giveUp);
  };
}
