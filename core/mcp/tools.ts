// An MCP server's tool as one of the agent's Tool values: named `mcp__<server>__<tool>`, its
// JSON Schema passed on as the server wrote it (the wire's strict-tools normalization treats it
// like a built-in's and leaves it unchanged where it cannot be normalized), and a permission
// kind from its annotations: readOnlyHint → read; otherwise edit (annotated as not destructive)
// or shell (destructive, or not annotated at all: the stricter reading). Both of the latter are
// applied in auto mode, need approval in strict mode and are denied in plan mode.

import type { Tool, ToolContext, ToolKind } from "../tools/types.ts";
import type { McpServerConfig } from "../settings/mcp_servers.ts";
import type { McpToolInfo } from "./connection.ts";

export const MCP_TOOL_PREFIX = "mcp__";
/** Both wires accept tool names of at most 64 characters from this set. */
const NAME_CHARS = /[^A-Za-z0-9_-]/g;
const MAX_NAME = 64;

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${server}__${tool.replace(NAME_CHARS, "_")}`.slice(0, MAX_NAME);
}

export function mcpToolKind(info: McpToolInfo): ToolKind {
  const a = info.annotations;
  if (a?.readOnlyHint === true) return "read";
  if (a?.readOnlyHint === false && a.destructiveHint === false) return "edit";
  return "shell";
}

/** Whether the server's allow/deny lists let this tool through. */
export function toolAllowed(server: McpServerConfig, tool: string): boolean {
  if (server.enabled_tools && !server.enabled_tools.includes(tool)) return false;
  return !server.disabled_tools?.includes(tool);
}

/** The input schema as the model sees it: an object schema, as both wires require. */
function inputSchemaOf(info: McpToolInfo): Record<string, unknown> {
  const s = info.inputSchema;
  if (s && typeof s === "object" && !Array.isArray(s)) {
    return s.type === undefined ? { type: "object", ...s } : s;
  }
  return { type: "object", properties: {} };
}

/** Executes a call on the server (the manager's job: it knows whether the server is up). */
export type McpCaller = (
  tool: string,
  args: Record<string, unknown>,
  signal: AbortSignal,
  /** A resumed call's answer to the server's form (ToolContext.elicitation). */
  elicitation?: ToolContext["elicitation"],
) => ReturnType<Tool["execute"]>;

export function mcpTool(server: McpServerConfig, info: McpToolInfo, call: McpCaller): Tool {
  const name = mcpToolName(server.name, info.name);
  const description = [
    `(MCP server ${server.name}, tool ${info.name})`,
    info.description ?? info.annotations?.title ?? "",
  ].join(" ").trim();
  const argsText = (input: Record<string, unknown>) => {
    const text = JSON.stringify(input);
    return text.length > 200 ? `${text.slice(0, 199)}…` : text;
  };
  return {
    name,
    description,
    input_schema: inputSchemaOf(info),
    kind: mcpToolKind(info),
    summarize: (input) => `${name} ${argsText(input)}`,
    preview: (input) =>
      Promise.resolve(
        `MCP server ${server.name} (${server.scope} settings), tool ${info.name}\n` +
          JSON.stringify(input, null, 2),
      ),
    execute: (input, ctx) => call(info.name, input, ctx.signal, ctx.elicitation),
  };
}

/** Replaces, in place, the MCP tools of a run's tool list with the servers' current ones. */
export function replaceMcpTools(tools: Tool[], current: readonly Tool[]): void {
  const kept = tools.filter((t) => !t.name.startsWith(MCP_TOOL_PREFIX));
  tools.splice(0, tools.length, ...kept, ...current);
}
