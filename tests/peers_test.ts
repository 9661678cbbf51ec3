// The peer gate probes first (tests/peers.ts): a peer that is installed but cannot work here
// counts as missing, with the fix as its reason; a missing peer skips with that reason, or fails
// when AGENT_TEST_REQUIRE_PEERS=1. Stand-ins for `podman`, `debootstrap` and `bwrap` on PATH
// play each condition: podman refusing as runc does on a host that will not raise RLIMIT_NOFILE
// (issue 33), bwrap refused its user namespace.

import assert from "node:assert/strict";

const PEERS = new URL("./peers.ts", import.meta.url).href;

/** Runs `fn` with a folder of `sh` stand-ins (name: script body), removed afterwards. */
async function withStandIns(
  scripts: Record<string, string>,
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "agent-peer-standins-" });
  try {
    for (const [name, body] of Object.entries(scripts)) {
      await Deno.writeTextFile(`${dir}/${name}`, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    }
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

async function runDeno(args: string[], path: string, env: Record<string, string> = {}) {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    clearEnv: true,
    env: { PATH: path, HOME: Deno.env.get("HOME") ?? "/tmp", NO_COLOR: "1", ...env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

/** What probes[name]() says with only the stand-ins (and /usr/bin:/bin) on PATH. */
async function probe(name: string, dir: string): Promise<string | null> {
  const code = `import { probes } from "${PEERS}"; console.log(JSON.stringify(probes.${name}()));`;
  const out = await runDeno(["eval", code], `${dir}:/usr/bin:/bin`);
  assert.equal(out.code, 0, out.stderr);
  return JSON.parse(out.stdout);
}

const RUNC_RLIMIT = "Error: runc: runc create failed: unable to start container process: error " +
  "during container init: error setting rlimits for ready process: error setting rlimit type " +
  "7: operation not permitted: OCI permission denied";

Deno.test("podman that cannot run a trivial container is a missing peer whose reason is .ci/run's containers.conf", async () => {
  await withStandIns({
    podman: `case "$1" in image) exit 0;; run) echo '${RUNC_RLIMIT}' >&2; exit 126;; esac; exit 2`,
    debootstrap: "exit 0",
  }, async (dir) => {
    const reason = await probe("podman", dir);
    assert.ok(reason !== null);
    assert.match(reason, /podman run --rm localhost\/bookworm-min true/);
    assert.match(reason, /error setting rlimit type 7/);
    assert.ok(reason.includes("export CONTAINERS_CONF="), reason);
    assert.ok(reason.endsWith(".ci/containers.conf`, which holds:\n" + CONF_BODY), reason);
  });
});

/** The settings of .ci/containers.conf, as the reason quotes them. */
const CONF_BODY = '[containers]\ndefault_ulimits = []\nnetns = "host"\n[engine]\nruntime = "runc"';

Deno.test("podman that runs the trivial container is a working peer", async () => {
  await withStandIns({
    podman:
      `case "$1" in image) exit 0;; run) [ "$*" = "run --rm localhost/bookworm-min true" ]; exit $?;; esac; exit 2`,
    debootstrap: "exit 0",
  }, async (dir) => {
    assert.equal(await probe("podman", dir), null);
  });
});

Deno.test("bwrap refused its user namespace is a missing peer that names the AppArmor switch", async () => {
  await withStandIns({
    bwrap: "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1",
  }, async (dir) => {
    const reason = await probe("bubblewrap", dir);
    assert.ok(reason !== null);
    assert.match(
      reason,
      /bwrap --ro-bind \/ \/ true`: bwrap: setting up uid map: Permission denied/,
    );
    assert.match(reason, /kernel\.apparmor_restrict_unprivileged_userns=0/);
  });
});

Deno.test("a refused peer skips with its reason, and fails when AGENT_TEST_REQUIRE_PEERS=1", async () => {
  await withStandIns({
    bwrap: "echo 'bwrap: No permissions to create new namespace' >&2; exit 1",
  }, async (dir) => {
    const file = `${dir}/gate_test.ts`;
    await Deno.writeTextFile(
      file,
      `import { peerTest, probes } from "${PEERS}";\n` +
        `peerTest("needs a sandbox", probes.bubblewrap, () => Promise.resolve());\n`,
    );
    const path = `${dir}:/usr/bin:/bin`;
    const skipped = await runDeno(["test", "--no-config", "-A", file], path);
    assert.equal(skipped.code, 0, skipped.stderr);
    assert.match(
      skipped.stdout + skipped.stderr,
      /skipping "needs a sandbox": bubblewrap cannot start here/,
    );
    assert.match(skipped.stdout, /0 passed \| 0 failed \| 1 ignored/);

    const required = await runDeno(["test", "--no-config", "-A", file], path, {
      AGENT_TEST_REQUIRE_PEERS: "1",
    });
    assert.equal(required.code, 1);
    assert.match(
      required.stdout + required.stderr,
      /required peer missing: bubblewrap cannot start/,
    );
  });
});

Deno.test("tmux that cannot start is a missing peer, with what it said", async () => {
  await withStandIns({
    tmux: "echo 'tmux: error while loading shared libraries: libevent_core-2.1.so.7' >&2; exit 127",
  }, async (dir) => {
    const reason = await probe("tmux", dir);
    assert.equal(
      reason,
      "tmux cannot start (`tmux -V`: tmux: error while loading shared libraries: " +
        "libevent_core-2.1.so.7)",
    );
  });
});

Deno.test("uv and pipx: absent, unable to start, or without PyPI, each a missing peer naming the fix", async () => {
  await withStandIns({}, async (dir) => {
    assert.equal(
      await probe("uv", dir),
      "uv not installed (pip install uv==0.13.9, as .ci/run does)",
    );
    assert.equal(
      await probe("pipx", dir),
      "pipx not installed (pip install pipx==1.18.4, as .ci/run does)",
    );
  });
  await withStandIns({
    uv: "echo 'uv: error while loading shared libraries: libgcc_s.so.1' >&2; exit 127",
  }, async (dir) => {
    assert.equal(
      await probe("uv", dir),
      "uv cannot start (`uv --version`: uv: error while loading shared libraries: libgcc_s.so.1)",
    );
  });
  // A working uv, and python3 (the PyPI trial) that cannot reach it.
  await withStandIns({
    uv: "echo 'uv 0.13.9'",
    python3:
      "echo 'urllib.error.URLError: <urlopen error [Errno -3] name resolution failed>' >&2; " +
      "exit 1",
  }, async (dir) => {
    assert.equal(
      await probe("uv", dir),
      "PyPI does not answer (urllib.error.URLError: <urlopen error [Errno -3] name resolution " +
        "failed>)",
    );
  });
  await withStandIns({ pipx: "echo 1.18.4", python3: "exit 0" }, async (dir) => {
    assert.equal(await probe("pipx", dir), null);
  });
});
