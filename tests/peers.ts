// Real peers (Chromium, Synapse, tmux, bubblewrap, podman, and the model servers llama-server
// and LiteLLM that scripts/peers/ builds into AGENT_PEER_CACHE) used by end-to-end tests. On a
// developer's machine a missing peer skips the test with a printed reason; when
// AGENT_TEST_REQUIRE_PEERS=1 (set by .ci/run) a missing peer fails the test instead, so CI can
// never pass by skipping.

export const PEERS_REQUIRED = Deno.env.get("AGENT_TEST_REQUIRE_PEERS") === "1";

/** Returns null when the peer is usable, otherwise why it is not. */
export type PeerProbe = () => string | null;

export function commandOnPath(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    try {
      const path = `${dir}/${name}`;
      if (Deno.statSync(path).isFile) return path;
    } catch { /* not in this dir */ }
  }
  return null;
}

/** Where scripts/peers/*.sh put the model-server peers (outside the worktree, reused). */
export function peerCache(): string {
  return Deno.env.get("AGENT_PEER_CACHE") ??
    `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/agent-peers`;
}

/** llama-server and the tiny scripted models (scripts/peers/llama_build.sh). */
export const llamaPaths = () => {
  const dir = `${peerCache()}/llama-0.3.36`;
  return { server: `${dir}/llama.cpp/build/bin/llama-server`, models: `${dir}/models` };
};

/** The LiteLLM proxy's executable (scripts/peers/litellm_install.sh). */
export const litellmPath = () => `${peerCache()}/litellm-1.106.2/v/bin/litellm`;

export const probes = {
  chromium: (): string | null =>
    existsFile("/usr/bin/chromium") ? null : "chromium not installed (apt-get install chromium)",
  tmux: (): string | null => commandOnPath("tmux") ? null : "tmux not installed",
  bubblewrap: (): string | null =>
    commandOnPath("bwrap") ? null : "bubblewrap not installed (apt-get install bubblewrap)",
  podman: (): string | null =>
    commandOnPath("podman") && commandOnPath("debootstrap")
      ? null
      : "podman or debootstrap not installed (apt-get install podman runc debootstrap)",
  synapse: (): string | null => {
    const out = new Deno.Command("python3", {
      args: ["-c", "import synapse"],
      stderr: "null",
      stdout: "null",
    })
      .outputSync();
    return out.success ? null : "matrix-synapse not installed (pip install matrix-synapse)";
  },
  llamaServer: (): string | null => {
    const { server, models } = llamaPaths();
    if (!existsFile(server)) {
      return `llama-server not built (scripts/peers/llama_build.sh): ${server}`;
    }
    // peer-sep is the newest model: a cache made before it is stale (llama_build.sh rewrites them).
    return ["peer-tool", "peer-sep"].every((m) => existsFile(`${models}/${m}.gguf`))
      ? null
      : `peer models not generated (scripts/peers/llama_build.sh): ${models}`;
  },
  litellm: (): string | null =>
    existsFile(litellmPath())
      ? null
      : `LiteLLM not installed (scripts/peers/litellm_install.sh): ${litellmPath()}`,
  /** npm and npx on PATH, and the npm registry answering (launcher MCP servers install from it). */
  npmRegistry: (): string | null => {
    if (!commandOnPath("npm") || !commandOnPath("npx")) return "npm or npx is not on PATH";
    const out = new Deno.Command("npm", {
      args: ["ping", "--fetch-timeout=10000", "--fetch-retries=0"],
      stdout: "null",
      stderr: "piped",
    }).outputSync();
    const why = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1);
    return out.success ? null : `the npm registry does not answer (npm ping: ${why})`;
  },
} satisfies Record<string, PeerProbe>;

function existsFile(path: string): boolean {
  try {
    return Deno.statSync(path).isFile;
  } catch {
    return false;
  }
}

/**
 * Deno.test for a test needing a peer. Missing + required: the test runs and fails with
 * the reason. Missing + not required: ignored, with the reason printed once.
 */
export function peerTest(
  name: string,
  probe: PeerProbe,
  fn: (t: Deno.TestContext) => Promise<void>,
  options: Omit<Deno.TestDefinition, "name" | "fn" | "ignore"> = {},
): void {
  const missing = probe();
  if (missing && !PEERS_REQUIRED) {
    console.error(`skipping "${name}": ${missing}`);
  }
  Deno.test({
    ...options,
    name,
    ignore: missing !== null && !PEERS_REQUIRED,
    fn: async (t) => {
      if (missing) throw new Error(`required peer missing: ${missing}`);
      await fn(t);
    },
  });
}
