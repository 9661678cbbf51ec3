// The sandbox module against the real bubblewrap: what a wrapped command can and cannot see.
// Needs bwrap (tests/peers.ts: skipped with a reason on a developer machine without it, a
// failure under AGENT_TEST_REQUIRE_PEERS=1).

import assert from "node:assert/strict";
import { envFrom } from "../ports.ts";
import { resolveSettings } from "../settings/resolve.ts";
import { peerTest, probes } from "../../tests/peers.ts";
import {
  confinedReadPaths,
  openSandbox,
  type Sandbox,
  SandboxConfigError,
  SandboxUnavailableError,
} from "./sandbox.ts";
import { sandboxEnv } from "./environment.ts";

interface Fixture extends AsyncDisposable {
  base: string;
  workdir: string;
  agentHome: string;
  other: string;
  sandbox(extra?: Partial<Parameters<typeof openSandbox>[0]>): Sandbox;
  run(sb: Sandbox, command: string): Promise<{ code: number; out: string }>;
}

const CANARY = "sk-canary-0123456789";

async function fixture(): Promise<Fixture> {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "sandbox-test-" }));
  const workdir = `${base}/work`;
  const agentHome = `${base}/.agent`;
  const other = `${base}/other-workspace`;
  for (const d of [workdir, agentHome, other]) await Deno.mkdir(d);
  await Deno.writeTextFile(`${agentHome}/settings.toml`, `api_key = "${CANARY}"\n`);
  await Deno.writeTextFile(`${other}/secret.txt`, "other job's data\n");
  const sandbox = (extra = {}) =>
    openSandbox({
      mode: "auto",
      network: false,
      passEnv: [],
      workdir,
      hidden: [agentHome, base],
      places: { agentHome, userHome: base },
      readOnly: [],
      env: envFrom({ PATH: Deno.env.get("PATH"), AGENT_API_KEY: CANARY, HOME: base }),
      settingsPath: `${agentHome}/settings.toml`,
      ...extra,
    });
  const run = async (sb: Sandbox, command: string) => {
    const w = await sb.wrap({ argv: ["sh", "-c", command], cwd: workdir });
    const out = await new Deno.Command(w.command, {
      args: w.args,
      cwd: w.cwd,
      env: w.env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    return { code: out.code, out: dec.decode(out.stdout) + dec.decode(out.stderr) };
  };
  return {
    base,
    workdir,
    agentHome,
    other,
    sandbox,
    run,
    async [Symbol.asyncDispose]() {
      await Deno.remove(base, { recursive: true });
    },
  };
}

const bwrapPeer = () => probes.bubblewrap();

peerTest("the agent's keys, files and processes are out of reach", bwrapPeer, async () => {
  await using f = await fixture();
  const sb = f.sandbox();
  // The attack of issue 14: the parent's environment through /proc.
  const environ = await f.run(sb, `tr '\\0' '\\n' < /proc/$PPID/environ; env; cat /proc/*/environ`);
  assert.ok(!environ.out.includes(CANARY), environ.out);
  const settings = await f.run(sb, `cat ${f.agentHome}/settings.toml`);
  assert.notEqual(settings.code, 0);
  assert.ok(!settings.out.includes(CANARY));
  const other = await f.run(sb, `cat ${f.other}/secret.txt`);
  assert.notEqual(other.code, 0);
  assert.ok(!other.out.includes("other job's data"), other.out);
  // The workdir's parent holds only the mount point of the workdir.
  assert.equal((await f.run(sb, `ls -A ${f.base}`)).out, "work\n");
  // Only the sandbox's own processes exist: sh (and ls) plus bwrap's pid 1.
  const procs = await f.run(sb, "cat /proc/[0-9]*/comm");
  const names = new Set(procs.out.trim().split("\n"));
  assert.ok(
    names.has("bwrap") && [...names].every((n) => ["bwrap", "sh", "cat"].includes(n)),
    procs.out,
  );
  // kill -9 $PPID reaches only bwrap's init inside the namespace, which ignores it.
  const kill = await f.run(sb, "kill -9 $PPID; echo still-here");
  assert.match(kill.out, /still-here/);
  const home = await f.run(sb, "echo $HOME; ls -A ~ | wc -l");
  assert.equal(home.out, "/tmp/home\n0\n");
});

peerTest("writes land in the workdir and nowhere else on the host", bwrapPeer, async () => {
  await using f = await fixture();
  const sb = f.sandbox();
  const ok = await f.run(sb, "echo made > made.txt && mkdir -p sub && echo x > sub/y && pwd");
  assert.equal(ok.code, 0, ok.out);
  assert.equal(ok.out.trim(), f.workdir);
  assert.equal(await Deno.readTextFile(`${f.workdir}/made.txt`), "made\n");
  for (const target of ["/etc/escape.txt", "/usr/escape.txt", "/escape.txt"]) {
    const w = await f.run(sb, `echo x > ${target}`);
    assert.notEqual(w.code, 0, target);
  }
  // /tmp (which holds this test's workdir) is a fresh tmpfs per call: a write beside the
  // workdir succeeds there and is gone with the call, never reaching the host.
  const beside = await f.run(sb, `echo x > ${f.base}/escape.txt && ls -A /tmp | wc -l`);
  assert.equal(beside.code, 0, beside.out);
  await assert.rejects(Deno.stat(`${f.base}/escape.txt`), Deno.errors.NotFound);
  const again = await f.run(sb, `ls ${f.base}/escape.txt`);
  assert.notEqual(again.code, 0);
});

peerTest(
  "ordinary work in the workdir succeeds: git, a build, a test script",
  bwrapPeer,
  async () => {
    await using f = await fixture();
    const sb = f.sandbox();
    await Deno.writeTextFile(`${f.workdir}/hello.c`, "int main(void){return 0;}\n");
    await Deno.writeTextFile(`${f.workdir}/Makefile`, "hello: hello.c\n\tcc -o hello hello.c\n");
    const out = await f.run(
      sb,
      [
        "git init -q . && git add -A",
        "git -c user.name=t -c user.email=t@example.org commit -qm init",
        "git log --oneline | wc -l",
        "make -s && ./hello && echo built-and-ran",
      ].join(" && "),
    );
    assert.equal(out.code, 0, out.out);
    assert.match(out.out, /^1\nbuilt-and-ran\n$/);
  },
);

peerTest("the network is off by default and on with sandbox_network", bwrapPeer, async () => {
  await using f = await fixture();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response("reached"),
  );
  try {
    const url = `http://127.0.0.1:${server.addr.port}/`;
    const off = await f.run(f.sandbox(), `curl -sS -m 5 ${url}`);
    assert.notEqual(off.code, 0);
    assert.ok(!off.out.includes("reached"));
    const on = await f.run(f.sandbox({ network: true }), `curl -sS -m 5 ${url}`);
    assert.equal(on.out, "reached");
  } finally {
    await server.shutdown();
  }
});

