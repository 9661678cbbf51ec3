// The SDK's stdio transport, in its own module so a run with only Streamable HTTP servers never
// loads it (and the other way round: transport_http.ts). Reached from connection.ts through a
// computed import; scripts/permissions.ts lists it.

import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { StdioLaunch } from "./launch.ts";

/** A transport that spawns exactly `launch` (already through the StdioLauncher). */
export function stdioTransport(
  launch: StdioLaunch,
  onStderr: (chunk: string) => void,
): Transport {
  const stdio = new StdioClientTransport({
    command: launch.command,
    args: launch.args,
    env: launch.env,
    cwd: launch.cwd,
    stderr: "pipe",
  });
  stdio.stderr?.on("data", (chunk: Uint8Array | string) => {
    onStderr(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
  });
  return stdio;
}
