// One start of one MCP server for core/mcp/manager.ts: a launcher server's package made ready
// (installed once, with a notice: core/mcp/package_install.ts), a stdio server spawned through
// the StdioLauncher before the SDK loads (so it boots meanwhile), then the handshake and the
// tool list within startup_timeout_s. A failure is one StartFailure line: why, what the server
// wrote to stderr (or that it wrote nothing), and the fix when the sandbox's launcher knows it
// (core/mcp/start_hints.ts). No process of a failed start is left behind.

import type { Clock, Env, Fetch } from "../ports.ts";
import { DeadlineError, withDeadline } from "../deadline.ts";
import { errorLine } from "../logger.ts";
import type { HttpServer, McpServerConfig, StdioServer } from "../settings/mcp_servers.ts";
import type { Settings } from "../settings/types.ts";
import { directLauncher, type StdioLaunch, type StdioLauncher, stdioSpec } from "./launch.ts";
import type { McpConnection } from "./connection.ts";
import type { ElicitHandler } from "./client.ts";
import { spawnStdioServer, type StdioServerProcess } from "./stdio_process.ts";
import { httpHeaders } from "./http_headers.ts";
import { launcherPackage } from "./launcher_spec.ts";
import { timingMark } from "../timing_marks.ts";

/** Why a server did not start, as its one status line. */
export class StartFailure extends Error {}

export interface StartDeps {
  env: Env;
  fetch: Fetch;
  clock: Clock;
  workdir: string;
  clientVersion: string;
  launcher?: StdioLauncher;
  /** The agent home: where launcher servers' packages are installed; absent: run as written. */
  home?: string;
  /** One line the user should see now (a package being installed on first start). */
  notice?: (line: string) => void;
}

/**
 * How long a failed start waits for the server's exit to be read, so a server that died at once
 * is reported by what it wrote to stderr rather than by the broken pipe our first write met.
 */
const EXIT_STDERR_MS = 500;

export async function connectServer(
  server: McpServerConfig,
  settings: Settings,
  deps: StartDeps,
  track: {
    spawned(process: StdioServerProcess): void;
    stopping(done: Promise<void>): void;
    /** Answers the server's form requests (the client then declares elicitation). */
    elicit?: ElicitHandler;
  },
): Promise<McpConnection> {
  const ms = Math.round(server.startup_timeout_s * 1000);
  let serverProcess: StdioServerProcess | undefined;
  /** What was spawned (a launcher package's installed command): the hints read this one. */
  let spawned: StdioLaunch | undefined;
  const launcher = deps.launcher ?? directLauncher;
  try {
    const headers = httpHeaders(server, settings);
    // A machine grant needs stored secrets, which a project file's server never gets: said,
    // rather than connecting without the credentials the table asks for.
    if (
      server.transport === "http" && server.scope === "project" &&
      (server.oauth_grant === "client_credentials" || server.oauth_grant === "cross_app_access")
    ) {
      throw new Error(
        `${server.oauth_grant} is only honoured for a server in the global settings file`,
      );
    }
    // Never for a project file's server: stored sign-ins and secrets are the user's own.
    const authProvider = server.transport === "http" && server.bearer_key === undefined &&
        server.scope === "global" && deps.home !== undefined
      ? await oauthProvider(deps.home, server, settings, deps.fetch)
      : undefined;
    // Spawned through the launcher before the SDK loads, so it boots meanwhile (a sandbox's
    // launcher awaits its one bwrap probe first; the SDK loads during that wait).
    if (server.transport === "stdio") {
      const spec = spawned = await packagedSpec(server, deps);
      const launched = launcher(spec, server);
      serverProcess = spawnStdioServer(launched instanceof Promise ? await launched : launched);
      track.spawned(serverProcess);
      timingMark(`mcp:${server.name}:spawned`);
    }
    return await withDeadline(
      deps.clock,
      ms,
      `starting MCP server ${server.name}`,
      async (signal) => {
        const { connectMcp } = await import("./connection.ts");
        timingMark(`mcp:${server.name}:sdk`);
        return await connectMcp(server, {
          ...(serverProcess ? { process: serverProcess } : {}),
          fetch: deps.fetch,
          clientVersion: deps.clientVersion,
          ...(headers ? { headers } : {}),
          ...(track.elicit ? { elicit: track.elicit } : {}),
          ...(authProvider ? { authProvider } : {}),
          signal,
        });
      },
    );
  } catch (err) {
    // Whatever failed (spawn, SDK load, handshake, the deadline), no process is left behind;
    // a server slow to leave (up to 2 s) does not hold up the run, close() waits for it.
    if (serverProcess) track.stopping(serverProcess.stop());
    const why = err instanceof DeadlineError
      ? `no answer within startup_timeout_s = ${server.startup_timeout_s}`
      : errorLine(err);
    const stderr = (err as { stderrTail?: string }).stderrTail ||
      await serverProcess?.stderrTailOnExit(EXIT_STDERR_MS);
    // A server that said nothing is worth saying so too: it points at the command itself.
    const said = stderr
      ? ` (stderr: ${stderr})`
      : serverProcess
      ? " (it wrote nothing to stderr)"
      : "";
    const hints = serverProcess && spawned && server.transport === "stdio"
      ? launcher.hints?.(
        spawned,
        server,
        serverProcess.stderrText(),
        deps.workdir,
      ) ?? []
      : [];
    throw new StartFailure([`${why}${said}`, ...hints].join("; "));
  }
}

