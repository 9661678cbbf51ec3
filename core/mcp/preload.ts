// Starts loading the MCP SDK at the very start of a run when a settings file mentions MCP
// servers, so its module loading (zod and the SDK's schemas, ~50–80 ms) fills the gaps while
// the rest of the program's modules load, instead of starting after settings are resolved.
// The check is a cheap text search of the two settings files, not a parse: a false hit only
// loads the SDK for nothing; a miss only loses the head start (McpManager loads it on use).
// Measured with scripts/bench_mcp.ts, two stdio servers: 40–100 ms less to the first model
// request at load average 4–5 (the rest of start-up then has more waits to fill), ~10 ms at 3.
// Since the client stopped loading ajv (core/mcp/client.ts), the head start no longer shows
// above the noise (scripts/bench_mcp.ts); it is kept because it costs nothing.

import type { Env } from "../ports.ts";
import { agentHome, findProjectSettingsFile, globalSettingsPath } from "../settings/project.ts";
import { preloadSdk } from "./sdk_loader.ts";
import { timingMark } from "../timing_marks.ts";

const MENTION = /\bmcp_servers\b/;
const COMMAND = /\bcommand\s*=/;

/** Loads the SDK's modules ahead of McpManager if a settings file names mcp_servers. */
export function preloadMcpIfConfigured(env: Env, workdir: string): void {
  let texts: string[];
  try {
    const home = agentHome(env);
    const project = findProjectSettingsFile(workdir, home);
    texts = [read(globalSettingsPath(home)), project === undefined ? "" : read(project)];
  } catch {
    // A hint only: the settings resolver reads the same files moments later and reports any
    // trouble with them properly; here it just means no head start.
    return;
  }
  if (!texts.some((t) => MENTION.test(t))) return;
  // The stdio transport too when some table has a `command` (HTTP-only runs skip it).
  timingMark("mcp:preload");
  preloadSdk({ stdio: texts.some((t) => COMMAND.test(t)) });
}

function read(path: string): string {
  try {
    return Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return "";
    throw err;
  }
}
