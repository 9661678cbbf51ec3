// The [mcp_servers.<name>] tables of the global and project settings files (the shape Codex
// CLI users know): one MCP server per table, stdio (command/args/env/cwd) or Streamable HTTP
// (url plus headers). A project file's servers are untrusted, like a project base_url: they
// start only once the user has approved them for that project (mcp_approvals in the global
// file, keyed by the project file and pinned to a fingerprint of the server's table), and
// they never get a stored key. Decisions: settings.md, "MCP servers".

import type { LoadedFile } from "./toml_file.ts";
import { positionOf } from "./toml_file.ts";
import { badValue } from "./values.ts";
import type { CommonServer, HttpServer, McpServerConfig } from "./mcp_server_config.ts";
import type { Source } from "./source.ts";

export type { HttpServer, McpServerConfig, StdioServer } from "./mcp_server_config.ts";

export const DEFAULT_STARTUP_TIMEOUT_S = 10;
export const DEFAULT_TOOL_TIMEOUT_S = 60;
/** Server names become part of tool names (`mcp__<server>__<tool>`), so they are kept plain. */
export const MCP_SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** Keys only a stdio (command) server may have. */
const STDIO_FIELDS = ["command", "args", "env", "cwd", "read_paths", "network"] as const;
/** Keys only a Streamable HTTP (url) server may have. */
const HTTP_FIELDS = [
  "url",
  "http_headers",
  "bearer_key",
  "key_header",
  "oauth_client_id",
  "oauth_client_metadata_url",
  "oauth_grant",
  "oauth_idp_token_endpoint",
  "oauth_idp_client_id",
  "oauth_id_token_file",
  "oauth_private_key_file",
  "oauth_signing_alg",
] as const;
const FIELDS = [
  ...STDIO_FIELDS,
  ...HTTP_FIELDS,
  "enabled",
  "startup_timeout_s",
  "tool_timeout_s",
  "enabled_tools",
  "disabled_tools",
] as const;

function isTable(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date);
}

