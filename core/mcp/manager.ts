// The MCP servers of one agent process: which may start (enabled; a project server only once
// approved), connecting them all in parallel, each bounded by its startup_timeout_s, the
// state of each (for /mcp, `agent mcp list` and the headless report), their tools as Tool
// values, and reconnecting a failed one. Nothing here throws for a server's trouble: a server
// that fails to start is one line (its stderr tail) and the run goes on without it.

import type { Clock, Env, Fetch } from "../ports.ts";
import type { Tool, ToolOutcome } from "../tools/types.ts";
import { DeadlineError, withDeadline } from "../deadline.ts";
import { errorLine } from "../logger.ts";
import { approvalEntry, type HttpServer, type McpServerConfig } from "../settings/mcp_servers.ts";
import type { Settings } from "../settings/types.ts";
import { directLauncher, type StdioLauncher, stdioSpec } from "./launch.ts";
import { mcpTool, toolAllowed } from "./tools.ts";
import { toOutcome } from "./result.ts";
import type { McpConnection } from "./connection.ts";

export type McpServerState = "connecting" | "ready" | "failed" | "disabled" | "needs_approval";

export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  scope: "global" | "project";
  state: McpServerState;
  /** The agent-side tool names it contributes (only when ready). */
  tools: string[];
  /** One line: why it failed or is not started. */
  error?: string;
}

export interface McpDeps {
  env: Env;
  fetch: Fetch;
  clock: Clock;
  workdir: string;
  clientVersion: string;
  /** The sandbox's hook (launch.ts); the identity until the sandbox lands. */
  launcher?: StdioLauncher;
  /** Told each time a server's state changes (the interactive progress line). */
  onChange?: (status: McpServerStatus) => void;
}

interface Entry {
  server: McpServerConfig;
  status: McpServerStatus;
  connection?: McpConnection | undefined;
  tools: Tool[];
}

type ConnectFn = typeof import("./connection.ts").connectMcp;
let connectModule: Promise<ConnectFn> | undefined;

/** The SDK loads on first use, through a computed specifier (see cli/main.ts for why). */
function loadConnect(): Promise<ConnectFn> {
  connectModule ??= (async () => {
    const mod: typeof import("./connection.ts") = await import(
      new URL("./connection.ts", import.meta.url).href
    );
    return mod.connectMcp;
  })();
  return connectModule;
}

export class McpManager {
  readonly #entries = new Map<string, Entry>();
  readonly #settings: Settings;
  readonly #deps: McpDeps;
  /** Project servers approved during this process (the settings value is frozen). */
  readonly #approvedNow = new Set<string>();

