// The MCP client the agent uses: the SDK's own Protocol (shared/protocol.js: JSON-RPC ids,
// timeouts, cancellation, progress, and each result parsed with the SDK's schemas) with the
// four requests the agent sends (initialize, tools/list, tools/call, ping), written the way the
// SDK's Client writes them. Not the SDK's Client itself: client/index.js imports ajv and
// ajv-formats at load, for the structured-result check it makes with them, and those two were
// half of the SDK's load time on the way to the first model request (cold: client/index.js with
// the stdio framing 213 ms, protocol.js with it 109 ms; scripts/bench_mcp.ts has the figures).
// Structured results are checked here instead, with @cfworker/json-schema, loaded and compiled
// per tool only when a tool with an output schema returns something (core/mcp/output_schema.ts).

import { Protocol as SdkProtocol } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  CallToolResultSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  ErrorCode,
  InitializeResultSchema,
  LATEST_PROTOCOL_VERSION,
  ListToolsResultSchema,
  McpError,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import type {
  ClientNotification,
  ClientRequest,
  ServerCapabilities,
} from "@modelcontextprotocol/sdk/types.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";

// The SDK's subpath types do not resolve under Deno (its exports map "./*" to "*.d.ts", so
// protocol.js's types would be protocol.js.d.ts): the part of Protocol this class uses, typed.
interface RequestOptions {
  signal?: AbortSignal;
  timeout?: number;
}
interface InitializeResult {
  protocolVersion: string;
  capabilities: ServerCapabilities;
}
interface ListToolsResult {
  tools: { name: string; outputSchema?: Record<string, unknown> }[];
  nextCursor?: string;
}
interface CallToolResult {
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}
declare class ProtocolBase {
  connect(transport: Transport): Promise<void>;
  close(): Promise<void>;
  request<T>(request: ClientRequest, schema: unknown, options?: RequestOptions): Promise<T>;
  notification(notification: ClientNotification): Promise<void>;
  setRequestHandler(
    schema: unknown,
    handler: (request: { params: Record<string, unknown> }) => Promise<Record<string, unknown>>,
  ): void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
}
const Protocol = SdkProtocol as unknown as typeof ProtocolBase;

type OutputSchemaModule = typeof import("./output_schema.ts");
let outputSchemaModule: Promise<OutputSchemaModule> | undefined;

/** Loaded on the first structured result to check (see cli/main.ts). */
function loadOutputSchema(): Promise<OutputSchemaModule> {
  outputSchemaModule ??= import("./output_schema.ts");
  return outputSchemaModule;
}

type Check = (value: unknown) => string | undefined;

/** Answers one form request: the server's message and requested schema, to the result to send. */
export type ElicitHandler = (
  message: string,
  requestedSchema: unknown,
) => Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> }>;

export class McpClient extends Protocol {
  #info: { name: string; version: string };
  #serverCapabilities: ServerCapabilities | undefined;
  /** Output schemas by tool name, from the last tools/list; compiled on first use. */
  #outputSchemas = new Map<string, Record<string, unknown>>();
  #checks = new Map<string, Check>();

  #elicit: ElicitHandler | undefined;

  /**
   * `elicit`, when given, answers the server's form requests (elicitation/create); the client
   * then declares the elicitation capability (form mode only: URL mode is not offered).
   */
  constructor(info: { name: string; version: string }, elicit?: ElicitHandler) {
    super();
    this.#info = info;
    this.#elicit = elicit;
    if (elicit) {
      this.setRequestHandler(ElicitRequestSchema, async (request) => {
        const params = request.params;
        if (params.mode === "url") {
          // Declared capability is form only; a URL request is refused as the spec says.
          throw new McpError(ErrorCode.InvalidParams, "this client supports form elicitation only");
        }
        return { ...await elicit(String(params.message ?? ""), params.requestedSchema ?? {}) };
      });
    }
  }

  override async connect(transport: Transport, options?: RequestOptions): Promise<void> {
    await super.connect(transport);
    try {
      const result = await this.request<InitializeResult>(
        {
          method: "initialize",
          params: {
            protocolVersion: LATEST_PROTOCOL_VERSION,
            capabilities: this.#elicit ? { elicitation: { form: {} } } : {},
            clientInfo: this.#info,
          },
        },
        InitializeResultSchema,
        options,
      );
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(result.protocolVersion)) {
        throw new Error(`Server's protocol version is not supported: ${result.protocolVersion}`);
      }
      this.#serverCapabilities = result.capabilities;
      // A Streamable HTTP transport sends the agreed version in a header from now on.
      transport.setProtocolVersion?.(result.protocolVersion);
      await this.notification({ method: "notifications/initialized" });
    } catch (err) {
      void this.close();
      throw err;
    }
  }

  async ping(options?: RequestOptions) {
    return await this.request<Record<string, never>>(
      { method: "ping" },
      EmptyResultSchema,
      options,
    );
  }

  async listTools(params: { cursor?: string }, options?: RequestOptions) {
    const result = await this.request<ListToolsResult>(
      { method: "tools/list", params },
      ListToolsResultSchema,
      options,
    );
    if (params.cursor === undefined) {
      this.#outputSchemas.clear();
      this.#checks.clear();
    }
    for (const tool of result.tools) {
      if (tool.outputSchema) this.#outputSchemas.set(tool.name, tool.outputSchema);
    }
    return result;
  }

  /** Calls a tool; structured content must match the tool's output schema, as in the SDK. */
  async callTool(
    params: { name: string; arguments: Record<string, unknown> },
    options?: RequestOptions,
  ) {
    const result = await this.request<CallToolResult>(
      { method: "tools/call", params },
      CallToolResultSchema,
      options,
    );
    const schema = this.#outputSchemas.get(params.name);
    if (schema === undefined) return result;
    if (!result.structuredContent && !result.isError) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Tool ${params.name} has an output schema but did not return structured content`,
      );
    }
    if (result.structuredContent) {
      let check = this.#checks.get(params.name);
      if (!check) {
        check = (await loadOutputSchema()).compileOutputSchema(schema);
        this.#checks.set(params.name, check);
      }
      const problem = check(result.structuredContent);
      if (problem !== undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `Structured content does not match the tool's output schema: ${problem}`,
        );
      }
    }
    return result;
  }

  // The agent offers elicitation at most and handles no other server requests beyond the
  // Protocol's own (ping, cancellation, progress), so these checks of the SDK's Client have
  // nothing to refuse, except a request for something the server did not declare.
  protected assertCapabilityForMethod(method: ClientRequest["method"]): void {
    if ((method === "tools/list" || method === "tools/call") && !this.#serverCapabilities?.tools) {
      throw new Error(`Server does not support tools (required for ${method})`);
    }
  }
  protected assertNotificationCapability(): void {}
  protected assertRequestHandlerCapability(): void {}
  protected assertTaskCapability(): void {}
  protected assertTaskHandlerCapability(): void {}
}
