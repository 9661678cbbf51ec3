// Builds everything a run needs from the command line: settings, endpoint, wire, tools,
// system prompt, memory. Shared by headless runs and interactive sessions.

import { join, resolve } from "../core/path.ts";
import {
  acceptWorkdir,
  type ProtectedPlaces,
  WORKDIR_ROOTS_ENV,
  workdirRefusal,
  WorkdirRefusedError,
  workdirRootsFrom,
} from "../core/workdir_policy.ts";
import type { Clock, Env, Fetch, WireFetch } from "../core/ports.ts";
import type { Settings } from "../core/settings/types.ts";
import type { Endpoint, Wire, WireOptions } from "../core/wires/types.ts";
import type { Tool } from "../core/tools/types.ts";
import type { PermissionMode } from "../core/agent/permissions.ts";
import { type Flags, resolveSettings } from "../core/settings/resolve.ts";
import { resolveEndpoint } from "../core/settings/keys.ts";
import { describeSource } from "../core/settings/errors.ts";
import { agentHome } from "../core/settings/project.ts";
import { CONSERVATIVE_CONTEXT_WINDOW } from "../core/settings/knobs.ts";
import { createWire } from "../core/wires/create.ts";
import { describeBackend, effortBackend, effortVocabulary } from "../core/wires/effort.ts";
import { ModelNameResolver } from "../core/wires/probe.ts";
import { workspaceTools } from "../core/tools/registry.ts";
import { openSandbox, type Sandbox, SandboxConfigError } from "../core/sandbox/sandbox.ts";
import { globalSettingsPath } from "../core/settings/project.ts";
import { composeSystemPrompt } from "../core/agent/system_prompt.ts";
import { readWorkspaceBrief } from "../core/agent/workspace_brief.ts";
import { type MemoryStore, openMemory } from "../core/memory/store.ts";
import {
  describeRouting,
  trustProjectFile,
  untrustedProject,
  untrustedRefusal,
} from "../core/settings/project_trust.ts";
import { memoryDirProblem, MemoryRootError } from "../core/memory/errors.ts";
import { sweepAtStartup } from "../core/memory/sweep_runner.ts";
import type { MemoryScope } from "../core/memory/memory_scope.ts";
import { timingMark } from "../core/timing_marks.ts";
import type { McpManager, McpServerStatus } from "../core/mcp/manager.ts";
import { replaceMcpTools } from "../core/mcp/tools.ts";
import type { ElicitRequest, ElicitResult } from "../core/mcp/elicitation.ts";
import { VERSION } from "./version.ts";

export class SetupError extends Error {
  override name = "SetupError";
}

export interface SetupInput {
  flags: Flags;
  workdir?: string;
  mode: PermissionMode;
  env: Env;
  fetch: Fetch;
  /** How the wire reaches the model server (default: `fetch`); see core/wires/plain_http.ts. */
  modelFetch?: WireFetch;
  clock: Clock;
  cwd: string;
  /** The --effort level, checked against the endpoint's vocabulary before any network. */
  effort?: string;
  /** Which memory files the run may reach (--memory-scope; default "all"). */
  memoryScope?: MemoryScope;
  /** Interactive sessions open without a key, so /providers can store one. */
  allowMissingKey?: boolean;
  /** false: return before the /v1/models probe lands (headless overlaps it with the first turn). */
  awaitProbe?: boolean;
  /** One warning line (no newline); default: stderr. The start-up memory sweep reports here. */
  warn?: (line: string) => void;
  /** Told each time an MCP server's state changes (the interactive status line). */
  onMcpChange?: (status: McpServerStatus) => void;
  /**
   * Asks the person whether to trust a project settings file that routes the prompt (the
   * interactive start); absent (headless): such a file is refused (core/settings/project_trust.ts).
   */
  confirmProjectTrust?: (question: string) => Promise<boolean>;
  /**
   * false: return without waiting for MCP servers at all (an interactive session opens its
   * prompt at once, every server starts behind it; each turn waits for `mcp.listed()`).
   * Default: `mcp.open()`, which settles once every server's tools are known: at once for
   * servers with a remembered tool list, which start only when the run needs them.
   */
  awaitMcp?: boolean;
  /** A line about an MCP server to show now (a package installed on first start); default: stderr. */
  mcpNotice?: (line: string) => void;
  /** Asks the user to fill an MCP server's form; absent: a form ends the run needs-human. */
  mcpElicit?: (request: ElicitRequest) => Promise<ElicitResult>;
}

