// Python MCP servers started through a launcher, through the real uv / pipx and PyPI:
// `agent mcp add time -- uvx mcp-server-time@VERSION` (and `pipx run`) installs the package once,
// with the network, into the agent home; `agent mcp list` shows the pinned version; then a run
// (default sandbox, no network) calls get_current_time on it, and nothing is downloaded again.
// uvx installs with uv; the pipx case runs where only pipx and python3 are on PATH, so the
// agent's other installer (python3 -m venv, then pip) is the one tried.
// The npm side of the same path is tests/e2e/mcp_npx_test.ts.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import { commandOnPath, peerTest, probes } from "../peers.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";

/** The reference server's time tool, pinned (a small, well-known PyPI MCP server). */
const PACKAGE = "mcp-server-time";
const VERSION = "2026.10.19";

// Both cases also need bubblewrap: the point is the run inside the sandbox, offline.

function toolMessages(body: unknown): string[] {
  return (body as { messages: { role: string; content?: unknown }[] }).messages
    .filter((m) => m.role === "tool").map((m) => String(m.content));
}

/** The user's way to PyPI (this machine's proxy signs with its own CA) goes to the installer. */
function caEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ["SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE"]) {
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return env;
}

/**
 * A PATH with pipx and python3 but no uv (a user who has only pipx): the agent then installs
 * with python3's venv and pip. The two programs are linked into a folder of their own, since
 * uv may live beside them.
 */
async function pathWithoutUv(): Promise<{ path: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "agent-no-uv-" });
  const python = new TextDecoder().decode(
    new Deno.Command("python3", { args: ["-c", "import sys; print(sys.executable)"] })
      .outputSync().stdout,
  ).trim();
  await Deno.symlink(python, `${dir}/python3`);
  await Deno.symlink(commandOnPath("pipx")!, `${dir}/pipx`);
  return { path: `${dir}:/usr/bin:/bin`, dir };
}

async function addInstallsAndRunsOffline(
  launcher: string[],
  label: string,
  installer: "uv" | "pip",
): Promise<void> {
  const noUv = installer === "pip" ? await pathWithoutUv() : undefined;
  await using t = await headlessSetup({
    env: { ...caEnv(), ...(noUv ? { PATH: noUv.path } : {}) },
  });
  await using _cleanup = {
    [Symbol.asyncDispose]: () =>
      noUv ? Deno.remove(noUv.dir, { recursive: true }) : Promise.resolve(),
  };
  const add = await runAgent(
    ["mcp", "add", "time", "--", ...launcher, "--local-timezone=UTC"],
    t.env,
    t.work,
  );
  assert.equal(add.code, 0, add.stdout + add.stderr);
  assert.match(add.stdout, new RegExp(`installed ${PACKAGE}@${VERSION} \\(pypi`), add.stdout);

  // Which installer made the environment: uv stamps its pyvenv.cfg; python3 -m venv does not.
  const record = JSON.parse(
    await Deno.readTextFile(`${t.home}/.agent/mcp/packages/time/installed.json`),
  );
  const cfg = await Deno.readTextFile(`${record.dirs[0]}/pyvenv.cfg`);
  assert.equal(/^uv = /m.test(cfg), installer === "uv", cfg);

  const list = await runAgent(["mcp", "list"], t.env, t.work);
  assert.equal(list.code, 0, list.stderr);
  assert.ok(list.stdout.includes(`package: ${PACKAGE}@${VERSION} (pypi, installed `), list.stdout);

  // The run: default sandbox (network off), so the server cannot have downloaded anything.
  t.fake.enqueue(reply().tool("mcp__time__get_current_time", { timezone: "Europe/Paris" }));
  t.fake.enqueue(reply().text("told"));
  const r = await runAgent(
    ["-p", "--workdir", t.work, "--output-format", "json", "--", "what time is it in Paris"],
    t.env,
    t.work,
  );
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /installing/);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.mcp_servers?.[0]?.state, "ready", `${label}: ${r.stderr}`);
  const [answer] = toolMessages(t.fake.requests[1]!.body);
  assert.match(String(answer), /"timezone": ?"Europe\/Paris"/, String(answer));
  assert.match(String(answer), /"datetime": ?"\d{4}-\d\d-\d\dT/, String(answer));
}

peerTest(
  `agent mcp add time -- uvx ${PACKAGE}@${VERSION} installs through uv once, then runs offline in the sandbox`,
  () => probes.uv() ?? probes.bubblewrap(),
  () => addInstallsAndRunsOffline(["uvx", `${PACKAGE}@${VERSION}`], "uvx", "uv"),
);

peerTest(
  `agent mcp add time -- pipx run ${PACKAGE}==${VERSION} without uv installs with venv and pip once, then runs offline in the sandbox`,
  () => probes.pipx() ?? probes.bubblewrap(),
  () => addInstallsAndRunsOffline(["pipx", "run", `${PACKAGE}==${VERSION}`], "pipx run", "pip"),
);