/** Parses one file's [mcp_servers] tables; throws a SettingsError naming file, line and key. */
export function parseMcpServers(
  file: LoadedFile,
  scope: "global" | "project",
  warnings: string[],
): McpServerConfig[] {
  const value = file.table.mcp_servers;
  if (value === undefined) return [];
  const source: Source = { kind: scope, detail: file.path };
  const at = (...path: string[]) => () => positionOf(file, ["mcp_servers", ...path]);
  if (!isTable(value)) {
    throw badValue("mcp_servers", "tables ([mcp_servers.<name>])", value, source, at());
  }
  const out: McpServerConfig[] = [];
  for (const [name, raw] of Object.entries(value)) {
    const key = `mcp_servers.${name}`;
    if (!MCP_SERVER_NAME.test(name)) {
      throw badValue(
        key,
        "a server name of at most 32 letters, digits, '_' or '-'",
        name,
        source,
        at(name),
      );
    }
    if (!isTable(raw)) throw badValue(key, "a table", raw, source, at(name));
    for (const extra of Object.keys(raw)) {
      if (!(FIELDS as readonly string[]).includes(extra)) {
        const p = at(name, extra)();
        warnings.push(
          `${file.path}${p.line ? `:${p.line}` : ""}: unknown field ${extra} in [${key}] ` +
            `(ignored; known fields: ${FIELDS.join(", ")})`,
        );
      }
    }
    const fail = (field: string, expected: string) =>
      badValue(`${key}.${field}`, expected, raw[field], source, at(name, field));
    const str = (field: string): string | undefined => {
      const v = raw[field];
      if (v === undefined) return undefined;
      if (typeof v !== "string" || v.trim() === "") throw fail(field, "a non-empty string");
      return v;
    };
    const list = (field: string): string[] | undefined => {
      const v = raw[field];
      if (v === undefined) return undefined;
      if (!Array.isArray(v) || !v.every((x) => typeof x === "string")) {
        throw fail(field, "a list of strings");
      }
      return [...v];
    };
    const strings = (field: string): Record<string, string> => {
      const v = raw[field];
      if (v === undefined) return {};
      if (!isTable(v) || !Object.values(v).every((x) => typeof x === "string")) {
        throw fail(field, "a table of string values");
      }
      return { ...(v as Record<string, string>) };
    };
    const seconds = (field: string, fallback: number): number => {
      const v = raw[field];
      if (v === undefined) return fallback;
      const n = typeof v === "bigint" ? Number(v) : v;
      if (typeof n !== "number" || !Number.isFinite(n) || n <= 0 || n > 86_400) {
        throw fail(field, "a number of seconds in (0, 86400]");
      }
      return n;
    };
    const enabled = raw.enabled ?? true;
    if (typeof enabled !== "boolean") throw fail("enabled", "a boolean");
    const enabled_tools = list("enabled_tools");
    const disabled_tools = list("disabled_tools");
    const common: CommonServer = {
      name,
      enabled,
      startup_timeout_s: seconds("startup_timeout_s", DEFAULT_STARTUP_TIMEOUT_S),
      tool_timeout_s: seconds("tool_timeout_s", DEFAULT_TOOL_TIMEOUT_S),
      ...(enabled_tools ? { enabled_tools } : {}),
      ...(disabled_tools ? { disabled_tools } : {}),
      scope,
      file: file.path,
    };
    const command = str("command");
    const url = str("url");
    if ((command === undefined) === (url === undefined)) {
      throw badValue(
        key,
        "exactly one of command (a stdio server) or url (a Streamable HTTP server)",
        raw,
        source,
        at(name),
      );
    }
    if (command !== undefined) {
      for (const f of HTTP_FIELDS) {
        if (raw[f] !== undefined) throw fail(f, "absent: it applies to url servers only");
      }
      const cwd = str("cwd");
      const read_paths = list("read_paths") ?? [];
      for (const p of read_paths) {
        if (!p.startsWith("/")) throw fail("read_paths", "a list of absolute paths");
      }
      const network = raw.network;
      if (network !== undefined && typeof network !== "boolean") throw fail("network", "a boolean");
      out.push({
        ...common,
        transport: "stdio",
        command,
        args: list("args") ?? [],
        env: strings("env"),
        ...(cwd !== undefined ? { cwd } : {}),
        read_paths,
        ...(network !== undefined ? { network } : {}),
      });
      continue;
    }
    for (const f of STDIO_FIELDS) {
      if (raw[f] !== undefined) throw fail(f, "absent: it applies to command servers only");
    }
    let parsed: URL;
    try {
      parsed = new URL(url!);
    } catch {
      throw fail("url", "an http:// or https:// URL");
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
      throw fail("url", "an http:// or https:// URL");
    }
    const bearer_key = str("bearer_key");
    const oauth_client_id = str("oauth_client_id");
    const oauth_client_metadata_url = str("oauth_client_metadata_url");
    if (
      oauth_client_metadata_url !== undefined && !oauth_client_metadata_url.startsWith("https://")
    ) {
      throw fail("oauth_client_metadata_url", "an https:// URL");
    }
    const oauth_grant = str("oauth_grant");
    if (
      oauth_grant !== undefined && oauth_grant !== "authorization_code" &&
      oauth_grant !== "client_credentials" && oauth_grant !== "cross_app_access"
    ) {
      throw fail("oauth_grant", '"authorization_code", "client_credentials" or "cross_app_access"');
    }
    if (
      (oauth_grant === "client_credentials" || oauth_grant === "cross_app_access") &&
      oauth_client_id === undefined
    ) {
      throw fail("oauth_client_id", `set: the ${oauth_grant} grant needs the client's id`);
    }
    const crossApp = crossAppFields(str, oauth_grant === "cross_app_access", fail);
    const oauth_private_key_file = str("oauth_private_key_file");
    if (oauth_private_key_file !== undefined && !oauth_private_key_file.startsWith("/")) {
      throw fail("oauth_private_key_file", "an absolute path");
    }
    const oauth_signing_alg = str("oauth_signing_alg");
    out.push({
      ...common,
      transport: "http",
      url: url!,
      http_headers: strings("http_headers"),
      ...(bearer_key !== undefined ? { bearer_key } : {}),
      key_header: str("key_header") ?? "Authorization",
      ...(oauth_client_id !== undefined ? { oauth_client_id } : {}),
      ...(oauth_client_metadata_url !== undefined ? { oauth_client_metadata_url } : {}),
      ...(oauth_grant !== undefined ? { oauth_grant } : {}),
      ...(oauth_private_key_file !== undefined ? { oauth_private_key_file } : {}),
      ...(oauth_signing_alg !== undefined ? { oauth_signing_alg } : {}),
      ...crossApp,
    });
  }
  return out;
}

/**
 * The servers in effect: the global file's, with a project table of the same name replacing
 * the global one wholesale (a project server is untrusted whatever it replaces).
 */
/**
 * The cross_app_access grant's settings: all three with that grant (the IdP's token endpoint,
 * this client's id there, the file holding the user's ID token), none without it.
 */
