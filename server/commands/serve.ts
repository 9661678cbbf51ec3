// `agent-outpost [serve] [--host H] [--port P] [--base-url URL]`: the dashboard and the
// scheduler loop in one process. Binds 127.0.0.1:7317 by default (AGENT_OUTPOST_HOST,
// AGENT_OUTPOST_PORT); --port 0 picks a free port. The bound URL is printed on stdout.
//
// Shutdown (SIGINT/SIGTERM): stop admitting (close event streams, stop accepting requests,
// stop the scheduler loop), let the store flush and close, and leave running children to
// the startup recovery rules of the next start.

import { dirname, join } from "node:path";
import { parseArgs } from "node:util";
import { errorText, type Logger, stderrLogger } from "../../core/logger.ts";
import type { Clock, Env, Fetch, Spawner } from "../../core/ports.ts";
import type { AgentCommand } from "../../core/scheduler/headless_command.ts";
import type { JobDefaults } from "../../core/scheduler/job_input.ts";
import { agentHome } from "../../core/settings/project.ts";
import { denoRunArgs } from "../../core/program_flags.ts";
import { ALLOWED_HOSTS_ENV, parseAllowedHosts } from "../http/served_hosts.ts";
import { outpostClock, TEST_CLOCK_ENV } from "../test_clock.ts";

export const SERVE_USAGE =
  `usage: agent-outpost [serve] [--host HOST] [--port PORT] [--base-url URL]

Runs the dashboard and the scheduler in one process.

  --host      address to bind (default 127.0.0.1; env AGENT_OUTPOST_HOST)
  --port      port to bind, 0 for any free port (default 7317; env AGENT_OUTPOST_PORT)
  --base-url  public address of the dashboard behind its proxy, used in links and to mark
              the CSRF cookie Secure when https (env AGENT_OUTPOST_BASE_URL)

Requests are answered only when addressed to a name the outpost serves: the bound address,
localhost, 127.0.0.1 and [::1] with the bound port, the --base-url host, and the names in
AGENT_OUTPOST_ALLOWED_HOSTS (comma-separated, for a reverse proxy); any other Host gets 421.

Data lives under $AGENT_HOME/outpost (default ~/.agent/outpost). The human routes have no
login of their own: put them behind an SSO reverse proxy (docs/deployment.md).`;

export const DEFAULT_PORT = 7317;
export const DEFAULT_HOST = "127.0.0.1";

export interface ServeIo {
  out(line: string): void;
  err(line: string): void;
  env: Env;
  clock: Clock;
  spawner: Spawner;
  fetch: Fetch;
  logger?: Logger;
  /** Resolves when the process should shut down (signals in production). */
  shutdownSignal: Promise<string>;
  /** Path of the running executable (Deno.execPath()). */
  execPath: string;
}

class UsageError extends Error {
  override readonly name = "UsageError";
}

export interface ServeConfig {
  host: string;
  port: number;
  baseUrl: string | null;
}

