// The real MCP peer for tests: @modelcontextprotocol/server-everything (npm), pinned, installed
// once with npm into a cache directory outside the repository (AGENT_TEST_MCP_DIR, default
// ~/.cache/agent-tests/mcp-everything-<version>). .ci/run installs it up front; on a developer's
// machine the first test that needs it installs it (or skips with the reason, unless
// AGENT_TEST_REQUIRE_PEERS=1: tests/peers.ts). Also starts it over Streamable HTTP.

import { commandOnPath } from "../peers.ts";

export const EVERYTHING_VERSION = "2026.8.31";
export const EVERYTHING_PACKAGE = "@modelcontextprotocol/server-everything";

export function everythingDir(): string {
  const explicit = Deno.env.get("AGENT_TEST_MCP_DIR");
  if (explicit) return explicit;
  const cache = Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`;
  return `${cache}/agent-tests/mcp-everything-${EVERYTHING_VERSION}`;
}

/** The server's entry script (run with node). */
export function everythingEntry(): string {
  return `${everythingDir()}/node_modules/${EVERYTHING_PACKAGE}/dist/index.js`;
}

function installed(): boolean {
  try {
    return Deno.statSync(everythingEntry()).isFile;
  } catch {
    return false;
  }
}

let probed: string | null | undefined;

/** Peer probe: null when node and the pinned server are there (installing it if need be). */
export function everythingProbe(): string | null {
  if (probed !== undefined) return probed;
  if (!commandOnPath("node")) return probed = "node is not on PATH";
  if (!installed()) {
    if (!commandOnPath("npm")) return probed = "npm is not on PATH";
    const out = new Deno.Command("npm", {
      args: [
        "install",
        "--prefix",
        everythingDir(),
        "--no-audit",
        "--no-fund",
        `${EVERYTHING_PACKAGE}@${EVERYTHING_VERSION}`,
      ],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    if (!out.success || !installed()) {
      const why = new TextDecoder().decode(out.stderr).trim().split("\n").slice(-2).join(" ");
      return probed = `npm install ${EVERYTHING_PACKAGE}@${EVERYTHING_VERSION} failed: ${why}`;
    }
  }
  return probed = null;
}

/** A settings table for the stdio server, named `name`; its install is readable in the sandbox. */
export function everythingStdioToml(name = "everything", extra = ""): string {
  return `[mcp_servers.${name}]\ncommand = "node"\nargs = [${
    JSON.stringify(everythingEntry())
  }, "stdio"]\nread_paths = [${JSON.stringify(everythingDir())}]\n${extra}`;
}

export interface HttpPeer {
  url: string;
  [Symbol.asyncDispose](): Promise<void>;
}

/** Starts the server over Streamable HTTP on a free port; resolves once it listens. */
export async function startEverythingHttp(): Promise<HttpPeer> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const child = new Deno.Command("node", {
    args: [everythingEntry(), "streamableHttp"],
    env: { PORT: String(port), PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  while (!seen.includes("listening on port")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`server-everything over HTTP did not start: ${seen}`);
    seen += value;
  }
  // Keep draining stderr so the server never blocks on a full pipe.
  (async () => {
    while (!(await reader.read()).done) { /* drain */ }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async [Symbol.asyncDispose]() {
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
      await child.status;
    },
  };
}

/** The install's node_modules: the SDK and zod there also serve tests/mcp/note_server.mjs. */
export function everythingModules(): string {
  return `${everythingDir()}/node_modules`;
}

const NOTE_SERVER = new URL("./note_server.mjs", import.meta.url).pathname;

/** This directory: the small test servers, bound read-only into the sandbox by their tables. */
export const TEST_SERVERS_DIR = new URL(".", import.meta.url).pathname.replace(/\/$/, "");

/** A settings table for the write_note server (unannotated: the stricter permission kind). */
export function noteServerToml(name = "notes"): string {
  return `[mcp_servers.${name}]\ncommand = "node"\nargs = [${JSON.stringify(NOTE_SERVER)}, ${
    JSON.stringify(everythingModules())
  }]\nread_paths = [${JSON.stringify(TEST_SERVERS_DIR)}, ${JSON.stringify(everythingDir())}]\n`;
}

const PROBE_SERVER = new URL("./probe_server.mjs", import.meta.url).pathname;

/** A settings table for probe_server.mjs (what a server can read, list, connect to, see). */
export function probeServerToml(name = "probe", extra = ""): string {
  return `[mcp_servers.${name}]\ncommand = "node"\nargs = [${
    JSON.stringify(PROBE_SERVER)
  }]\nread_paths = [${JSON.stringify(TEST_SERVERS_DIR)}]\n${extra}`;
}
