// `agent mcp list|add|remove|test|approve|set-key`: manage and check MCP servers.
//   list                      every configured server, where it came from, whether it may start
//   add NAME -- COMMAND ARGS  a stdio server in the global settings (--env K=V, --cwd DIR)
//   add NAME --url URL        a Streamable HTTP server (--header K=V, --bearer-key ID)
//   remove NAME               drop it from the global settings
//   test NAME                 connect now and list its tools (exit 0 ready, 1 not); a stdio
//                             server runs in the same sandbox as in a run
//   approve NAME              let a project-file server start in this project (recorded in
//                             the global settings, pinned to its current command/url)
//   set-key ID                store a key for bearer_key = ID, read from stdin
//   login NAME                sign in to a Streamable HTTP server with OAuth (browser, loopback
//                             redirect); tokens kept 0600 under the agent home
//   logout NAME               forget its OAuth registration and tokens
//   update NAME               re-resolve a launcher server's package (npx, bunx, uvx, pipx run)
//                             and install that version (also done by add, approve, first start)
// Project files are never written: they belong to the repository.

import { parseArgs } from "node:util";
import { errorLine } from "../core/logger.ts";
import { type Env, processEnv, systemClock } from "../core/ports.ts";
import { agentHome, globalSettingsPath } from "../core/settings/project.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import type { Settings } from "../core/settings/types.ts";
import {
  approvalEntry,
  describeMcpServer,
  type McpServerConfig,
} from "../core/settings/mcp_servers.ts";
import {
  addMcpServer,
  approveMcpServer,
  removeMcpServer,
  setMcpKey,
} from "../core/settings/mcp_settings_file.ts";
import { McpManager } from "../core/mcp/manager.ts";
import { launcherFor, stdioSpec } from "../core/mcp/launch.ts";
import { launcherPackage } from "../core/mcp/launcher_spec.ts";
import {
  describeInstalled,
  installerEnv,
  installPackage,
  readInstalled,
  serverPackageDir,
} from "../core/mcp/package_install.ts";
import { readFirstLine, readHidden } from "./config_main.ts";
import { VERSION } from "./version.ts";

export const MCP_USAGE = [
  "usage: agent mcp list",
  "       agent mcp add NAME [--env K=V]... [--cwd DIR] -- COMMAND [ARGS...]",
  "       agent mcp add NAME --url URL [--header K=V]... [--bearer-key ID]",
  "       agent mcp remove NAME | test NAME | approve NAME | update NAME | set-key ID",
  "       agent mcp login NAME | logout NAME",
].join("\n");

export interface McpCommandIo {
  out: (text: string) => void;
  err: (text: string) => void;
  env?: Env;
  cwd?: string;
}

