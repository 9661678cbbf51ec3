// The one way into the MCP SDK: loads core/mcp/connection.ts (and so the SDK) once, through a
// computed specifier so a run without MCP servers never loads it (see cli/main.ts for why).
// McpManager awaits it when it starts its servers; core/mcp/preload.ts starts it early.

type ConnectFn = typeof import("./connection.ts").connectMcp;
let connectModule: Promise<ConnectFn> | undefined;

export function loadConnect(): Promise<ConnectFn> {
  connectModule ??= (async () => {
    const mod: typeof import("./connection.ts") = await import(
      new URL("./connection.ts", import.meta.url).href
    );
    return mod.connectMcp;
  })();
  return connectModule;
}