peerTest(
  "a hidden path inside the workdir is masked, and so is the whole .agent folder",
  bwrapPeer,
  async () => {
    await using f = await fixture();
    await Deno.mkdir(`${f.workdir}/.agent`);
    await Deno.writeTextFile(`${f.workdir}/.agent/settings.toml`, 'model = "m"\n');
    await Deno.mkdir(`${f.workdir}/home-inside`);
    await Deno.writeTextFile(`${f.workdir}/home-inside/key`, CANARY);
    const sb = f.sandbox({
      hidden: [f.agentHome, `${f.workdir}/home-inside`],
      readOnly: [`${f.workdir}/.agent/settings.toml`],
    });
    const out = await f.run(sb, "ls -A home-inside | wc -l; ls -A .agent | wc -l");
    assert.equal(out.out, "0\n0\n");
    // Issue 37: neither rewriting the file nor swapping the folder reaches the host.
    const attack = await f.run(
      sb,
      "echo 'base_url = \"http://evil/v1\"' > .agent/settings.toml || echo refused-write; " +
        "mv .agent .x 2>/dev/null || echo refused-move; " +
        "rm -rf .agent 2>/dev/null; mkdir -p .agent 2>/dev/null; " +
        "echo 'model = \"evil\"' > .agent/settings.toml 2>/dev/null || echo refused-plant",
    );
    assert.match(attack.out, /refused-write/);
    assert.match(attack.out, /refused-move/);
    assert.match(attack.out, /refused-plant/);
    assert.equal(await Deno.readTextFile(`${f.workdir}/.agent/settings.toml`), 'model = "m"\n');
    await sb.close();
    assert.ok((await Deno.stat(`${f.workdir}/.agent/settings.toml`)).isFile, "the user's kept");
  },
);

peerTest(
  "an absent .agent is masked too, and the run leaves no folder behind",
  bwrapPeer,
  async () => {
    await using f = await fixture();
    const sb = f.sandbox();
    const out = await f.run(
      sb,
      "mkdir -p .agent/x 2>/dev/null || echo refused-mkdir; " +
        "echo 'base_url = \"http://evil/v1\"' > .agent/settings.toml 2>/dev/null || echo refused",
    );
    assert.match(out.out, /refused-mkdir/);
    assert.match(out.out, /refused\n/);
    await sb.close();
    await assert.rejects(Deno.lstat(`${f.workdir}/.agent`), Deno.errors.NotFound);
  },
);