export interface AgentContext {
  settings: Settings;
  /** Settles once the startup probe's listing (if any) is applied to the resolver. */
  probe: Promise<void>;
  home: string;
  workdir: string;
  sessionsDir: string;
  endpoint: Endpoint;
  wire: Wire;
  resolver: ModelNameResolver;
  tools: Tool[];
  system: string;
  /** The workspace's AGENTS.md as it goes into the system prompt (core/agent/workspace_brief.ts). */
  brief?: string;
  memory?: MemoryStore;
  /** What confines the model's commands (the shell tool, later MCP servers). */
  sandbox: Sandbox;
  /** The MCP servers of this process (absent when none are configured); their tools are in `tools`. */
  mcp?: McpManager;
}

export async function prepareAgent(input: SetupInput): Promise<AgentContext> {
  const home = agentHome(input.env);
  const operator = operatorPlacesOf(input.env);
  const workdir = await checkedWorkdir(resolve(input.cwd, input.workdir ?? "."), {
    agentHome: home,
    settingsFiles: [globalSettingsPath(home)],
    ...operator,
  });
  const settings = resolveSettings({ flags: input.flags, env: input.env, cwd: workdir, home });
  // memory_dir is global-only, so it is known only now; the same rule decides.
  const inMemory = workdirRefusal(workdir, {
    agentHome: home,
    memoryRoot: settings.memory_dir,
    ...operator,
  });
  if (inMemory !== null) throw new SetupError(new WorkdirRefusedError(workdir, inMemory).message);
  await checkProjectTrust(settings, home, input.confirmProjectTrust);
  const endpoint = resolveEndpoint(settings, input.env);
  if (input.effort !== undefined) checkEffortFlag(endpoint, input.effort);
  const hosted = settings.base_url === undefined || settings.sources.base_url?.kind === "preset";
  if (hosted && !endpoint.api_key && !input.allowMissingKey) {
    throw new SetupError(`no API key for ${endpoint.base_url}: ${endpoint.key_hint ?? ""}`.trim());
  }
  timingMark("settings");
  const wire = createWire(endpoint, wireOptions(settings), input.modelFetch ?? input.fetch);
  const resolver = new ModelNameResolver({
    model: settings.model,
    hasBaseUrl: settings.base_url !== undefined,
    fallbackContextWindow: CONSERVATIVE_CONTEXT_WINDOW,
    ...(settings.context_window !== undefined
      ? { pinnedContextWindow: settings.context_window }
      : {}),
  });

  // The probe and memory set-up are independent; run them side by side. Memory starts
  // first: its file reads proceed while the probe's first fetch sets up Deno's HTTP client on
  // this thread (about 10 ms, measured). Headless runs do not wait for the probe at all: it
  // overlaps the first model request.
  // MCP servers connect in parallel with everything else here, each bounded by its own
  // startup_timeout_s; a server that fails is reported and left out, never fatal. Stdio servers
  // run in the shell tool's sandbox, so it is built first (cheap: nothing is spawned yet).
  const sandbox = await sandboxFor(settings, workdir, home, input.env);
  let mcp: McpManager | undefined;
  // The run's tool list; an MCP server's tools change in it in place (a remembered list that
  // turned out different, a server that failed), and the loop offers the new list next turn.
  const tools: Tool[] = workspaceTools(sandbox);
  if (settings.mcp_servers.length > 0) {
    // Dynamic imports: the manager and the launcher load only for runs that have MCP servers,
    // not at every start (see cli/main.ts).
    const [{ McpManager }, { launcherFor }]: [
      typeof import("../core/mcp/manager.ts"),
      typeof import("../core/mcp/launch.ts"),
    ] = await Promise.all([
      import("../core/mcp/manager.ts"),
      import("../core/mcp/launch.ts"),
    ]);
    mcp = new McpManager(settings, {
      env: input.env,
      fetch: input.fetch,
      clock: input.clock,
      workdir,
      clientVersion: VERSION,
      launcher: launcherFor(sandbox, settings.sandbox_network === "on"),
      home,
      warn: input.warn ?? warnOnStderr,
      notice: input.mcpNotice ?? ((line) => console.error(`agent: ${line}`)),
      ...(input.mcpElicit ? { elicit: input.mcpElicit } : {}),
      onChange: (status) => {
        if (mcp) replaceMcpTools(tools, mcp.tools());
        input.onMcpChange?.(status);
      },
    });
  }
  // A run waits until every server's tools are known (at once for remembered ones, which then
  // start only when needed); a session starts them all behind its prompt, having loaded the
  // client's modules first (see McpManager.loadClient: Deno's loading line wipes a prompt).
  const clientLoaded = input.awaitMcp === false ? mcp?.loadClient() : undefined;
  if (input.awaitMcp === false) void mcp?.start();
  const mcpListed = input.awaitMcp === false ? Promise.resolve() : mcp?.open();
  const memoryOpening = settings.memory_enabled
    ? openMemoryFor(settings, workdir, input.clock, input.memoryScope ?? "all")
    : Promise.resolve(undefined);
  const probe = (settings.base_url !== undefined ? wire.listModels() : Promise.resolve(null))
    .then((listing) => void resolver.applyListing(listing));
  timingMark("wire+probe");
  const memory = await memoryOpening.catch(async (err) => {
    await mcp?.start();
    await mcp?.close();
    throw err;
  });
  timingMark("memory");
  // Lifecycle sweep, before the index goes into the prompt so it never lists a deleted file.
  // Cheap (the index was just reconciled: only due files are touched) and it never throws.
  if (memory) sweepAtStartup(memory, input.warn ?? warnOnStderr, { refresh: false });
  await mcpListed;
  if (mcp) timingMark("mcp");
  const { brief, warning: briefWarning } = await readWorkspaceBrief(workdir).catch(async (err) => {
    await mcp?.close();
    throw new SetupError(err instanceof Error ? err.message : String(err), { cause: err });
  });
  if (briefWarning) (input.warn ?? warnOnStderr)(briefWarning);
  if (input.awaitProbe !== false) await probe;
  await clientLoaded;

  if (memory) tools.push(memory.tool());
  if (mcp) replaceMcpTools(tools, mcp.tools());
  const system = composeSystemPrompt({
    workdir,
    today: input.clock.now().toISOString().slice(0, 10),
    mode: input.mode,
    ...(brief ? { brief } : {}),
    ...(memory ? { memoryIndex: memory.cachedIndex() } : {}),
  });
  return {
    settings,
    probe,
    home,
    workdir,
    sessionsDir: sessionsDirOf(input.env),
    endpoint,
    wire,
    resolver,
    tools,
    system,
    ...(brief ? { brief } : {}),
    ...(memory ? { memory } : {}),
    sandbox,
    ...(mcp ? { mcp } : {}),
  };
}