/** Flags over env over defaults. Throws UsageError naming the flag or variable. */
export function serveConfig(args: string[], env: Env): ServeConfig | "help" {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      host: { type: "string" },
      port: { type: "string" },
      "base-url": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return "help";
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}; see --help`);
  }
  const host = pick(values.host, env.get("AGENT_OUTPOST_HOST")) ?? DEFAULT_HOST;
  if (!/^[A-Za-z0-9.:\-\[\]]{1,253}$/.test(host)) {
    throw new UsageError(`--host: ${JSON.stringify(host)} is not a host name or address`);
  }
  const portText = pick(values.port, env.get("AGENT_OUTPOST_PORT"));
  const source = values.port !== undefined ? "--port" : "AGENT_OUTPOST_PORT";
  const port = portText === undefined ? DEFAULT_PORT : Number(portText);
  if (!/^\d{1,5}$/.test(portText ?? "0") || !(port >= 0 && port <= 65535)) {
    throw new UsageError(
      `${source}: expected a port number 0..65535, got ${JSON.stringify(portText)}`,
    );
  }
  const baseUrl = pick(values["base-url"], env.get("AGENT_OUTPOST_BASE_URL")) ?? null;
  if (baseUrl !== null) {
    let ok = false;
    try {
      ok = /^https?:$/.test(new URL(baseUrl).protocol);
    } catch { /* reported below */ }
    if (!ok) throw new UsageError(`--base-url: ${JSON.stringify(baseUrl)} is not an http(s) URL`);
  }
  try {
    parseAllowedHosts(env.get(ALLOWED_HOSTS_ENV));
  } catch (e) {
    throw new UsageError(errorText(e));
  }
  return { host, port, baseUrl: baseUrl?.replace(/\/+$/, "") ?? null };
}

function pick(flag: string | undefined, env: string | undefined): string | undefined {
  if (flag !== undefined) return flag.trim();
  const v = env?.trim();
  return v === "" ? undefined : v;
}

/** The repository root in dev (server/commands/ → ../..). */
const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/**
 * How the outpost starts `agent` children: AGENT_OUTPOST_AGENT_BIN (the container's
 * /usr/local/bin/agent) when set; under `deno run`, the same deno with the agent's own
 * permission flags; in a compiled outpost, the `agent` binary next to it.
 */
export function resolveAgentCommand(env: Env, execPath: string, root = ROOT): AgentCommand {
  const bin = env.get("AGENT_OUTPOST_AGENT_BIN")?.trim();
  if (bin) return { command: bin, args: [] };
  const exe = execPath.split("/").pop() ?? "";
  if (exe === "deno" || exe === "deno.exe") {
    return { command: execPath, args: denoRunArgs("agent", root) };
  }
  return { command: join(dirname(execPath), "agent"), args: [] };
}

/** Settings the outpost needs: memory root and the endpoint new jobs default to. */
export async function outpostSettings(
  env: Env,
  home: string,
  logger: Logger,
): Promise<{ memoryRoot: string; memorySource: string; jobDefaults: JobDefaults }> {
  const envDir = env.get("AGENT_MEMORY_DIR")?.trim();
  const fallback = {
    memoryRoot: envDir || join(home, "memory"),
    memorySource: envDir ? "env AGENT_MEMORY_DIR" : "default",
    jobDefaults: {},
  };
  try {
    const { resolveSettings } = await import("../../core/settings/resolve.ts");
    const { describeSource } = await import("../../core/settings/errors.ts");
    const { MODEL_SENTINEL } = await import("../../core/settings/knobs.ts");
    const s = resolveSettings({ flags: {}, env, cwd: home, home });
    const source = s.sources.memory_dir;
    return {
      memoryRoot: s.memory_dir,
      memorySource: source ? describeSource(source) : "default",
      jobDefaults: {
        ...(s.base_url ? { base_url: s.base_url } : {}),
        // The "default" sentinel is no model name: new jobs (and the form) leave the model
        // empty, so each run uses the endpoint's served model and the pages show its name.
        ...(s.model !== MODEL_SENTINEL ? { model: s.model } : {}),
      },
    };
  } catch (err) {
    logger.log("warn", "settings could not be resolved; using defaults", { error: errorText(err) });
    return fallback;
  }
}

/** Runs the service until the shutdown signal. Returns the exit code. */
export async function runServe(args: string[], io: ServeIo): Promise<number> {
  const logger = io.logger ?? stderrLogger;
  let config: ServeConfig;
  let home: string;
  let clock: Clock;
  try {
    const parsed = serveConfig(args, io.env);
    if (parsed === "help") {
      for (const line of SERVE_USAGE.split("\n")) io.out(line);
      return 0;
    }
    config = parsed;
    home = agentHome(io.env);
    clock = outpostClock(io.env.get(TEST_CLOCK_ENV), io.clock);
  } catch (e) {
    io.err(`error: ${usageText(e)}`);
    return 1;
  }

  const [{ openOutpost }, { createApp }] = await Promise.all([
    import("../wiring.ts"),
    import("../app.ts"),
  ]);
  if (clock !== io.clock) {
    io.err(
      `${TEST_CLOCK_ENV} is set: this process runs on a test clock, now ${clock.now().toISOString()}`,
    );
  }
  const settings = await outpostSettings(io.env, home, logger);
  let outpost;
  try {
    outpost = await openOutpost({
      home,
      env: io.env,
      clock,
      logger,
      spawner: io.spawner,
      agentCommand: resolveAgentCommand(io.env, io.execPath),
      fetch: io.fetch,
      baseUrl: config.baseUrl ?? `http://${config.host}:${config.port}`,
      memoryRoot: settings.memoryRoot,
      memorySource: settings.memorySource,
      jobDefaults: settings.jobDefaults,
    });
  } catch (e) {
    io.err(`error: ${errorText(e)}`);
    return 1;
  }

  const app = createApp(outpost.deps);
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve({
      hostname: config.host,
      port: config.port,
      onListen: () => {},
      onError: (err) => {
        logger.log("error", "unhandled server error", { error: errorText(err) });
        return new Response("internal error\n", { status: 500 });
      },
    }, app.fetch);
  } catch (e) {
    io.err(`error: cannot listen on ${config.host}:${config.port}: ${errorText(e)}`);
    await outpost.close();
    return 1;
  }
  const addr = server.addr;
  const shown = addr.hostname.includes(":") ? `[${addr.hostname}]` : addr.hostname;
  const url = `http://${shown}:${addr.port}/`;
  if (!config.baseUrl) outpost.deps.baseUrl = url.replace(/\/$/, "");
  // The names the Host check accepts include the bound address and port (served_hosts.ts).
  outpost.deps.listen = { hostname: addr.hostname, port: addr.port };
  const recovery = await outpost.deps.scheduler.start();
  if (recovery.killed.length + recovery.lost.length + recovery.finished.length > 0) {
    io.err(
      `recovered runs left by a previous start: killed ${recovery.killed.length}, ` +
        `lost ${recovery.lost.length}, finished while down ${recovery.finished.length}, ` +
        `retried ${recovery.retried.length}`,
    );
  }
  if (!isLoopback(addr.hostname)) {
    logger.log(
      "warn",
      "listening beyond loopback: the human routes have no login of their own; " +
        "put them behind an SSO reverse proxy (docs/deployment.md), and name the proxy's " +
        "host in --base-url or AGENT_OUTPOST_ALLOWED_HOSTS (other Host names get 421)",
      { host: addr.hostname },
    );
  }
  io.out(`agent-outpost listening on ${url}`);

  const signal = await io.shutdownSignal;
  io.err(`${signal}: shutting down (running children are left to the next start's recovery)`);
  outpost.deps.live.close();
  await Promise.race([server.shutdown(), io.clock.sleep(5000)]);
  await outpost.close();
  return 0;
}

function isLoopback(host: string): boolean {
  return host === "127.0.0.1" || host === "::1" || host === "localhost" || host.startsWith("127.");
}

function usageText(e: unknown): string {
  if (e instanceof UsageError) return e.message;
  if (e instanceof TypeError && "code" in e && String(e.code).startsWith("ERR_PARSE_ARGS")) {
    return `${e.message.split("\n")[0]}; see --help`;
  }
  return errorText(e);
}