export async function runMcpCommand(argv: string[], io: McpCommandIo): Promise<number> {
  const env = io.env ?? processEnv;
  const dashDash = argv.indexOf("--");
  const before = dashDash === -1 ? argv : argv.slice(0, dashDash);
  const command = dashDash === -1 ? [] : argv.slice(dashDash + 1);
  const { values, positionals } = parseArgs({
    args: before,
    allowPositionals: true,
    options: {
      env: { type: "string", multiple: true },
      header: { type: "string", multiple: true },
      cwd: { type: "string" },
      url: { type: "string" },
      "bearer-key": { type: "string" },
      workdir: { type: "string" },
    },
  });
  const [sub, name, ...extra] = positionals;
  if (sub === undefined || extra.length > 0) return usage(io);
  const home = agentHome(env);
  const cwd = values.workdir ?? io.cwd ?? Deno.cwd();
  const settings = resolveSettings({ flags: {}, env, cwd, home });
  switch (sub) {
    case "list":
      return await list(settings, env, io);
    case "add": {
      if (!name) return usage(io);
      const table = values.url !== undefined
        ? {
          url: values.url,
          ...(values.header ? { http_headers: pairs(values.header, "--header") } : {}),
          ...(values["bearer-key"] ? { bearer_key: values["bearer-key"] } : {}),
        }
        : {
          command: command[0] ?? missing("a command after --, or --url"),
          args: command.slice(1),
          ...(values.env ? { env: pairs(values.env, "--env") } : {}),
          ...(values.cwd ? { cwd: values.cwd } : {}),
        };
      await addMcpServer(home, name, table);
      // Read it back through the parser, so a bad value is reported now, not at next start.
      const added = resolveSettings({ flags: {}, env, cwd, home });
      io.out(`added MCP server ${name} to ${globalSettingsPath(home)}\n`);
      return await installIfLauncher(home, find(added, name), env, io);
    }
    case "login":
      return await login(settings, find(settings, name), env, io);
    case "logout": {
      const server = find(settings, name);
      const { forgetOAuth } = await import("../core/mcp/oauth.ts");
      io.out(
        (await forgetOAuth(home, server.name))
          ? `signed out of ${server.name}: its OAuth registration and tokens are forgotten\n`
          : `${server.name} had no OAuth sign-in kept\n`,
      );
      return 0;
    }
    case "update": {
      const server = find(settings, name);
      if (server.transport !== "stdio" || !launcherPackage(server.command, server.args)) {
        io.err(`agent: ${server.name} does not run through npx, bunx, uvx or pipx run\n`);
        return 1;
      }
      return await installIfLauncher(home, server, env, io);
    }
    case "remove": {
      if (!name) return usage(io);
      if (await removeMcpServer(home, name)) {
        await Deno.remove(serverPackageDir(home, name), { recursive: true }).catch((err) => {
          if (!(err instanceof Deno.errors.NotFound)) throw err;
        });
        io.out(`removed MCP server ${name} from ${globalSettingsPath(home)}\n`);
        return 0;
      }
      const elsewhere = settings.mcp_servers.find((s) => s.name === name);
      io.err(
        elsewhere
          ? `agent: ${name} is defined in ${elsewhere.file}; edit that file to remove it\n`
          : `agent: no MCP server named ${name} in ${globalSettingsPath(home)}\n`,
      );
      return 1;
    }
    case "approve": {
      const server = find(settings, name);
      if (server.scope !== "project") {
        io.out(`${server.name} comes from the global settings; it needs no approval\n`);
        return 0;
      }
      await approveMcpServer(home, server.file, server.name, await approvalEntry(server));
      io.out(
        `approved ${server.name} for ${server.file}: ${describeMcpServer(server)}\n` +
          "(a change to its command, args, env, cwd or url needs a new approval)\n",
      );
      return await installIfLauncher(home, server, env, io);
    }
    case "test":
      return await test(settings, find(settings, name), env, cwd, io);
    case "set-key": {
      if (!name) return usage(io);
      let key: string;
      if (Deno.stdin.isTerminal()) {
        io.out(`paste the key for ${name} and press enter (it is not shown): `);
        key = await readHidden();
        io.out("\n");
      } else key = await readFirstLine();
      await setMcpKey(home, name, key);
      io.out(
        `stored mcp_keys.${name} in ${globalSettingsPath(home)}; servers with bearer_key = ` +
          `"${name}" send it\n`,
      );
      return 0;
    }
    default:
      return usage(io);
  }
}

/** `agent mcp login NAME`: OAuth sign-in in the browser (core/mcp/oauth_login.ts). */
async function login(
  settings: Settings,
  server: McpServerConfig,
  env: Env,
  io: McpCommandIo,
): Promise<number> {
  if (server.transport !== "http") {
    io.err(`agent: ${server.name} is a stdio server; only url servers sign in with OAuth\n`);
    return 1;
  }
  if (server.scope === "project") {
    io.err(
      `agent: ${server.name} comes from ${server.file}; sign-ins are for servers in the global settings\n`,
    );
    return 1;
  }
  const { loginMcp } = await import("../core/mcp/oauth_login.ts");
  const secret = server.oauth_client_id ? settings.mcp_keys[server.oauth_client_id] : undefined;
  try {
    const tools = await loginMcp(agentHome(env), server, {
      fetch: globalThis.fetch,
      clientVersion: VERSION,
      headers: { ...server.http_headers },
      openBrowser: (url) => openBrowser(url, env, io),
      print: (line) => io.out(`${line}\n`),
      ...(server.oauth_client_id
        ? {
          preregistered: {
            client_id: server.oauth_client_id,
            ...(secret ? { client_secret: secret } : {}),
          },
        }
        : {}),
    });
    io.out(`signed in to ${server.name}: ready, ${tools} tools\n`);
    return 0;
  } catch (err) {
    io.err(`agent: signing in to ${server.name} failed: ${errorLine(err)}\n`);
    return 1;
  }
}

/**
 * Opens the URL in the user's browser: $BROWSER when set, else xdg-open (Linux) or open
 * (macOS) when there is one; the URL is printed either way, for a machine without a browser.
 */