/**
 * The run's sandbox: the workdir is the only host directory its commands can write; the agent
 * home, the memory root, the settings files and the real HOME are never mounted (masked when
 * they lie inside the workdir); the project settings file stays readable but not writable.
 * `sandbox = "bubblewrap"` insists: a bwrap that cannot start stops the run here. `auto`
 * finds out at the first shell call and refuses that call instead. `agent mcp test` uses it too,
 * so a server it checks runs confined exactly as in a run.
 */
export async function sandboxFor(
  settings: Settings,
  workdir: string,
  home: string,
  env: Env,
): Promise<Sandbox> {
  const realHome = env.get("HOME")?.trim();
  let sandbox: Sandbox;
  try {
    sandbox = openSandbox({
      mode: settings.sandbox,
      network: settings.sandbox_network === "on",
      passEnv: settings.sandbox_env,
      workdir,
      hidden: [
        home,
        settings.memory_dir,
        globalSettingsPath(home),
        ...(realHome ? [realHome] : []),
      ],
      openInside: realHome ? [realHome] : [],
      places: {
        agentHome: home,
        memoryRoot: settings.memory_dir,
        settingsFiles: [globalSettingsPath(home)],
        ...operatorPlacesOf(env),
      },
      readOnly: settings.files?.project ? [settings.files.project] : [],
      env,
      settingsPath: globalSettingsPath(home),
    });
  } catch (err) {
    if (err instanceof SandboxConfigError) throw new SetupError(err.message, { cause: err });
    throw err;
  }
  if (settings.sandbox === "bubblewrap") {
    const refusal = await sandbox.check();
    if (refusal !== null) throw new SetupError(refusal);
  }
  return sandbox;
}

