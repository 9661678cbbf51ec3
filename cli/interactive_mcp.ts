// /mcp: the session's MCP servers, their state and tools; `/mcp reconnect NAME` restarts a
// failed one, `/mcp approve NAME` records the approval of a project-file server (in the global
// settings, for this project) and starts it. A server's tools join the next reply's tool list.

import type { SessionState } from "./interactive_types.ts";
import type { McpServerStatus } from "../core/mcp/manager.ts";
import { replaceMcpTools } from "../core/mcp/tools.ts";
import { approvalEntry, describeMcpServer } from "../core/settings/mcp_servers.ts";
import { approveMcpServer } from "../core/settings/mcp_settings_file.ts";

export async function mcpCommand(s: SessionState, arg: string): Promise<void> {
  const mcp = s.ctx.mcp;
  if (!mcp) {
    return s.note(
      "no MCP servers configured: add one with `agent mcp add NAME -- COMMAND` or an " +
        "[mcp_servers.NAME] table in the settings (core/settings/settings.md)",
    );
  }
  const [sub = "", name = ""] = arg.trim().split(/\s+/);
  if (sub === "" || sub === "list") {
    // Servers connect behind the prompt: the listing waits for those still starting.
    const starting = mcp.statuses().filter((x) => x.state === "connecting").length;
    if (starting > 0) {
      s.note(`waiting for ${starting} MCP server${starting === 1 ? "" : "s"} still connecting…`);
      await mcp.start();
    }
    for (const status of mcp.statuses()) s.print(describeStatus(s, status));
    return;
  }
  if ((sub !== "reconnect" && sub !== "approve") || name === "") {
    return s.error("usage: /mcp, /mcp reconnect NAME, /mcp approve NAME");
  }
  const server = mcp.server(name);
  if (!server) {
    return s.error(
      `no MCP server named ${name}; configured: ${mcp.statuses().map((x) => x.name).join(", ")}`,
    );
  }
  if (sub === "approve") {
    if (server.scope !== "project") {
      return s.note(`${name} comes from the global settings: no approval needed`);
    }
    await approveMcpServer(s.ctx.home, server.file, name, await approvalEntry(server));
    mcp.markApproved(name);
    s.note(`approved ${name} for this project (${describeMcpServer(server)})`);
  }
  s.note(`connecting ${name}…`);
  const status = await s.guarded(() => mcp.reconnect(name));
  refreshTools(s);
  s.print(describeStatus(s, status));
}

/** The MCP part of the status line: servers still connecting, or failed ones; "" when all are up. */
export function mcpStatusPart(s: SessionState): string {
  const statuses = s.ctx.mcp?.statuses() ?? [];
  const connecting = statuses.filter((x) => x.state === "connecting").length;
  const failed = statuses.filter((x) => x.state === "failed").length;
  const parts: string[] = [];
  const installing = statuses.filter((x) =>
    x.state === "connecting" && x.note?.includes("installing")
  );
  if (installing.length > 0) {
    parts.push(`mcp installing ${installing.map((x) => x.name).join(", ")}`);
  }
  if (connecting > 0) parts.push(`mcp connecting ${connecting}/${statuses.length}`);
  if (failed > 0) parts.push(`mcp ${failed} failed (/mcp)`);
  return parts.join(" · ");
}

/** Replaces the MCP tools in the session's tool list with the servers' current ones. */
export function refreshTools(s: SessionState): void {
  replaceMcpTools(s.ctx.tools, s.ctx.mcp?.tools() ?? []);
}

function describeStatus(s: SessionState, status: McpServerStatus): string {
  const state = status.state === "ready"
    ? s.style.green("ready")
    : status.state === "failed"
    ? s.style.red("failed")
    : s.style.dim(status.state.replace("_", " "));
  const head = `${status.name} (${status.transport}, ${status.scope}): ${state}` +
    (status.state === "ready" ? `, ${status.tools.length} tools` : "");
  const lines = [head];
  if (status.error) lines.push(`  ${s.style.dim(status.error)}`);
  if (status.state === "ready" && status.tools.length > 0) {
    lines.push(`  ${s.style.dim(status.tools.join(", "))}`);
  }
  if (status.state === "failed") lines.push(`  ${s.style.dim(`/mcp reconnect ${status.name}`)}`);
  return lines.join("\n");
}
