// `deno task install` writes launchers that run the programs from any directory with exactly
// the release flags (scripts/permissions.ts), without a deno.json in the current directory:
// the agent's runs its bundle (scripts/bundle.ts), the outpost's its sources.

import assert from "node:assert/strict";
import { launcherScript, RUNTIME_PATH, shQuote } from "../scripts/install.ts";
import {
  AGENT_ENGINE_FLAGS,
  AGENT_PERMISSIONS,
  OUTPOST_ENGINE_FLAGS,
  OUTPOST_PERMISSIONS,
  RUN_FLAGS,
} from "../scripts/permissions.ts";
import { BUNDLE_DIR } from "../scripts/bundle.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

async function install(
  binDir: string,
  deno = Deno.execPath(),
  extra: string[] = [],
): Promise<Deno.CommandOutput> {
  return await new Deno.Command(deno, {
    args: ["run", "-A", `${ROOT}/scripts/install.ts`, "--bin-dir", binDir, "--no-cache", ...extra],
    stdout: "piped",
    stderr: "piped",
  }).output();
}

async function run(cmd: string, args: string[], cwd: string, home: string) {
  const out = await new Deno.Command(cmd, {
    args,
    cwd,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("the agent launcher runs the bundle with exactly the flags of scripts/permissions.ts", () => {
  const script = launcherScript("agent", "/opt/deno", "/src/agent", "/cache/deno", "/home/u/bin");
  assert.ok(script.includes(`DENO_DIR="\${DENO_DIR:-/cache/deno}"`), script);
  assert.ok(script.includes(`export DENO_NO_UPDATE_CHECK='1'`), script);
  assert.ok(!script.includes("AGENT_OUTPOST_AGENT_BIN"), script);
  const exec = script.split("\n").find((l) => l.startsWith("exec "))!;
  const flags = [
    ...RUN_FLAGS,
    "--config",
    "/src/agent/deno.json",
    ...AGENT_ENGINE_FLAGS,
    ...AGENT_PERMISSIONS,
  ];
  const bundle = `/src/agent/${BUNDLE_DIR}/main.js`;
  assert.equal(exec, `exec ${["/opt/deno", "run", ...flags, bundle].map(shQuote).join(" ")} "$@"`);
  assert.ok(!exec.includes("-A ") && !exec.includes("--allow-all"));
});

Deno.test("the outpost launcher runs the sources and starts its runs through the agent launcher", () => {
  const script = launcherScript("agent-outpost", "/opt/deno", "/src/agent", "/c", "/home/u/bin");
  const exec = script.split("\n").find((l) => l.startsWith("exec "))!;
  const flags = [
    ...RUN_FLAGS,
    "--config",
    "/src/agent/deno.json",
    ...OUTPOST_ENGINE_FLAGS,
    ...OUTPOST_PERMISSIONS,
  ];
  const entry = "/src/agent/server/main.ts";
  assert.equal(exec, `exec ${["/opt/deno", "run", ...flags, entry].map(shQuote).join(" ")} "$@"`);
  // The caller's own AGENT_OUTPOST_AGENT_BIN wins; by default, the agent launcher beside it.
  assert.ok(
    script.includes(`AGENT_OUTPOST_AGENT_BIN="\${AGENT_OUTPOST_AGENT_BIN:-/home/u/bin/agent}"`),
    script,
  );
  assert.ok(script.includes("export AGENT_OUTPOST_AGENT_BIN"), script);
});

Deno.test("shQuote survives spaces and quotes", () => {
  assert.equal(shQuote("it's a dir"), `'it'\\''s a dir'`);
});

Deno.test("installed launchers work from outside the checkout and print no task line", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-install-" }));
  try {
    const bin = `${home}/bin`;
    const installed = await install(bin);
    assert.equal(installed.code, 0, new TextDecoder().decode(installed.stderr));
    for (const name of ["agent", "agent-outpost"]) {
      assert.equal((await Deno.stat(`${bin}/${name}`)).mode! & 0o111, 0o111, `${name} executable`);
    }
    const version = await run(`${bin}/agent`, ["--version"], home, home);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^agent \d+\.\d+\.\d+\n$/);
    assert.equal(version.stderr, "", "no `Task …` or `Download …` line");

    // A real error path: one line, exit 1, from a directory with no deno.json anywhere above.
    const bad = await run(
      `${bin}/agent`,
      ["-p", "--workdir", `${home}/missing`, "--", "hi"],
      home,
      home,
    );
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr.trim().split("\n").length, 1, bad.stderr);
    assert.match(bad.stderr, /workdir .*missing does not exist/);

    const help = await run(`${bin}/agent-outpost`, ["--help"], home, home);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /agent-outpost/);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a launcher whose Deno runtime is gone says to run the install again", async () => {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-launcher-" }));
  try {
    const script = launcherScript("agent", `${dir}/gone/deno`, "/src/agent", "/c", `${dir}/bin`);
    await Deno.writeTextFile(`${dir}/agent`, script, { mode: 0o755 });
    const out = await run(`${dir}/agent`, ["--version"], dir, dir);
    assert.equal(out.code, 1);
    assert.equal(
      out.stderr,
      `agent: the Deno runtime ${dir}/gone/deno is gone; run \`deno task install\` again in ` +
        "/src/agent\n",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the launchers keep working after the npx cache that held Deno is cleared", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-install-" }));
  try {
    // A Deno in a throwaway place, as npx's cache holds it; install runs on it, then it goes.
    const npxCache = `${home}/npx-cache`;
    await Deno.mkdir(npxCache);
    await Deno.copyFile(Deno.execPath(), `${npxCache}/deno`);
    await Deno.chmod(`${npxCache}/deno`, 0o755);
    const installed = await install(`${home}/bin`, `${npxCache}/deno`);
    assert.equal(installed.code, 0, new TextDecoder().decode(installed.stderr));
    await Deno.remove(npxCache, { recursive: true });

    const script = await Deno.readTextFile(`${home}/bin/agent`);
    assert.ok(script.includes(shQuote(`${ROOT}/${RUNTIME_PATH}`)), script);
    assert.ok(!script.includes(npxCache), script);
    const version = await run(`${home}/bin/agent`, ["--version"], home, home);
    assert.equal(version.code, 0, version.stderr);
    assert.match(version.stdout, /^agent \d+\.\d+\.\d+\n$/);
    const help = await run(`${home}/bin/agent-outpost`, ["--help"], home, home);
    assert.equal(help.code, 0, help.stderr);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("--runtime keeps the launchers on a Deno that stays where it is (the container's)", async () => {
  const home = await Deno.realPath(await Deno.makeTempDir({ prefix: "agent-install-" }));
  try {
    const system = await Deno.realPath(Deno.execPath());
    const installed = await install(`${home}/bin`, Deno.execPath(), ["--runtime", system]);
    assert.equal(installed.code, 0, new TextDecoder().decode(installed.stderr));
    const script = await Deno.readTextFile(`${home}/bin/agent`);
    const exec = script.split("\n").find((l) => l.startsWith("exec "))!;
    assert.ok(exec.startsWith(`exec ${shQuote(system)} `), exec);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