async function openBrowser(url: URL, env: Env, io: McpCommandIo): Promise<void> {
  const chosen = env.get("BROWSER") ?? (Deno.build.os === "darwin" ? "open" : "xdg-open");
  try {
    const child = new Deno.Command(chosen, {
      args: [url.href],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await child.status;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
    io.out(
      "(no browser to open here: open the URL above on any machine that can reach this one)\n",
    );
  }
}

/**
 * A launcher server (npx, bunx, uvx, pipx run): resolve and install its package now, with the
 * network, so runs start it offline in the sandbox. 0 when done or not a launcher server.
 */
async function installIfLauncher(
  home: string,
  server: McpServerConfig,
  env: Env,
  io: McpCommandIo,
): Promise<number> {
  if (server.transport !== "stdio") return 0;
  const pkg = launcherPackage(server.command, server.args);
  if (!pkg) return 0;
  io.out(`installing ${pkg.name} (${pkg.launcher}) for ${server.name}…\n`);
  try {
    const serverEnv = stdioSpec(server, env, Deno.cwd()).env;
    const installed = await installPackage(home, server, installerEnv(serverEnv, env.toObject()));
    io.out(
      `installed ${describeInstalled(installed)}; ${server.name} runs it from there, offline, ` +
        `in the sandbox (agent mcp update ${server.name} looks for a newer version)\n`,
    );
    return 0;
  } catch (err) {
    io.err(
      `agent: ${errorLine(err)}; the server stays configured and the install is tried again ` +
        `on its first start (or with agent mcp update ${server.name})\n`,
    );
    return 1;
  }
}

function usage(io: McpCommandIo): number {
  io.err(`${MCP_USAGE}\n`);
  return 1;
}

function missing(what: string): never {
  throw new Error(`agent mcp add needs ${what}`);
}

function pairs(items: string[], flag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) {
    const eq = item.indexOf("=");
    if (eq <= 0) throw new Error(`${flag} takes NAME=VALUE, got ${JSON.stringify(item)}`);
    out[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return out;
}

function find(settings: Settings, name: string | undefined): McpServerConfig {
  const server = settings.mcp_servers.find((s) => s.name === name);
  if (name && server) return server;
  const known = settings.mcp_servers.map((s) => s.name).join(", ") || "none";
  throw new Error(`no MCP server named ${name ?? "(missing)"}; configured: ${known}`);
}

async function list(settings: Settings, env: Env, io: McpCommandIo): Promise<number> {
  if (settings.mcp_servers.length === 0) {
    io.out("no MCP servers configured (agent mcp add NAME -- COMMAND)\n");
    return 0;
  }
  for (const s of settings.mcp_servers) {
    let state = s.enabled ? "enabled" : "disabled";
    if (s.scope === "project") {
      const approved = (settings.mcp_approvals[s.file] ?? []).includes(await approvalEntry(s));
      state += approved
        ? ", approved for this project"
        : `, needs approval (agent mcp approve ${s.name})`;
    }
    io.out(
      `${s.name} (${s.transport}, ${s.scope} ${s.file}): ${state}\n  ${describeMcpServer(s)}\n`,
    );
    if (s.transport === "http" && s.bearer_key === undefined) {
      const { readOAuth } = await import("../core/mcp/oauth.ts");
      const record = await readOAuth(agentHome(env), s);
      if (record?.tokens) io.out(`  oauth: signed in (tokens saved ${record.saved_at ?? "?"})\n`);
    }
    if (s.transport === "stdio" && launcherPackage(s.command, s.args)) {
      const installed = await readInstalled(agentHome(env), s);
      io.out(
        installed
          ? `  package: ${describeInstalled(installed)}\n`
          : `  package: not installed yet (on first start, or now with agent mcp update ${s.name})\n`,
      );
    }
  }
  return 0;
}

async function test(
  settings: Settings,
  server: McpServerConfig,
  env: Env,
  cwd: string,
  io: McpCommandIo,
): Promise<number> {
  // Only this server, enabled for the test whatever the file says.
  const only = { ...settings, mcp_servers: [{ ...server, enabled: true }] } as Settings;
  const workdir = await Deno.realPath(cwd);
  // The run's sandbox and launcher, so a stdio server is confined here exactly as in a run
  // (a check that ran it unconfined would both expose the agent home and pass a server that
  // cannot work in the sandbox). Loaded here only: list/add/remove need none of setup.ts.
  const { sandboxFor } = await import("./setup.ts");
  const sandbox = await sandboxFor(settings, workdir, agentHome(env), env);
  const manager = new McpManager(only, {
    env,
    fetch: globalThis.fetch,
    clock: systemClock,
    workdir,
    clientVersion: VERSION,
    launcher: launcherFor(sandbox, settings.sandbox_network === "on"),
    home: agentHome(env),
    notice: (line) => io.err(`agent: ${line}\n`),
  });
  try {
    await manager.start();
    const [status] = manager.statuses();
    if (status?.state !== "ready") {
      io.err(`agent: MCP server ${server.name} ${status?.state}: ${status?.error ?? ""}\n`);
      return 1;
    }
    io.out(`${server.name}: ready, ${status.tools.length} tools\n`);
    for (const tool of manager.tools()) {
      io.out(`  ${tool.name} (${typeof tool.kind === "string" ? tool.kind : "varies"})\n`);
    }
    return 0;
  } catch (err) {
    io.err(`agent: ${errorLine(err)}\n`);
    return 1;
  } finally {
    await manager.close();
    await sandbox.close();
  }
}
