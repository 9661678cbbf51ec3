// The MCP servers of one agent process: which may start (enabled; a project server only once
// approved), connecting them all in parallel, each bounded by its startup_timeout_s, the
// state of each (for /mcp, `agent mcp list` and the headless report), their tools as Tool
// values, and reconnecting a failed one. Nothing here throws for a server's trouble: a server
// that fails to start is one line (its stderr tail) and the run goes on without it.
//
// No waiting on what the model does not use yet: with a tool-list cache (deps.home), a server
// whose list is remembered for its exact configuration and installed version
// (tool_list_cache.ts) offers that list at once. A run (`open()`) starts such a server only when
// needed: the first call to one of its tools (which waits for the connection) or
// `startRemembered()`; a session (`start()`) starts every server behind its prompt. A list that
// turns out changed is remembered and offered from the next model request on (onChange). A
// server's form requests are answered here (elicitation.ts); at exit `abandon()` stops the
// servers without waiting for them.

import type { Tool, ToolContext, ToolOutcome } from "../tools/types.ts";
import {
  answerFormRequest,
  elicitationQuestion,
  type ElicitRequest,
  type ElicitResult,
  type FormSchema,
  type PendingForm,
} from "./elicitation.ts";
import { errorLine } from "../logger.ts";
import { untilAborted } from "../deadline.ts";
import { approvalEntry, type McpServerConfig } from "../settings/mcp_servers.ts";
import { connectServer, type StartDeps, StartFailure } from "./server_start.ts";
import type { Settings } from "../settings/types.ts";
import { mcpTool, toolAllowed } from "./tools.ts";
import { toOutcome } from "./result.ts";
import type { McpConnection } from "./connection.ts";
import type { StdioServerProcess } from "./stdio_process.ts";
import { timingMark } from "../timing_marks.ts";
import type { McpToolInfo } from "./connection.ts";
import { readToolList, serverCacheKey, writeToolList } from "./tool_list_cache.ts";

/** remembered: its remembered tool list is offered; it starts when needed (open()). */
export type McpServerState =
  | "connecting"
  | "remembered"
  | "ready"
  | "failed"
  | "disabled"
  | "needs_approval";

export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http";
  scope: "global" | "project";
  state: McpServerState;
  /** The agent-side tool names it contributes (only when ready). */
  tools: string[];
  /** One line: why it failed or is not started. */
  error?: string;
  /** While connecting: what it is doing that takes long (installing its package). */
  note?: string;
}

/** The StartDeps (server_start.ts; `home` also keeps the remembered tool lists), and: */
export interface McpDeps extends StartDeps {
  /** Told each time a server's state or its offered tools change (the session's tool list). */
  onChange?: (status: McpServerStatus) => void;
  /** One warning line (a tool list that could not be remembered); default: dropped. */
  warn?: (line: string) => void;
  /**
   * Asks the user to fill a server's form (an interactive session's picker). Absent: nobody
   * can answer now, so the call ends the run needs-human with the form (a headless run).
   */
  elicit?: (request: ElicitRequest) => Promise<ElicitResult>;
}

/** A tool call in progress on a server: where its form request, if any, is answered or kept. */
type ActiveCall = PendingForm;

interface Entry {
  server: McpServerConfig;
  status: McpServerStatus;
  connection?: McpConnection | undefined;
  /** The live connection's tools, or the remembered ones while it starts. */
  tools: Tool[];
  /** Tool names the live connection offers (a remembered tool may be gone). */
  live: Set<string>;
  /** true while `tools` are the remembered list of a server still starting. */
  remembered: boolean;
  /** Whether a start was made (a remembered server waits until it is needed). */
  begun: boolean;
  /** The current start; settles when the server is up or has failed. */
  starting: Promise<void>;
  /** Settles once the tools are known: remembered, or from the server (or it failed). */
  listed: Promise<void>;
  /** Tool calls in progress, newest last (a form request belongs to the newest). */
  calls: ActiveCall[];
  /** A stdio server's process of the current start (for abandon() at exit). */
  process?: StdioServerProcess | undefined;
}