/**
 * OAuth for an HTTP server without a stored key: a machine client's credentials
 * (client_credentials, the SDK's own providers) or a user's sign-in from `agent mcp login`.
 * Stored secrets are never used for a server from a project file.
 */
async function oauthProvider(
  home: string,
  server: HttpServer,
  settings: Settings,
  fetch: Fetch,
) {
  // Only global servers reach here (connectServer), so the stored secret is theirs to use.
  const secret = server.oauth_client_id ? settings.mcp_keys[server.oauth_client_id] : undefined;
  if (server.oauth_grant === "cross_app_access") {
    const { CrossAppAccessProvider } = await import("./oauth_cross_app.ts");
    const tokenFile = server.oauth_id_token_file!;
    return new CrossAppAccessProvider(server, {
      clientId: server.oauth_client_id!,
      ...(secret ? { clientSecret: secret } : {}),
      idpTokenEndpoint: server.oauth_idp_token_endpoint!,
      idpClientId: server.oauth_idp_client_id!,
      ...(settings.mcp_keys[server.oauth_idp_client_id!]
        ? { idpClientSecret: settings.mcp_keys[server.oauth_idp_client_id!] }
        : {}),
      idToken: () => Deno.readTextFile(tokenFile),
      fetch,
    });
  }
  if (server.oauth_grant === "client_credentials") {
    const extensions = await import("@modelcontextprotocol/sdk/client/auth-extensions.js");
    if (server.oauth_private_key_file) {
      return new extensions.PrivateKeyJwtProvider({
        clientId: server.oauth_client_id!,
        privateKey: await Deno.readTextFile(server.oauth_private_key_file),
        algorithm: server.oauth_signing_alg ?? "ES256",
        clientName: "agent",
      });
    }
    if (!secret) {
      throw new Error(
        `no key mcp_keys.${server.oauth_client_id} for the client_credentials grant; store it ` +
          `with \`agent mcp set-key ${server.oauth_client_id}\``,
      );
    }
    return new extensions.ClientCredentialsProvider({
      clientId: server.oauth_client_id!,
      clientSecret: secret,
      clientName: "agent",
    });
  }
  const { StoredOAuthProvider } = await import("./oauth.ts");
  return new StoredOAuthProvider(home, server, {}, secret);
}

/**
 * The spec to spawn: as written, or for a launcher server (npx, uvx, …) its installed command
 * with the server's own arguments and the package's directories to bind. A package not yet
 * installed is installed now, outside the sandbox, with a notice (it may take a while).
 */
async function packagedSpec(server: StdioServer, deps: StartDeps): Promise<StdioLaunch> {
  const spec = stdioSpec(server, deps.env, deps.workdir);
  const pkg = launcherPackage(server.command, server.args);
  if (!pkg || deps.home === undefined) return spec;
  const { installerEnv, installPackage, readInstalled } = await import("./package_install.ts");
  let installed = await readInstalled(deps.home, server);
  if (!installed) {
    deps.notice?.(
      `MCP server ${server.name}: installing ${pkg.name} (${pkg.launcher}) once, with the ` +
        `network, into the agent home; it then runs from there, offline, in the sandbox`,
    );
    installed = await installPackage(
      deps.home,
      server,
      installerEnv(spec.env, deps.env.toObject()),
    );
    deps.notice?.(`MCP server ${server.name}: installed ${installed.name}@${installed.version}`);
  }
  return { ...spec, command: installed.command, args: pkg.args, installDirs: installed.dirs };
}
