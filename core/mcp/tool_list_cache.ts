// The tool list each MCP server gave last time, remembered under the agent home
// (<home>/mcp/tool-lists/<server>.json), so a run whose servers are all known sends its first
// model request at once while the servers start behind it (core/mcp/manager.ts). An entry is
// keyed by everything that decides what the server is: its settings table (the approval
// fingerprint plus the name and transport) and the version installed for it (a launcher
// server's resolved package, core/mcp/launcher_cache.ts). A key that differs is a miss, so an
// edited table or an updated package is never offered with an old list. A list that changed
// while the key held (the server was upgraded in place) is rewritten when the server answers,
// and used from the next model request on.
//
// The file holds tool names, descriptions and schemas the server published: nothing secret.
// A file that cannot be read or parsed is a miss (reported once to the caller as a warning,
// never thrown): the server is then waited for, as without a cache.

import { join } from "../path.ts";
import { writeFileAtomic } from "../atomic_write.ts";
import { mcpFingerprint, type McpServerConfig } from "../settings/mcp_servers.ts";
import type { McpToolInfo } from "./connection.ts";
import { launcherPackage } from "./launcher_spec.ts";

interface CacheFile {
  key: string;
  tools: readonly McpToolInfo[];
}

export function toolListPath(home: string, server: string): string {
  return join(home, "mcp", "tool-lists", `${server}.json`);
}

/** The cache key of a server as configured now, with the version installed for it. */
export async function toolListKey(server: McpServerConfig, installed: string): Promise<string> {
  // The digest, not the table itself: a server's env table may hold a token.
  return `${server.transport}:${server.name}:${await mcpFingerprint(server)}:${installed}`;
}

/** A server's key as configured now: a launcher server's installed package version included. */
export async function serverCacheKey(home: string, server: McpServerConfig): Promise<string> {
  let installed = "";
  if (server.transport === "stdio" && launcherPackage(server.command, server.args)) {
    const { readInstalled } = await import("./package_install.ts");
    const record = await readInstalled(home, server);
    if (record) installed = `${record.ecosystem}:${record.name}@${record.version}`;
  }
  return await toolListKey(server, installed);
}

/** The remembered list for `key`, or null (no file, another key, or a file that is not ours). */
export async function readToolList(
  home: string,
  server: string,
  key: string,
): Promise<McpToolInfo[] | null> {
  let text: string;
  try {
    text = await Deno.readTextFile(toolListPath(home, server));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  const parsed = parseCacheFile(text);
  return parsed && parsed.key === key ? [...parsed.tools] : null;
}

/** Remembers `tools` for `key`, unless the file already says exactly that. */
export async function writeToolList(
  home: string,
  server: string,
  key: string,
  tools: readonly McpToolInfo[],
): Promise<boolean> {
  const text = JSON.stringify({ key, tools } satisfies CacheFile) + "\n";
  const path = toolListPath(home, server);
  let before: string | null = null;
  try {
    before = await Deno.readTextFile(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  if (before === text) return false;
  await writeFileAtomic(path, text, { createDirs: true, dirMode: 0o700, mode: 0o600 });
  return true;
}

function parseCacheFile(text: string): CacheFile | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null; // a torn or hand-edited file is a miss: the server is waited for instead
  }
  if (typeof value !== "object" || value === null) return null;
  const { key, tools } = value as Record<string, unknown>;
  if (typeof key !== "string" || !Array.isArray(tools)) return null;
  const valid = tools.every((t) =>
    typeof t === "object" && t !== null && typeof (t as McpToolInfo).name === "string" &&
    typeof (t as McpToolInfo).inputSchema === "object"
  );
  return valid ? { key, tools: tools as McpToolInfo[] } : null;
}
