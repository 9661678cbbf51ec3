// The one way into the MCP SDK: loads core/mcp/connection.ts (and so the SDK) once, through a
// dynamic import so a run without MCP servers never loads it (see cli/main.ts).
// McpManager awaits it when it starts its servers.

type ConnectionModule = typeof import("./connection.ts");
let connectionModule: Promise<ConnectionModule> | undefined;

function loadConnection(): Promise<ConnectionModule> {
  connectionModule ??= import("./connection.ts");
  return connectionModule;
}

export async function loadConnect(): Promise<ConnectionModule["connectMcp"]> {
  return (await loadConnection()).connectMcp;
}