/** Where sessions are journaled: <AGENT_HOME>/sessions. */
export function sessionsDirOf(env: Env): string {
  return join(agentHome(env), "sessions");
}

export function wireOptions(s: Settings): WireOptions {
  const o: WireOptions = { thinking_type: s.thinking_type, strict_tools: s.strict_tools };
  if (s.temperature !== undefined) o.temperature = s.temperature;
  if (s.top_p !== undefined) o.top_p = s.top_p;
  if (s.top_k !== undefined) o.top_k = s.top_k;
  if (s.enable_thinking !== undefined) o.enable_thinking = s.enable_thinking;
  if (s.request_priority !== undefined) o.request_priority = s.request_priority;
  if (s.max_tokens !== undefined) o.max_tokens = s.max_tokens;
  return o;
}

/** An --effort level the endpoint does not offer: one line naming the flag and the levels. */
function checkEffortFlag(endpoint: Endpoint, level: string): void {
  const backend = effortBackend(endpoint);
  const { levels } = effortVocabulary(backend);
  if (levels.includes(level)) return;
  throw new SetupError(
    `--effort "${level}" is not offered by ${describeBackend(backend)}; ` +
      `use one of: ${levels.join(", ")}`,
  );
}

function warnOnStderr(line: string): void {
  console.error(`agent: warning: ${line}`);
}

/**
 * A project settings file that decides where the prompt goes must be trusted as it is now: an
 * interactive start asks (yes records the trust), a headless run stops with one line.
 */
async function checkProjectTrust(
  settings: Settings,
  home: string,
  confirm: SetupInput["confirmProjectTrust"],
): Promise<void> {
  const untrusted = await untrustedProject(settings);
  if (untrusted === null) return;
  const known = settings.project_trust[untrusted.file] !== undefined;
  if (confirm) {
    const question =
      `Project settings ${untrusted.file} ${known ? "changed; it now sets" : "set"} ` +
      `${describeRouting(untrusted.values)}: the prompt and the files it quotes go there. ` +
      "Trust this file?";
    if (await confirm(question)) {
      await trustProjectFile(home, untrusted.file, untrusted.digest);
      return;
    }
  }
  throw new SetupError(untrustedRefusal(untrusted, known));
}

/** The canonical workdir, or a SetupError saying why it cannot be one (core/workdir_policy.ts). */
async function checkedWorkdir(path: string, places: ProtectedPlaces): Promise<string> {
  try {
    return await acceptWorkdir(path, places);
  } catch (err) {
    if (err instanceof WorkdirRefusedError) throw new SetupError(err.message, { cause: err });
    throw new SetupError(`workdir ${path}: ${err instanceof Error ? err.message : err}`);
  }
}

/** The places the operator's environment names: $HOME, and the opened roots (a SetupError). */
function operatorPlacesOf(env: Env): Pick<ProtectedPlaces, "userHome" | "openedRoots"> {
  const home = env.get("HOME")?.trim();
  let openedRoots: string[];
  try {
    openedRoots = workdirRootsFrom(env.get(WORKDIR_ROOTS_ENV));
  } catch (err) {
    throw new SetupError(err instanceof Error ? err.message : String(err), { cause: err });
  }
  return {
    ...(home ? { userHome: home } : {}),
    ...(openedRoots.length > 0 ? { openedRoots } : {}),
  };
}

async function openMemoryFor(
  settings: Settings,
  workdir: string,
  clock: Clock,
  scope: MemoryScope,
): Promise<MemoryStore> {
  try {
    return await openMemory({ root: settings.memory_dir, cwd: workdir, clock, scope });
  } catch (err) {
    if (!(err instanceof MemoryRootError)) throw err;
    // One line naming the setting, where its value came from and what to do.
    const source = settings.sources.memory_dir;
    throw new SetupError(
      memoryDirProblem(
        settings.memory_dir,
        source && describeSource(source),
        err,
        "point memory_dir at a directory you can write, or set memory_enabled = false",
      ),
      { cause: err },
    );
  }
}
