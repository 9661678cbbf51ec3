// One live MCP session over the official TypeScript SDK (@modelcontextprotocol/sdk): connect
// (stdio through the StdioLauncher seam, or Streamable HTTP), list the tools, call them, and
// keep the tail of a stdio server's stderr for the one-line failure report. This module and
// the two transport modules are the only ones that import the SDK; core/mcp/manager.ts reaches
// this one through a computed import, so a run without MCP servers never loads it, and each
// transport loads only when a server uses it (scripts/permissions.ts lists all three).

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Fetch } from "../ports.ts";
import type { McpServerConfig } from "../settings/mcp_servers.ts";
import type { StdioLaunch, StdioLauncher } from "./launch.ts";
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
  /** The stdio spec (launch.ts stdioSpec) for a stdio server; ignored for HTTP. */
  stdio?: StdioLaunch;
  launcher: StdioLauncher;
  fetch: Fetch;
  /** The agent's version, sent in `initialize`. */
  clientVersion: string;
  /** Headers for an HTTP server, the stored key included. */
  headers?: Record<string, string>;
  /** Aborting it gives up: the transport is closed and a stdio child is stopped. */
  signal: AbortSignal;
}

const STDERR_TAIL_CHARS = 2_000;

export async function connectMcp(
  server: McpServerConfig,
  options: ConnectOptions,
): Promise<McpConnection> {
  let stderr = "";
  let transport: Transport;
  if (server.transport === "stdio") {
    if (!options.stdio) throw new Error("a stdio server needs its launch spec");
    const launch = options.launcher(options.stdio);
    const mod: typeof import("./transport_stdio.ts") = await import(
      new URL("./transport_stdio.ts", import.meta.url).href
    );
    transport = mod.stdioTransport(launch, (chunk) => {
      stderr += chunk;
      if (stderr.length > STDERR_TAIL_CHARS * 2) stderr = stderr.slice(-STDERR_TAIL_CHARS);
    });
  } else {
    const mod: typeof import("./transport_http.ts") = await import(
      new URL("./transport_http.ts", import.meta.url).href
    );
    transport = mod.httpTransport(server.url, options.headers ?? {}, options.fetch);
  }
  const client = new Client({ name: "agent", version: options.clientVersion }, {
    capabilities: {},
  });
  const tools: McpToolInfo[] = [];
  const connection: McpConnection = {
    tools,
    call: async (name, args, { timeoutMs, signal }) =>
      await client.callTool({ name, arguments: args }, undefined, {
        timeout: timeoutMs,
        signal,
      }) as McpCallResult,
    close: () => client.close(),
    stderrTail: () => tail(stderr),
  };
  let closed = false;
  client.onclose = () => {
    if (closed) return;
    closed = true;
    connection.onclose?.();
  };
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
    return connection;
  } catch (err) {
    giveUp();
    // The stderr tail is what says why a server would not start (a missing module, a bad flag).
    const failure = err instanceof Error ? err : new Error(String(err));
    throw Object.assign(failure, { stderrTail: tail(stderr) });
  } finally {
    options.signal.removeEventListener("abort", giveUp);
  }
}

/** The last few non-empty lines, joined with " | " so a failure stays one line. */
function tail(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  return lines.slice(-3).join(" | ").slice(-500);
}
