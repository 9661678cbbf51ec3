// The headers an MCP server gets over Streamable HTTP: its table's plain `http_headers` plus
// the stored key it names (`bearer_key`, from `mcp_keys` in the global settings file), never for
// a server from a project file.

import type { HttpServer, McpServerConfig } from "../settings/mcp_servers.ts";
import type { Settings } from "../settings/types.ts";

/** The headers for `server` (undefined for a stdio one); throws one line when its key is not usable. */
export function httpHeaders(
  server: McpServerConfig,
  settings: Settings,
): Record<string, string> | undefined {
  if (server.transport !== "http") return undefined;
  const headers = { ...server.http_headers };
  if (server.bearer_key === undefined) return headers;
  if (server.scope === "project") {
    throw new Error(
      `bearer_key is ignored for a server from a project settings file (${server.file}): ` +
        "stored keys are only sent to servers defined in the global settings file",
    );
  }
  const key = settings.mcp_keys[server.bearer_key];
  if (!key) {
    throw new Error(
      `no key mcp_keys.${server.bearer_key} in ${
        settings.files?.global ?? "the global settings"
      }; ` +
        `store one with \`agent mcp set-key ${server.bearer_key}\``,
    );
  }
  headers[(server as HttpServer).key_header] = server.key_header.toLowerCase() === "authorization"
    ? `Bearer ${key}`
    : key;
  return headers;
}