peerTest(
  "a .agent symlink leading out of the workdir cannot be masked: the command is refused",
  bwrapPeer,
  async () => {
    await using f = await fixture();
    await Deno.symlink(f.other, `${f.workdir}/.agent`);
    await assert.rejects(
      f.sandbox().wrap({ argv: ["true"], cwd: f.workdir }),
      (e: unknown) => e instanceof SandboxConfigError && /symlink leading out/.test(e.message),
    );
  },
);

peerTest(
  "the sandbox refuses to bind a workdir that is or lies inside the agent home",
  bwrapPeer,
  async () => {
    await using f = await fixture();
    for (const cwd of [f.agentHome, f.base, "/"]) {
      await assert.rejects(
        f.sandbox({ workdir: cwd }).wrap({ argv: ["true"], cwd }),
        (e: unknown) => e instanceof SandboxConfigError && /it is not bound/.test(e.message),
        cwd,
      );
    }
  },
);

Deno.test("without bwrap on PATH, auto refuses with the install hint and the way out", async () => {
  await using f = await fixture();
  const sb = f.sandbox({ env: envFrom({ PATH: `${f.base}/empty-bin` }) });
  const refusal = await sb.check();
  assert.match(refusal ?? "", /^sandbox: bubblewrap is not installed \(no bwrap on PATH\)/);
  assert.match(refusal ?? "", /apt-get install bubblewrap/);
  assert.match(refusal ?? "", /sandbox = "off" in .*settings\.toml \(or AGENT_SANDBOX_MODE=off\)/);
  assert.ok(!refusal?.includes("\n"));
  await assert.rejects(
    sb.wrap({ argv: ["true"], cwd: f.workdir }),
    (e: unknown) => e instanceof SandboxUnavailableError && e.message === refusal,
  );
  assert.equal(sb.describe(), "auto: unavailable, shell calls refused");
});

/** A `bwrap` on PATH that fails the way it does in a default podman container (masked /proc). */
async function failingBwrap(f: Fixture): Promise<string> {
  const bin = `${f.base}/failing-bin`;
  await Deno.mkdir(bin);
  await Deno.writeTextFile(
    `${bin}/bwrap`,
    "#!/bin/sh\necho 'bwrap: Can'\\''t mount proc on /newroot/proc: Operation not permitted' >&2\nexit 1\n",
    { mode: 0o755 },
  );
  return bin;
}

Deno.test("a bwrap that cannot start: auto refuses with its error and the host's way out", async () => {
  await using f = await fixture();
  const sb = f.sandbox({ env: envFrom({ PATH: `${await failingBwrap(f)}:/usr/bin:/bin` }) });
  const refusal = await sb.check();
  assert.equal(
    refusal,
    "sandbox: bubblewrap cannot start here (bwrap: Can't mount proc on /newroot/proc: " +
      "Operation not permitted): allow unprivileged user namespaces or see docs/sandbox.md " +
      `for containers, or set sandbox = "off" in ${f.agentHome}/settings.toml ` +
      "(or AGENT_SANDBOX_MODE=off) to run shell commands unsandboxed",
  );
  assert.equal(sb.describe(), "auto: unavailable, shell calls refused");
});

Deno.test("in the outpost's container, the refusal names the container's run option", async () => {
  await using f = await fixture();
  const sb = f.sandbox({
    env: envFrom({ PATH: `${await failingBwrap(f)}:/usr/bin:/bin`, AGENT_SANDBOX: "container" }),
  });
  const refusal = await sb.check();
  assert.equal(
    refusal,
    "sandbox: bubblewrap cannot start here (bwrap: Can't mount proc on /newroot/proc: " +
      "Operation not permitted): in a container, start it with --security-opt unmask=/proc/* " +
      '(docker: --security-opt systempaths=unconfined; docs/sandbox.md, "Containers"); on a ' +
      "bare host, allow unprivileged user namespaces; or set AGENT_SANDBOX_MODE=off in the " +
      "container's environment to run shell commands unsandboxed with the container as the " +
      "only wall",
  );
  await assert.rejects(
    sb.wrap({ argv: ["true"], cwd: f.workdir }),
    (e: unknown) => e instanceof SandboxUnavailableError && e.message === refusal,
  );
});

Deno.test("off runs the command as is, minus the model keys", async () => {
  await using f = await fixture();
  const sb = f.sandbox({ mode: "off" });
  const w = await sb.wrap({ argv: ["sh", "-c", "true"], cwd: f.workdir });
  assert.deepEqual([w.command, ...w.args], ["sh", "-c", "true"]);
  assert.equal(w.env.AGENT_API_KEY, undefined);
  assert.equal(w.env.HOME, f.base);
  assert.match(sb.describe(), /^off/);
});