/** JSON-RPC error code the SDK gives a request that outlived its timeout (ErrorCode.RequestTimeout). */
const REQUEST_TIMEOUT = -32001;

export class McpManager {
  readonly #entries = new Map<string, Entry>();
  readonly #settings: Settings;
  readonly #deps: McpDeps;
  /** Project servers approved during this process (the settings value is frozen). */
  readonly #approvedNow = new Set<string>();
  /** Processes of failed starts still being stopped: the start does not wait, close() does. */
  readonly #stopping = new Set<Promise<void>>();
  readonly #remembering = new Set<Promise<void>>(); // tool-list writes: close() awaits them
  #opened: Promise<void> | undefined;

  constructor(settings: Settings, deps: McpDeps) {
    this.#settings = settings;
    this.#deps = deps;
    for (const server of settings.mcp_servers) {
      this.#entries.set(server.name, {
        server,
        tools: [],
        live: new Set(),
        remembered: false,
        begun: false,
        calls: [],
        starting: Promise.resolve(),
        listed: Promise.resolve(),
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

  /**
   * Connects every enabled, approved server in parallel (remembered ones too); settles when each
   * is up or failed. Start-up order matters for the time to the first model request: each stdio
   * server is spawned first, then the SDK's modules load (~50–80 ms of this thread) while the
   * servers boot in their own processes, then the handshakes run (scripts/bench_mcp.ts).
   */
  async start(): Promise<void> {
    for (const entry of this.#entries.values()) if (!entry.begun) void this.#begin(entry);
    await Promise.all([...this.#entries.values()].map((e) => e.starting));
  }

  /**
   * For a run: a server whose tool list is remembered offers it and waits to be needed (a call
   * to one of its tools, or startRemembered()); every other server starts now. Settles once
   * every server's tools are known, which is at once when all are remembered: the first model
   * request waits for this. Loading the SDK and a server's own boot compete with the run for
   * the same cores, so a server the run does not use costs it nothing.
   */
  async open(): Promise<void> {
    this.#opened ??= Promise.all([...this.#entries.values()].map((e) => this.#openOne(e)))
      .then(() => {});
    await this.#opened;
  }

  /**
   * Loads the MCP client's modules now. An interactive session does this before its prompt
   * opens: while Deno loads npm modules it draws (and clears) a progress line on a terminal's
   * stderr, which would wipe the prompt if the SDK loaded behind it.
   */
  async loadClient(): Promise<void> {
    const transports = new Set([...this.#entries.values()].map((e) => e.server.transport));
    await Promise.all([
      import("./connection.ts"),
      transports.has("stdio") ? import("./transport_stdio.ts") : undefined,
      transports.has("http") ? import("./transport_http.ts") : undefined,
    ]);
  }

  /** Settles once every server begun so far has its tools known (remembered, or from it). */
  async listed(): Promise<void> {
    await Promise.all([...this.#entries.values()].map((e) => e.listed));
  }

  /** Starts, in the background, the servers still waiting behind a remembered list. */
  startRemembered(): void {
    for (const entry of this.#entries.values()) {
      if (!entry.begun && entry.status.state === "remembered") void this.#begin(entry);
    }
  }

  /** Tools of the servers that are up, or offered from a remembered list, in settings order. */
  tools(): Tool[] {
    return [...this.#entries.values()].flatMap((e) =>
      e.status.state === "ready" ||
        ((e.status.state === "connecting" || e.status.state === "remembered") && e.remembered)
        ? e.tools
        : []
    );
  }

  async #openOne(entry: Entry): Promise<void> {
    const { server } = entry;
    const mayStart = server.enabled &&
      (server.scope === "global" || await this.#approved(server));
    if (mayStart && !entry.begun && await this.#recall(entry, this.#cacheKey(server))) {
      return this.#set(entry, { state: "remembered", tools: entry.tools.map((t) => t.name) });
    }
    if (!entry.begun) void this.#begin(entry);
    // Every spawn is under way (each #startOne ran up to its first await): now the SDK.
    import("./connection.ts").catch(() => {}); // each start reports its own error
    await entry.listed;
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
    await this.#begin(entry);
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
    await Promise.all([...this.#stopping, ...this.#remembering]);
  }

  /**
   * At exit: stops every server without waiting for it. Each stdio server's process group is
   * sent SIGTERM (a sandboxed server dies with its bwrap: --die-with-parent); an HTTP session
   * is closed in the background. The process exits right after, so nothing is awaited.
   */
  abandon(): void {
    for (const entry of this.#entries.values()) {
      entry.process?.terminate();
      const connection = entry.connection;
      entry.connection = undefined;
      if (connection) {
        connection.onclose = undefined;
        if (entry.server.transport === "http") void connection.close().catch(() => {});
      }
    }
  }

  /** One start of `entry`, its `starting` and `listed` promises set for callers to wait on. */
  #begin(entry: Entry): Promise<void> {
    entry.begun = true;
    let markListed!: () => void;
    entry.listed = new Promise<void>((resolve) => markListed = resolve);
    entry.starting = this.#startOne(entry, markListed).finally(markListed);
    return entry.starting;
  }

  async #stop(entry: Entry): Promise<void> {
    const connection = entry.connection;
    entry.connection = undefined;
    entry.tools = [];
    entry.remembered = false;
    entry.process = undefined;
    if (connection) {
      connection.onclose = undefined;
      await connection.close().catch(() => {});
    }
  }

  #set(entry: Entry, change: Partial<McpServerStatus>): void {
    const next: McpServerStatus = { ...entry.status, ...change };
    if (change.error === undefined) delete next.error;
    if (change.note === undefined) delete next.note;
    entry.status = next;
    this.#deps.onChange?.({ ...next });
  }

  async #startOne(entry: Entry, markListed: () => void): Promise<void> {
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
    // Read beside the spawn: a remembered list lets the first request go before the server is up.
    const keying = this.#cacheKey(server);
    const recalled = this.#recall(entry, keying).then((hit) => {
      if (!hit) return;
      this.#set(entry, { state: "connecting", tools: entry.tools.map((t) => t.name) });
      markListed();
    });
    let connection: McpConnection;
    try {
      const notice = (line: string) => {
        this.#set(entry, { state: "connecting", tools: entry.status.tools, note: line });
        this.#deps.notice?.(line);
      };
      connection = await connectServer(server, this.#settings, { ...this.#deps, notice }, {
        spawned: (process) => entry.process = process,
        stopping: (stopping) => {
          this.#stopping.add(stopping);
          void stopping.finally(() => this.#stopping.delete(stopping));
        },
        elicit: (message, schema) => this.#onElicit(entry, message, schema),
      });
    } catch (err) {
      await recalled;
      entry.tools = [];
      entry.remembered = false;
      const error = err instanceof StartFailure ? err.message : errorLine(err);
      return this.#set(entry, { state: "failed", tools: [], error });
    }
    await recalled;
    timingMark(`mcp:${server.name}:ready`);
    entry.connection = connection;
    this.#useTools(entry, connection.tools);
    const remembering = this.#remember(server, keying, connection.tools);
    this.#remembering.add(remembering);
    void remembering.finally(() => this.#remembering.delete(remembering));
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
    this.#set(entry, { state: "ready", tools: entry.tools.map((t) => t.name) });
  }

  /** Offers `infos` (the server's list, or the remembered one) as the entry's tools. */
  #useTools(entry: Entry, infos: readonly McpToolInfo[]): void {
    const { server } = entry;
    const tools: Tool[] = [];
    const names = new Set<string>();
    for (const info of infos) {
      if (!toolAllowed(server, info.name)) continue;
      const tool = mcpTool(
        server,
        info,
        (name, args, signal, answer) => this.#call(entry, name, args, signal, answer),
      );
      if (names.has(tool.name)) continue; // two names that sanitize alike: the first wins
      names.add(tool.name);
      tools.push(tool);
    }
    entry.tools = tools;
    entry.remembered = false;
    entry.live = new Set(infos.map((i) => i.name));
  }

  /** The tool-list cache key of a server, or null when there is no cache. */
  async #cacheKey(server: McpServerConfig): Promise<string | null> {
    return this.#deps.home === undefined ? null : await serverCacheKey(this.#deps.home, server);
  }

  /** Offers the remembered list while the server starts; true when there was one. */
  async #recall(entry: Entry, keying: Promise<string | null>): Promise<boolean> {
    try {
      const key = await keying;
      if (key === null) return false;
      const infos = await readToolList(this.#deps.home!, entry.server.name, key);
      if (infos === null || entry.status.state !== "connecting") return false;
      this.#useTools(entry, infos);
      entry.live = new Set();
      entry.remembered = true;
      return true;
    } catch (err) {
      this.#deps.warn?.(`MCP server ${entry.server.name}: remembered tool list: ${errorLine(err)}`);
      return false;
    }
  }

  /** Remembers the server's list for the next run (a changed one is rewritten). */
  async #remember(
    server: McpServerConfig,
    keying: Promise<string | null>,
    tools: readonly McpToolInfo[],
  ): Promise<void> {
    try {
      const key = await keying;
      if (key !== null) await writeToolList(this.#deps.home!, server.name, key, tools);
    } catch (err) {
      this.#deps.warn?.(
        `MCP server ${server.name}: could not remember its tools: ${errorLine(err)}`,
      );
    }
  }

  /**
   * A server's form request, during a tool call: answered by a resumed call's answer, else by
   * the user (an interactive session), else kept for a needs-human ending and cancelled on the
   * server (a headless run: nobody to ask now). An answer that does not fit is never sent.
   */
  #onElicit(entry: Entry, message: string, schema: unknown): Promise<ElicitResult> {
    const request: ElicitRequest = {
      server: entry.server.name,
      message,
      requestedSchema: (schema ?? {}) as FormSchema,
    };
    return answerFormRequest(request, entry.calls.at(-1), this.#deps.elicit);
  }

  async #call(
    entry: Entry,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
    answer?: ToolContext["elicitation"],
  ): Promise<ToolOutcome> {
    const active: ActiveCall = answer ? { answer } : {};
    entry.calls.push(active);
    try {
      const outcome = await this.#callOnce(entry, tool, args, signal);
      if (!active.asked) return outcome;
      return {
        type: "needs_human",
        questions: [elicitationQuestion(active.asked)],
        content: `MCP server ${entry.server.name} asks the operator to fill a form`,
        form: active.asked.requestedSchema as Record<string, unknown>,
      };
    } finally {
      entry.calls.splice(entry.calls.indexOf(active), 1);
    }
  }

  async #callOnce(
    entry: Entry,
    tool: string,
    args: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<ToolOutcome> {
    const name = entry.server.name;
    // A remembered tool: the call starts its server if need be and waits for the connection.
    if (!entry.begun) void this.#begin(entry);
    if (entry.remembered) await untilAborted(entry.starting, signal);
    const connection = entry.connection;
    if (!connection) {
      return {
        type: "result",
        is_error: true,
        content:
          `MCP server ${name} is not connected (${entry.status.error ?? entry.status.state}); ` +
          `the user can reconnect it with /mcp reconnect ${name}`,
      };
    }
    if (!entry.live.has(tool)) {
      return {
        type: "result",
        is_error: true,
        content: `MCP server ${name} no longer offers a tool ${tool}; its tools are now: ` +
          ([...entry.live].join(", ") || "none"),
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
      // The SDK's RequestTimeout (it has also sent the server notifications/cancelled).
      const why = (err as { code?: unknown }).code === REQUEST_TIMEOUT
        ? `no answer within tool_timeout_s = ${entry.server.tool_timeout_s}; the call was cancelled`
        : errorLine(err);
      return {
        type: "result",
        is_error: true,
        content: `MCP server ${name}, tool ${tool}: ${why}` +
          (gone ? `; the server went away${stderr ? ` (stderr: ${stderr})` : ""}` : ""),
      };
    }
  }

  async #approved(server: McpServerConfig): Promise<boolean> {
    if (this.#approvedNow.has(server.name)) return true;
    const approved = this.#settings.mcp_approvals[server.file] ?? [];
    return approved.includes(await approvalEntry(server));
  }
}