function crossAppFields(
  str: (field: string) => string | undefined,
  crossApp: boolean,
  fail: (field: string, expected: string) => Error,
): Pick<HttpServer, "oauth_idp_token_endpoint" | "oauth_idp_client_id" | "oauth_id_token_file"> {
  const fields = ["oauth_idp_token_endpoint", "oauth_idp_client_id", "oauth_id_token_file"];
  if (!crossApp) {
    for (const f of fields) {
      if (str(f) !== undefined) {
        throw fail(f, 'absent: it applies to oauth_grant = "cross_app_access"');
      }
    }
    return {};
  }
  const [endpoint, clientId, tokenFile] = fields.map(str);
  if (!endpoint || !/^https?:\/\//.test(endpoint) || !URL.canParse(endpoint)) {
    throw fail("oauth_idp_token_endpoint", "an http:// or https:// URL of the identity provider");
  }
  if (!clientId) {
    throw fail("oauth_idp_client_id", "set: this client's id at the identity provider");
  }
  if (!tokenFile?.startsWith("/")) {
    throw fail("oauth_id_token_file", "an absolute path of the file holding the user's ID token");
  }
  return {
    oauth_idp_token_endpoint: endpoint,
    oauth_idp_client_id: clientId,
    oauth_id_token_file: tokenFile,
  };
}

export function mergeMcpServers(
  global: readonly McpServerConfig[],
  project: readonly McpServerConfig[],
): McpServerConfig[] {
  const byName = new Map<string, McpServerConfig>();
  for (const s of global) byName.set(s.name, s);
  for (const s of project) byName.set(s.name, s);
  return [...byName.values()];
}

/** The global file's record of approved project servers: project file → "name@fingerprint". */
export function parseMcpApprovals(
  file: LoadedFile | undefined,
): Record<string, readonly string[]> {
  const value = file?.table.mcp_approvals;
  if (value === undefined || !file) return {};
  const source: Source = { kind: "global", detail: file.path };
  if (!isTable(value)) {
    throw badValue(
      "mcp_approvals",
      "a table of project file → list of approved servers",
      value,
      source,
      () => positionOf(file, ["mcp_approvals"]),
    );
  }
  const out: Record<string, readonly string[]> = {};
  for (const [project, list] of Object.entries(value)) {
    if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) {
      throw badValue(
        `mcp_approvals.${JSON.stringify(project)}`,
        "a list of strings",
        list,
        source,
        () => positionOf(file, ["mcp_approvals"]),
      );
    }
    out[project] = [...list];
  }
  return out;
}

/**
 * A short digest of everything that decides what a server runs or reaches. An approval is
 * pinned to it, so editing a project server's command, args, env, cwd, read_paths, network or
 * url asks again. read_paths and network join the digest only when set, so approvals recorded
 * before they existed still hold.
 */
export async function mcpFingerprint(s: McpServerConfig): Promise<string> {
  const what = s.transport === "stdio"
    ? {
      command: s.command,
      args: s.args,
      env: sorted(s.env),
      cwd: s.cwd ?? null,
      ...(s.read_paths.length > 0 ? { read_paths: s.read_paths } : {}),
      ...(s.network !== undefined ? { network: s.network } : {}),
    }
    : { url: s.url, http_headers: sorted(s.http_headers) };
  const bytes = new TextEncoder().encode(JSON.stringify(what));
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return [...digest.slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

function sorted(r: Readonly<Record<string, string>>): [string, string][] {
  return Object.entries(r).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The approval entry recorded for a project server. */
export async function approvalEntry(s: McpServerConfig): Promise<string> {
  return `${s.name}@${await mcpFingerprint(s)}`;
}

/** One line saying what a server runs or reaches, for listings and approval prompts. */
export function describeMcpServer(s: McpServerConfig): string {
  if (s.transport === "stdio") {
    const env = Object.keys(s.env);
    return [
      [s.command, ...s.args].map(shellWord).join(" "),
      ...(s.cwd ? [`(cwd ${s.cwd})`] : []),
      ...(env.length > 0 ? [`(env ${env.join(", ")})`] : []),
      ...(s.read_paths.length > 0 ? [`(read_paths ${s.read_paths.join(", ")})`] : []),
      ...(s.network !== undefined ? [`(network ${s.network ? "on" : "off"})`] : []),
    ].join(" ");
  }
  const headers = Object.keys(s.http_headers);
  return [
    s.url,
    ...(headers.length > 0 ? [`(headers ${headers.join(", ")})`] : []),
    ...(s.bearer_key ? [`(key mcp_keys.${s.bearer_key})`] : []),
  ].join(" ");
}

function shellWord(w: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`;
}
