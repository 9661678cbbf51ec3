// Runs the real `agent` entry point as a child process with exactly the permission flags
// the release binary gets (scripts/permissions.ts), in an isolated AGENT_HOME.

import { denoRunArgs, RUN_ENV } from "../../scripts/permissions.ts";

export const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

const DENO_DIR = Deno.env.get("DENO_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;

export interface AgentRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface AgentEnv {
  home: string;
  [name: string]: string;
}

/** Environment for a child: only what the test gives plus PATH, so host settings never leak in. */
export function childEnv(env: AgentEnv): Record<string, string> {
  const { home, ...rest } = env;
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    AGENT_HOME: `${home}/.agent`,
    NO_COLOR: "1",
    // Keep Deno's module cache where it is, or every child would re-download npm packages.
    DENO_DIR: DENO_DIR,
    ...RUN_ENV,
    ...rest,
  };
}

export async function runAgent(args: string[], env: AgentEnv, cwd?: string): Promise<AgentRun> {
  const out = await new Deno.Command(Deno.execPath(), {
    args: [...denoRunArgs("agent", ROOT), ...args],
    env: childEnv(env),
    clearEnv: true,
    cwd: cwd ?? env.home,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

export async function tempHome(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-home-" }));
}
