// Runs the real `agent` as a child process exactly as its launcher does: the bundle
// (scripts/bundle.ts, built once per test process from this checkout) with the release flags
// (scripts/permissions.ts), in an isolated AGENT_HOME; and the common set-up of the headless
// tests (fake model server, temp home, environment).

import { RUN_ENV } from "../../scripts/permissions.ts";
import { programRunArgs } from "../../scripts/install.ts";
import { bundleAgent } from "../../scripts/bundle.ts";
import {
  type FakeModelServer,
  type FakeServerOptions,
  startFakeModelServer,
} from "../fakes/model_server.ts";

export const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

const DENO_DIR = Deno.env.get("DENO_DIR") ??
  `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;

let bundled: Promise<string> | undefined;

/**
 * The `deno` arguments that run the agent as `deno task install`'s launcher does. The first
 * call bundles this checkout, so the tests always run the sources as they are now.
 */
export async function agentArgs(): Promise<string[]> {
  bundled ??= bundleAgent(ROOT);
  await bundled;
  return programRunArgs("agent", ROOT);
}

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

/**
 * Runs the agent. `input`, when given, is the child's whole stdin (a pipe, so not a terminal);
 * otherwise the test's. `denyFlags` (`--deny-read=…`, `--deny-write=…`) are added to the
 * release flags so Deno itself refuses those paths: tests run as root, where chmod refuses
 * nothing.
 */
export async function runAgent(
  args: string[],
  env: AgentEnv,
  cwd?: string,
  input?: string,
  denyFlags: readonly string[] = [],
): Promise<AgentRun> {
  const run = await agentArgs();
  // The default workdir is a project folder in the home, never the home itself: the agent
  // refuses $HOME as a workdir (core/workdir_policy.ts).
  if (cwd === undefined) await Deno.mkdir(defaultWorkdir(env), { recursive: true });
  const child = new Deno.Command(Deno.execPath(), {
    args: [...run.slice(0, -1), ...denyFlags, ...run.slice(-1), ...args],
    env: childEnv(env),
    clearEnv: true,
    cwd: cwd ?? defaultWorkdir(env),
    // Never the test's own stdin: the agent reads a piped stdin (cli/stdin_prompt.ts).
    stdin: input === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  if (input !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(input));
    await writer.close();
  }
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** Where runAgent runs without a cwd: `<home>/work`. */
export function defaultWorkdir(env: AgentEnv): string {
  return `${env.home}/work`;
}

export async function tempHome(): Promise<string> {
  return await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-home-" }));
}

/** What a headless test changes about the common set-up; each field has the common default. */
export interface HeadlessSetupOptions {
  /** Fake model server options; `models` defaults to one `served-model` with a 32k window. */
  server?: FakeServerOptions;
  /** AGENT_PROVIDER (default "chat_completions"). */
  provider?: string;
  /** AGENT_MEMORY_REFLECT: run the end-of-run reflection pass (default false, so a run sends
   * only its own requests). */
  reflect?: boolean;
  /** Set AGENT_BASE_URL to the fake (default true; false for a test whose settings file
   * names the server). */
  baseUrlInEnv?: boolean;
  /** More environment, applied last (it may override the above). */
  env?: Record<string, string>;
}

export interface HeadlessSetup extends AsyncDisposable {
  fake: FakeModelServer;
  home: string;
  /** `${home}/work`, created empty: the workspace to pass as --workdir. */
  work: string;
  env: AgentEnv;
}

/** A fake model server, a temp home holding an empty `work` folder, and the environment that
 * points the agent at them; disposing closes the server and removes the home. */
export async function headlessSetup(options: HeadlessSetupOptions = {}): Promise<HeadlessSetup> {
  const fake = await startFakeModelServer({
    models: [{ id: "served-model", max_model_len: 32768 }],
    ...options.server,
  });
  const home = await tempHome();
  const work = `${home}/work`;
  await Deno.mkdir(work);
  const env: AgentEnv = {
    home,
    ...(options.baseUrlInEnv === false ? {} : { AGENT_BASE_URL: fake.url }),
    AGENT_PROVIDER: options.provider ?? "chat_completions",
    AGENT_MEMORY_REFLECT: options.reflect ? "1" : "0",
    ...options.env,
  };
  return {
    fake,
    home,
    work,
    env,
    async [Symbol.asyncDispose]() {
      await fake.close();
      await Deno.remove(home, { recursive: true });
    },
  };
}
