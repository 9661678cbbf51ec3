// Writing the MCP parts of the global settings file (`agent mcp add|remove|approve|set-key`,
// `/mcp approve`): the same read-merge-write as every other global-file change, so no other
// setting, key or server is ever dropped. Project files are never written: they belong to
// the repository and are edited by hand.

import { SettingsError } from "./errors.ts";
import { MCP_SERVER_NAME, parseMcpServers } from "./mcp_servers.ts";
import { globalSettingsPath } from "./project.ts";
import { tableAt, updateGlobalSettings } from "./settings_file.ts";

function checkName(name: string, path: string): void {
  if (!MCP_SERVER_NAME.test(name)) {
    throw new SettingsError(
      `MCP server name ${JSON.stringify(name)} is not valid: use at most 32 letters, digits, ` +
        "'_' or '-'.",
      { key: "mcp_servers", file: path },
    );
  }
}

/**
 * Adds [mcp_servers.<name>]; refuses to replace an existing one (remove it first), and refuses
 * a table the parser would reject (a bad url, say): written, it would stop every later start
 * with a settings error until the file was fixed by hand.
 */
export function addMcpServer(
  home: string,
  name: string,
  table: Record<string, unknown>,
): Promise<void> {
  const path = globalSettingsPath(home);
  return updateGlobalSettings(home, (doc) => {
    checkName(name, path);
    const servers = tableAt(doc, "mcp_servers", path);
    if (servers[name] !== undefined) {
      throw new SettingsError(
        `MCP server ${name} already exists in ${path}; remove it first (agent mcp remove ${name}).`,
        { key: `mcp_servers.${name}`, file: path },
      );
    }
    parseMcpServers({ path, text: "", table: { mcp_servers: { [name]: table } } }, "global", []);
    servers[name] = table;
  });
}

/** Removes [mcp_servers.<name>]; resolves to false when the global file has no such server. */
export function removeMcpServer(home: string, name: string): Promise<boolean> {
  const path = globalSettingsPath(home);
  return updateGlobalSettings(home, (doc) => {
    if (doc.mcp_servers === undefined) return false;
    const servers = tableAt(doc, "mcp_servers", path);
    if (servers[name] === undefined) return false;
    delete servers[name];
    return true;
  });
}

/**
 * Records that the user approved a project-file server: mcp_approvals[<project file>] gets
 * "name@fingerprint" in place of any older approval of the same name.
 */
export function approveMcpServer(
  home: string,
  projectFile: string,
  name: string,
  entry: string,
): Promise<void> {
  const path = globalSettingsPath(home);
  return updateGlobalSettings(home, (doc) => {
    const approvals = tableAt(doc, "mcp_approvals", path);
    const current = approvals[projectFile] ?? [];
    if (!Array.isArray(current)) {
      throw new SettingsError(
        `Refusing to write ${path}: mcp_approvals for ${projectFile} is not a list. Fix it by ` +
          "hand; the file was left untouched.",
        { key: "mcp_approvals", file: path },
      );
    }
    approvals[projectFile] = [
      ...current.filter((e) => typeof e !== "string" || !e.startsWith(`${name}@`)),
      entry,
    ];
  });
}

/** Stores mcp_keys[<id>] = key (a Streamable HTTP server's bearer_key names it). */
export function setMcpKey(home: string, id: string, key: string): Promise<void> {
  const path = globalSettingsPath(home);
  const clean = key.trim();
  if (!MCP_SERVER_NAME.test(id)) {
    return Promise.reject(
      new SettingsError(`Key id ${JSON.stringify(id)} is not valid: use letters, digits, _ or -.`, {
        key: "mcp_keys",
        file: path,
      }),
    );
  }
  if (clean === "" || /\s/.test(clean)) {
    return Promise.reject(
      new SettingsError(`The key for ${id} is empty or contains whitespace; paste the key alone.`, {
        key: `mcp_keys.${id}`,
        file: path,
      }),
    );
  }
  return updateGlobalSettings(home, (doc) => {
    tableAt(doc, "mcp_keys", path)[id] = clean;
  });
}