Deno.test("macOS and others: auto refuses rather than run unconfined", async () => {
  await using f = await fixture();
  const refusal = await f.sandbox({ os: "darwin" }).check();
  assert.match(refusal ?? "", /^sandbox: no sandbox for darwin yet .*sandbox = "off"/);
});

Deno.test("sandbox_env may not name a model key", async () => {
  await using f = await fixture();
  assert.throws(
    () => f.sandbox({ passEnv: ["GITHUB_TOKEN", "ANTHROPIC_API_KEY"] }),
    (e: unknown) =>
      e instanceof SandboxConfigError &&
      /sandbox_env may not list ANTHROPIC_API_KEY/.test(e.message),
  );
});

Deno.test("the sandbox environment is an allowlist plus the operator's names", () => {
  const env = sandboxEnv({
    PATH: "/usr/bin",
    LANG: "C.UTF-8",
    HOME: "/root",
    GITHUB_TOKEN: "gh",
    AWS_SECRET_ACCESS_KEY: "aws",
    OPENAI_API_KEY: "k",
  }, ["GITHUB_TOKEN", "OPENAI_API_KEY"]);
  assert.deepEqual(env, {
    PATH: "/usr/bin",
    LANG: "C.UTF-8",
    GITHUB_TOKEN: "gh",
    HOME: "/tmp/home",
    TMPDIR: "/tmp",
  });
});

Deno.test("a project settings file cannot turn the sandbox off or the network on", async () => {
  const base = await Deno.realPath(await Deno.makeTempDir({ prefix: "sandbox-settings-" }));
  try {
    await Deno.mkdir(`${base}/repo/.agent`, { recursive: true });
    await Deno.mkdir(`${base}/repo/.git`);
    await Deno.writeTextFile(
      `${base}/repo/.agent/settings.toml`,
      `sandbox = "off"\nsandbox_network = "on"\nsandbox_env = ["AWS_SECRET_ACCESS_KEY"]\n`,
    );
    const s = resolveSettings({ flags: {}, env: envFrom({}), cwd: `${base}/repo`, home: base });
    assert.equal(s.sandbox, "auto");
    assert.equal(s.sandbox_network, "off");
    assert.deepEqual(s.sandbox_env, []);
    for (const key of ["sandbox", "sandbox_network", "sandbox_env"]) {
      assert.ok(s.warnings.some((w) => w.includes(key)), `warning for ${key}: ${s.warnings}`);
    }
  } finally {
    await Deno.remove(base, { recursive: true });
  }
});

Deno.test("read_paths: relative, missing, or exposing a hidden path is refused", async () => {
  await using f = await fixture();
  const tools = `${f.base}/tools`;
  await Deno.mkdir(tools);
  await Deno.mkdir(`${f.agentHome}/sessions`);
  const hidden = [f.agentHome, f.base];
  // Inside the real HOME (base here) is allowed: that is where ~/.cache installs live.
  assert.deepEqual(confinedReadPaths([tools], hidden, [f.base]), [{
    source: tools,
    target: tools,
  }]);
  for (
    const [path, why] of [
      ["tools", /not absolute/],
      [`${f.base}/missing`, /does not exist/],
      [f.base, /would expose/],
      ["/", /would expose/],
      [f.agentHome, /would expose/],
      [`${f.agentHome}/sessions`, /would expose/],
    ] as const
  ) {
    assert.throws(() => confinedReadPaths([path], hidden, [f.base]), why, path);
  }
});

peerTest(
  "a command's read_paths are readable but not writable; its env joins the allowlist, keys refused",
  bwrapPeer,
  async () => {
    await using f = await fixture();
    const tools = `${f.base}/tools`;
    await Deno.mkdir(tools);
    await Deno.writeTextFile(`${tools}/server.txt`, "installed");
    const sb = f.sandbox({ openInside: [f.base] });
    const w = await sb.wrap({
      argv: ["sh", "-c", `cat ${tools}/server.txt; echo x > ${tools}/w || echo read-only`],
      cwd: f.workdir,
      readPaths: [tools],
      env: { OWN: "mine" },
    });
    const out = await new Deno.Command(w.command, { args: w.args, env: w.env, clearEnv: true })
      .output();
    assert.match(new TextDecoder().decode(out.stdout), /^installedread-only\n$/);
    assert.equal(w.env.OWN, "mine");
    await assert.rejects(
      () => sb.wrap({ argv: ["true"], cwd: f.workdir, env: { AGENT_API_KEY: "x" } }),
      /env may not set AGENT_API_KEY/,
    );
  },
);