  constructor(settings: Settings, deps: McpDeps) {
    this.#settings = settings;
    this.#deps = deps;
    for (const server of settings.mcp_servers) {
      this.#entries.set(server.name, {
        server,
        tools: [],
        status: {
          name: server.name,
          transport: server.transport,
          scope: server.scope,
          state: server.enabled ? "connecting" : "disabled",
          tools: [],
        },
      });
    }
  }

  /** Connects every enabled, approved server in parallel; settles when each is up or failed. */
  async start(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => this.#startOne(e)));
  }

  /** Tools of the servers that are up, in settings order. */
  tools(): Tool[] {
    return [...this.#entries.values()].flatMap((e) => e.status.state === "ready" ? e.tools : []);
  }

  statuses(): McpServerStatus[] {
    return [...this.#entries.values()].map((e) => ({ ...e.status, tools: [...e.status.tools] }));
  }

  /** Stops and starts one server again (a failed one, or one just approved). */
  async reconnect(name: string): Promise<McpServerStatus> {
    const entry = this.#entries.get(name);
    if (!entry) {
      throw new Error(
        `no MCP server named ${name}; configured: ${
          [...this.#entries.keys()].join(", ") || "none"
        }`,
      );
    }
    await this.#stop(entry);
    await this.#startOne(entry);
    return { ...entry.status };
  }

  /** The settings of a configured server (for approval prompts and `agent mcp test`). */
  server(name: string): McpServerConfig | undefined {
    return this.#entries.get(name)?.server;
  }

  /** A project server the user has just approved (and recorded): it may start now. */
  markApproved(name: string): void {
    this.#approvedNow.add(name);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => this.#stop(e)));
  }

  async #stop(entry: Entry): Promise<void> {
    const connection = entry.connection;
    entry.connection = undefined;
    entry.tools = [];
    if (connection) {
      connection.onclose = undefined;
      await connection.close().catch(() => {});
    }
  }

  #set(entry: Entry, change: Partial<McpServerStatus>): void {
    const next: McpServerStatus = { ...entry.status, ...change };
    if (change.error === undefined) delete next.error;
    entry.status = next;
    this.#deps.onChange?.({ ...next });
  }

  async #startOne(entry: Entry): Promise<void> {
    const { server } = entry;
    if (!server.enabled) return this.#set(entry, { state: "disabled", tools: [] });
    if (server.scope === "project" && !(await this.#approved(server))) {
      return this.#set(entry, {
        state: "needs_approval",
        tools: [],
        error: `not started: it comes from ${server.file}; approve it once for this project ` +
          `with \`agent mcp approve ${server.name}\` (in a session: /mcp approve ${server.name})`,
      });
    }
    this.#set(entry, { state: "connecting", tools: [] });
    const ms = Math.round(server.startup_timeout_s * 1000);
    let connection: McpConnection | undefined;
    try {
      const headers = this.#headers(server);
      const connect = await loadConnect();
      connection = await withDeadline(
        this.#deps.clock,
        ms,
        `starting MCP server ${server.name}`,
        (signal) =>
          connect(server, {
            ...(server.transport === "stdio"
              ? { stdio: stdioSpec(server, this.#deps.env, this.#deps.workdir) }
              : {}),
            launcher: this.#deps.launcher ?? directLauncher,
            fetch: this.#deps.fetch,
            clientVersion: this.#deps.clientVersion,
            ...(headers ? { headers } : {}),
            signal,
          }),
      );
    } catch (err) {
      const why = err instanceof DeadlineError
        ? `no answer within startup_timeout_s = ${server.startup_timeout_s}`
        : errorLine(err);
      const stderr = (err as { stderrTail?: string }).stderrTail;
      return this.#set(entry, {
        state: "failed",
        tools: [],
        error: stderr ? `${why} (stderr: ${stderr})` : why,
      });
    }
    const tools: Tool[] = [];
    const names = new Set<string>();
    for (const info of connection.tools) {
      if (!toolAllowed(server, info.name)) continue;
      const tool = mcpTool(
        server,
        info,
        (name, args, signal) => this.#call(entry, connection!, name, args, signal),
      );
      if (names.has(tool.name)) continue; // two names that sanitize alike: the first wins
      names.add(tool.name);
      tools.push(tool);
    }
    entry.connection = connection;
    entry.tools = tools;
    connection.onclose = () => {
      if (entry.connection !== connection) return;
      entry.connection = undefined;
      const stderr = connection.stderrTail();
      this.#set(entry, {
        state: "failed",
        tools: entry.status.tools,
        error: `the server went away${stderr ? ` (stderr: ${stderr})` : ""}`,
      });
    };
    this.#set(entry, { state: "ready", tools: tools.map((t) => t.name) });
  }

  async #call(
    entry: Entry,
    connection: McpConnection,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const name = entry.server.name;
    if (entry.connection !== connection) {
      return {
        type: "result",
        is_error: true,
        content:
          `MCP server ${name} is not connected (${entry.status.error ?? entry.status.state}); ` +
          `the user can reconnect it with /mcp reconnect ${name}`,
      };
    }
    try {
      const result = await connection.call(tool, args, {
        timeoutMs: Math.round(entry.server.tool_timeout_s * 1000),
        signal,
      });
      return toOutcome(result);
    } catch (err) {
      const gone = entry.connection !== connection;
      const stderr = gone ? connection.stderrTail() : "";
      return {
        type: "result",
        is_error: true,
        content: `MCP server ${name}, tool ${tool}: ${errorLine(err)}` +
          (gone ? `; the server went away${stderr ? ` (stderr: ${stderr})` : ""}` : ""),
      };
    }
  }

  async #approved(server: McpServerConfig): Promise<boolean> {
    if (this.#approvedNow.has(server.name)) return true;
    const approved = this.#settings.mcp_approvals[server.file] ?? [];
    return approved.includes(await approvalEntry(server));
  }

  /** HTTP headers: the file's plain ones plus the stored key (never for a project server). */
  #headers(server: McpServerConfig): Record<string, string> | undefined {
    if (server.transport !== "http") return undefined;
    const headers = { ...server.http_headers };
    if (server.bearer_key === undefined) return headers;
    if (server.scope === "project") {
      throw new Error(
        `bearer_key is ignored for a server from a project settings file (${server.file}): ` +
          "stored keys are only sent to servers defined in the global settings file",
      );
    }
    const key = this.#settings.mcp_keys[server.bearer_key];
    if (!key) {
      throw new Error(
        `no key mcp_keys.${server.bearer_key} in ${
          this.#settings.files?.global ?? "the global settings"
        }; ` +
          `store one with \`agent mcp set-key ${server.bearer_key}\``,
      );
    }
    headers[(server as HttpServer).key_header] = server.key_header.toLowerCase() === "authorization"
      ? `Bearer ${key}`
      : key;
    return headers;
  }
}
