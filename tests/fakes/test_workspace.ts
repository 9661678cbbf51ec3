// Test support for the tool tests: a real temp directory holding a workspace and a sibling
// "outside" directory (with a sentinel file) that no file tool may reach.

import type { Tool, ToolContext, ToolOutcome } from "../../core/tools/types.ts";
import { processEnv } from "../../core/ports.ts";
import { openSandbox, type Sandbox, type SandboxMode } from "../../core/sandbox/sandbox.ts";
import { makeShellTool } from "../../core/tools/shell.ts";
import { commandOnPath } from "../peers.ts";

export interface TestWorkspace extends AsyncDisposable {
  /** Canonical path of the workspace (what the CLI hands the tools). */
  dir: string;
  /** A sibling directory outside the workspace; holds `sentinel.txt`. */
  outside: string;
  /** The temp directory holding both. */
  base: string;
  ctx(signal?: AbortSignal): ToolContext;
  /**
   * The shell tool with this workspace's sandbox: bubblewrap where it is installed, else off
   * (the sandbox's own tests are peer tests and say when they did not run).
   */
  shell: Tool;
  /** A shell tool whose sandbox has another mode ("off" runs commands unconfined). */
  shellWith(mode: SandboxMode): Tool;
  /** Runs a tool and returns its result outcome (fails the test on needs_human). */
  run(tool: Tool, input: Record<string, unknown>): Promise<{ content: string; is_error: boolean }>;
  read(rel: string): Promise<string>;
  bytes(rel: string): Promise<Uint8Array>;
  write(rel: string, text: string | Uint8Array): Promise<void>;
}

export const SENTINEL = "outside sentinel: must never change\n";

/** Creates the workspace with `files` (relative path → content); dispose to remove it. */
export async function tempWorkspace(
  files: Record<string, string | Uint8Array> = {},
): Promise<TestWorkspace> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "tools-test-" }));
  const dir = `${base}/ws`;
  const outside = `${base}/outside`;
  await Deno.mkdir(dir);
  await Deno.mkdir(outside);
  await Deno.writeTextFile(`${outside}/sentinel.txt`, SENTINEL);
  const write = async (rel: string, body: string | Uint8Array) => {
    const path = `${dir}/${rel}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    if (typeof body === "string") await Deno.writeTextFile(path, body);
    else await Deno.writeFile(path, body);
  };
  for (const [rel, body] of Object.entries(files)) await write(rel, body);
  const ctx = (signal = new AbortController().signal): ToolContext => ({ workdir: dir, signal });
  const shellWith = (mode: SandboxMode) => makeShellTool(testSandbox(dir, mode, [outside]));
  return {
    dir,
    outside,
    base,
    ctx,
    shell: shellWith(commandOnPath("bwrap") ? "auto" : "off"),
    shellWith,
    async run(tool, input) {
      const outcome: ToolOutcome = await tool.execute(input, ctx());
      if (outcome.type !== "result") throw new Error(`expected a result, got ${outcome.type}`);
      return { content: outcome.content, is_error: outcome.is_error ?? false };
    },
    read: (rel) => Deno.readTextFile(`${dir}/${rel}`),
    bytes: (rel) => Deno.readFile(`${dir}/${rel}`),
    write,
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

/** Names in the workspace directory that look like leftover temp files of an atomic write. */
export async function leftoverTempFiles(dir: string): Promise<string[]> {
  const names: string[] = [];
  for await (const e of Deno.readDir(dir)) if (e.name.includes(".tmp-")) names.push(e.name);
  return names;
}

/** A sandbox for tool tests: the process's own environment, `hidden` masked. */
export function testSandbox(
  workdir: string,
  mode: SandboxMode = "auto",
  hidden: readonly string[] = [],
): Sandbox {
  return openSandbox({
    mode,
    network: false,
    passEnv: [],
    workdir,
    hidden,
    // A sibling that does not exist: the workdir is an ordinary project folder.
    places: { agentHome: `${workdir}.agent-home` },
    readOnly: [],
    env: processEnv,
    settingsPath: "~/.agent/settings.toml",
  });
}
