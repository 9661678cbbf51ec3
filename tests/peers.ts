// Real peers (Chromium, Synapse, tmux, bubblewrap, podman, and the model servers llama-server
// and LiteLLM that scripts/peers/ builds into AGENT_PEER_CACHE) used by end-to-end tests. On a
// developer's machine a missing peer skips the test with a printed reason; when
// AGENT_TEST_REQUIRE_PEERS=1 (set by .ci/run) a missing peer fails the test instead, so CI can
// never pass by skipping.
//
// Probe first: a peer whose program is installed yet cannot work on this machine (podman on a
// configuration the host refuses, bwrap without user namespaces) counts as missing, and the
// reason says how to fix it. So a probe runs the smallest real use of the peer (a trivial
// container, an empty sandbox) rather than only looking for its binary.

import { BASE_IMAGE, ROOT } from "./e2e/container_kit.ts";

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

/** The podman configuration .ci/run uses, named when podman cannot run a container. */
export const CI_CONTAINERS_CONF = `${ROOT}/.ci/containers.conf`;

/**
 * Runs a trial command: null when it exits 0, else its first stderr line (or exit code). A
 * program that cannot be started at all is a reason too, never an exception.
 */
export function trialRun(command: string, args: string[]): string | null {
  let out: Deno.CommandOutput;
  try {
    out = new Deno.Command(command, { args, stdin: "null", stdout: "null", stderr: "piped" })
      .outputSync();
  } catch (err) {
    return `${command} could not start: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (out.success) return null;
  const lines = new TextDecoder().decode(out.stderr).trim().split("\n");
  return lines.find((l) => /error|denied|not permitted|fail/i.test(l)) ?? lines[0] ??
    `exit code ${out.code}`;
}

/** A probe run once per test module, however many tests ask. */
function once(probe: PeerProbe): PeerProbe {
  let result: { reason: string | null } | undefined;
  return () => (result ??= { reason: probe() }).reason;
}

/**
 * podman: the programs, the local base image (built by scripts/container_base.sh when absent,
 * its progress printed), then `podman run --rm <base> true`. When that trial fails the reason
 * is the fix: the containers.conf .ci/run uses.
 */
function probePodman(): string | null {
  if (!commandOnPath("podman") || !commandOnPath("debootstrap")) {
    return "podman or debootstrap not installed (apt-get install podman runc debootstrap)";
  }
  if (trialRun("podman", ["image", "exists", BASE_IMAGE]) !== null) {
    console.error(
      `container peer: making the base image ${BASE_IMAGE} (scripts/container_base.sh)`,
    );
    const built = new Deno.Command("bash", {
      args: [`${ROOT}/scripts/container_base.sh`, BASE_IMAGE],
      stdin: "null",
      stdout: "inherit",
      stderr: "inherit",
    }).outputSync();
    if (!built.success) {
      return `the base image ${BASE_IMAGE} could not be made (scripts/container_base.sh, ` +
        `exit ${built.code}; its output is above)`;
    }
  }
  const refused = trialRun("podman", ["run", "--rm", BASE_IMAGE, "true"]);
  if (refused === null) return null;
  const conf = Deno.readTextFileSync(CI_CONTAINERS_CONF).split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#")).join("\n");
  return `podman cannot run a container on this configuration (\`podman run --rm ${BASE_IMAGE} ` +
    `true\`: ${refused}); run the tests with the configuration .ci/run uses, ` +
    `\`export CONTAINERS_CONF=${CI_CONTAINERS_CONF}\`, which holds:\n${conf}`;
}

/** bubblewrap: installed, and able to make its namespaces (`bwrap --ro-bind / / true`). */
function probeBubblewrap(): string | null {
  const bwrap = commandOnPath("bwrap");
  if (!bwrap) return "bubblewrap not installed (apt-get install bubblewrap)";
  const refused = trialRun(bwrap, ["--ro-bind", "/", "/", "true"]);
  return refused === null ? null : `bubblewrap cannot start here (\`bwrap --ro-bind / / true\`: ` +
    `${refused}); allow unprivileged user namespaces (on Ubuntu 24.04: ` +
    "sysctl kernel.apparmor_restrict_unprivileged_userns=0; docs/sandbox.md)";
}

export const probes = {
  chromium: once(() => {
    if (!existsFile("/usr/bin/chromium")) {
      return "chromium not installed (apt-get install chromium)";
    }
    // Installed is not enough: a missing shared library stops it before any page opens.
    const refused = trialRun("/usr/bin/chromium", ["--version"]);
    return refused === null ? null : `chromium cannot start (\`chromium --version\`: ${refused})`;
  }),
  tmux: once(() => {
    if (!commandOnPath("tmux")) return "tmux not installed";
    const refused = trialRun("tmux", ["-V"]);
    return refused === null ? null : `tmux cannot start (\`tmux -V\`: ${refused})`;
  }),
  actionlint: (): string | null =>
    commandOnPath("actionlint") ? null : "actionlint not installed (go install " +
      "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12, as .ci/run does; put GOBIN on PATH)",
  bubblewrap: once(probeBubblewrap),
  podman: once(probePodman),
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
  postgres: (): string | null => {
    if (!postgresBin()) return "PostgreSQL not installed (apt-get install postgresql)";
    // initdb refuses root: tests/pg_cluster.ts runs the cluster as `postgres` through runuser.
    if (Deno.uid() === 0 && !commandOnPath("runuser")) return "runuser missing (util-linux)";
    return null;
  },
  prometheus: (): string | null =>
    commandOnPath("prometheus") ? null : "prometheus not installed (apt-get install prometheus)",
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
  /** uv (launcher MCP servers run through `uvx` install with it) and PyPI answering. */
  uv: once(() => probePython("uv", ["--version"], "pip install uv==0.13.9")),
  /** pipx (`pipx run` MCP servers; the agent installs their package with uv or pip) and PyPI. */
  pipx: once(() => probePython("pipx", ["--version"], "pip install pipx==1.18.4")),
} satisfies Record<string, PeerProbe>;

/** The newest installed PostgreSQL server's bin folder (Debian's layout), or null. */
export function postgresBin(): string | null {
  let versions: string[] = [];
  try {
    versions = [...Deno.readDirSync("/usr/lib/postgresql")].map((e) => e.name);
  } catch {
    return null; // not installed
  }
  const newest = versions.sort((a, b) => Number(a) - Number(b)).at(-1);
  const bin = newest ? `/usr/lib/postgresql/${newest}/bin` : null;
  return bin && existsFile(`${bin}/initdb`) ? bin : null;
}

/**
 * A Python launcher: installed, able to start (`<program> --version`), and PyPI answering
 * (python3's own HTTPS client, so the CA the installers are given is the one tried).
 */
function probePython(program: string, trial: string[], install: string): string | null {
  if (!commandOnPath(program)) return `${program} not installed (${install}, as .ci/run does)`;
  const refused = trialRun(program, trial);
  if (refused !== null) {
    return `${program} cannot start (\`${program} ${trial.join(" ")}\`: ${refused})`;
  }
  const unreachable = trialRun("python3", [
    "-c",
    "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/pip/', timeout=10)",
  ]);
  return unreachable === null ? null : `PyPI does not answer (${unreachable})`;
}

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
