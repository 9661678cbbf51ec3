// How a stdio MCP server is started: its command spec (command, args, env, cwd) is built here
// and passed through one StdioLauncher before anything is spawned. Today the launcher is the
// identity; the shell sandbox (core/sandbox/, issue 14) slots in as a launcher that wraps the
// spec in its bubblewrap argv and env, so MCP servers run in the same sandbox as the shell tool.
//
// The environment is never the agent's own: it is an allowlist of harmless variables plus the
// server's own `env` table, so provider keys (ANTHROPIC_API_KEY, OPENAI_API_KEY, AGENT_API_KEY,
// anything else in the agent's environment) never reach a server the model can drive.

import { isAbsolute, join } from "../path.ts";
import type { Env } from "../ports.ts";
import type { StdioServer } from "../settings/mcp_servers.ts";

/** What is spawned: the final argv, environment and directory. */
export interface StdioLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
}

/** Turns a server's spec into what is actually spawned (the sandbox's hook). */
export type StdioLauncher = (spec: StdioLaunch) => StdioLaunch;

export const directLauncher: StdioLauncher = (spec) => spec;

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
