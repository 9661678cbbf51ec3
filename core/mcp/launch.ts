// How a stdio MCP server is started: its command spec (command, args, env, cwd) is built here
// and passed through one StdioLauncher before anything is spawned. With the sandbox on, that is
// sandboxLauncher: the spec is wrapped in the shell tool's bubblewrap argv and environment
// (core/sandbox/), plus the server's read_paths and network; with `sandbox = "off"` it is the
// identity (directLauncher).
//
// The environment is never the agent's own: it is an allowlist of harmless variables plus the
// server's own `env` table, so provider keys (ANTHROPIC_API_KEY, OPENAI_API_KEY, AGENT_API_KEY,
// anything else in the agent's environment) never reach a server the model can drive.

import { isAbsolute, join } from "../path.ts";
import type { Env } from "../ports.ts";
import type { StdioServer } from "../settings/mcp_servers.ts";
import type { Sandbox } from "../sandbox/sandbox.ts";
import { sandboxHints } from "./start_hints.ts";

/** What is spawned: the final argv, environment and directory. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** A launcher server's installed package (core/mcp/package_install.ts), bound read-only. */
  installDirs?: readonly string[];
}

/**
 * Turns a server's spec into what is actually spawned (the sandbox's hook). Throws (or
 * rejects) when the server may not start: the message becomes its one status line.
 */
export type StdioLauncher =
  & ((spec: StdioLaunch, server: StdioServer) => StdioLaunch | Promise<StdioLaunch>)
  & {
    /**
     * After a failed start, the fixes that apply (core/mcp/start_hints.ts): the sandbox's
     * launcher knows what it hid. `spec` is the server's spec before the launcher saw it.
     */
    hints?: (spec: StdioLaunch, server: StdioServer, stderr: string, workdir: string) => string[];
  };

export const directLauncher: StdioLauncher = (spec) => spec;

/** The launcher for a run: the sandbox's, unless the operator turned the sandbox off. */
export function launcherFor(sandbox: Sandbox, sandboxNetwork: boolean): StdioLauncher {
  return sandbox.mode === "off" ? directLauncher : sandboxLauncher(sandbox, sandboxNetwork);
}

/**
 * Runs each server in the shell tool's sandbox: the sandbox's allowlisted environment plus the
 * server's own `env` table (model key names refused), its `read_paths` bound read-only, and the
 * network of `sandbox_network` unless the server's `network` says otherwise; `network = true`
 * only from the global settings file. An unusable sandbox (auto without a working bwrap)
 * rejects with the shell tool's one-line refusal, so the server is reported not started.
 */
export function sandboxLauncher(sandbox: Sandbox, sandboxNetwork: boolean): StdioLauncher {
  const launcher: StdioLauncher = async (spec, server) => {
    if (server.network === true && server.scope === "project") {
      throw new Error(
        `network = true is ignored for a server from a project settings file (${server.file}): ` +
          "only a server defined in the global settings file may open the network",
      );
    }
    const refusal = await sandbox.check();
    if (refusal !== null) throw new Error(`not started: ${refusal}`);
    const wrapped = await sandbox.wrap({
      argv: [spec.command, ...spec.args],
      cwd: spec.cwd,
      env: server.env,
      readPaths: server.read_paths,
      network: server.network ?? sandboxNetwork,
      ...(spec.installDirs ? { installDirs: spec.installDirs } : {}),
    });
    return { command: wrapped.command, args: wrapped.args, env: wrapped.env, cwd: wrapped.cwd };
  };
  launcher.hints = (spec, server, stderr, workdir) =>
    sandboxHints({ server, spec, workdir, stderr, network: server.network ?? sandboxNetwork });
  return launcher;
}

/**
 * Variables a server may inherit from the agent: where things are, who the user is, how text
 * is encoded. Nothing that names a credential.
 */
export const INHERITED_ENV = [
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "LANG",
  "LC_ALL",
  "LC_CTYPE",
  "TZ",
  "TMPDIR",
] as const;

/** The spec of a stdio server before any launcher sees it. */
export function stdioSpec(server: StdioServer, env: Env, workdir: string): StdioLaunch {
  const inherited: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = env.get(name);
    if (value !== undefined) inherited[name] = value;
  }
  const cwd = server.cwd === undefined
    ? workdir
    : isAbsolute(server.cwd)
    ? server.cwd
    : join(workdir, server.cwd);
  return {
    command: server.command,
    args: [...server.args],
    env: { ...inherited, ...server.env },
    cwd,
  };
}
