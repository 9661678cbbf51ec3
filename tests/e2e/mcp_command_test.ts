// `agent mcp list|add|remove|test|set-key` as a real child process with the release permission
// flags (tests/e2e/agent_process.ts): what each writes to and reads from the global settings
// file, the one line and exit 1 of bad input, that a key never appears in any output, that a
// stored key reaches a Streamable HTTP server (and never one from a project file), and that
// `agent mcp test` runs a stdio server in the same sandbox as a run.

import assert from "node:assert/strict";
import { type AgentEnv, runAgent, tempHome } from "./agent_process.ts";
import { peerTest, probes } from "../peers.ts";
import { everythingProbe, startEverythingHttp, TEST_SERVERS_DIR } from "../mcp/everything.ts";
import { startHttpTap } from "../mcp/http_tap.ts";

const RAW_SERVER = `${TEST_SERVERS_DIR}/raw_server.mjs`;
const KEY = "sk-mcp-team-7f3a9c";

async function mcpHome() {
  const home = await tempHome();
  const work = `${home}/work`;
  await Deno.mkdir(`${home}/.agent`, { recursive: true });
  await Deno.mkdir(`${work}/.git`, { recursive: true });
  const env: AgentEnv = { home };
  return {
    home,
    work,
    env,
    settingsPath: `${home}/.agent/settings.toml`,
    global: () => Deno.readTextFile(`${home}/.agent/settings.toml`),
    mcp: (args: string[], input?: string) => runAgent(["mcp", ...args], env, work, input),
    async [Symbol.asyncDispose]() {
      await Deno.remove(home, { recursive: true });
    },
  };
}

/** Exit 1 and exactly one line on stderr, saying `what`; nothing on stdout. */
function oneLineFailure(r: { code: number; stdout: string; stderr: string }, what: RegExp) {
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout, "");
  const line = r.stderr.trimEnd();
  assert.equal(line.split("\n").length, 1, r.stderr);
  assert.match(line, what);
}

Deno.test("agent mcp add, list and remove write and read the global settings file", async () => {
  await using t = await mcpHome();
  const empty = await t.mcp(["list"]);
  assert.equal(empty.code, 0, empty.stderr);
  assert.match(empty.stdout, /^no MCP servers configured/);

  // A stdio server: --env and --cwd before --, the command and its args (flags included) after.
  const local = await t.mcp([
    "add",
    "local",
    "--env",
    "LOG_LEVEL=debug",
    "--cwd",
    "srv",
    "--",
    "node",
    RAW_SERVER,
    "--verbose",
  ]);
  assert.equal(local.code, 0, local.stderr);
  assert.equal(local.stdout, `added MCP server local to ${t.settingsPath}\n`);
  // An HTTP server with a plain header and a stored-key id.
  const web = await t.mcp([
    "add",
    "web",
    "--url",
    "https://mcp.example.com/mcp",
    "--header",
    "X-Team=blue",
    "--bearer-key",
    "team",
  ]);
  assert.equal(web.code, 0, web.stderr);
  const file = await t.global();
  assert.match(file, /\[mcp_servers\.local\]\ncommand = "node"\n/);
  assert.ok(file.includes(`args = [ "${RAW_SERVER}", "--verbose" ]`), file);
  assert.match(file, /cwd = "srv"/);
  assert.match(file, /LOG_LEVEL = "debug"/);
  assert.match(file, /\[mcp_servers\.web\]\nurl = "https:\/\/mcp\.example\.com\/mcp"\n/);
  assert.match(file, /X-Team = "blue"/);
  assert.match(file, /bearer_key = "team"/);

  // A project-file server shows as needing approval.
  await Deno.mkdir(`${t.work}/.agent`);
  await Deno.writeTextFile(
    `${t.work}/.agent/settings.toml`,
    `[mcp_servers.proj]\ncommand = "node"\nargs = ["server.js"]\n`,
  );
  const list = await t.mcp(["list"]);
  assert.equal(list.code, 0, list.stderr);
  assert.equal(
    list.stdout,
    `local (stdio, global ${t.settingsPath}): enabled\n` +
      `  node ${RAW_SERVER} --verbose (cwd srv) (env LOG_LEVEL)\n` +
      `web (http, global ${t.settingsPath}): enabled\n` +
      `  https://mcp.example.com/mcp (headers X-Team) (key mcp_keys.team)\n` +
      `proj (stdio, project ${t.work}/.agent/settings.toml): enabled, needs approval ` +
      `(agent mcp approve proj)\n  node server.js\n`,
  );
  // Names only: env and header values stay out of the listing.
  assert.ok(!list.stdout.includes("debug") && !list.stdout.includes("blue"), list.stdout);

  const removed = await t.mcp(["remove", "local"]);
  assert.equal(removed.code, 0, removed.stderr);
  assert.equal(removed.stdout, `removed MCP server local from ${t.settingsPath}\n`);
  const after = await t.global();
  assert.doesNotMatch(after, /mcp_servers\.local/);
  assert.match(after, /\[mcp_servers\.web\]/, "the other server stays");

  // The project file is never written: remove says where the server is defined.
  oneLineFailure(
    await t.mcp(["remove", "proj"]),
    new RegExp(`^agent: proj is defined in ${t.work}/\\.agent/settings\\.toml; edit that file`),
  );
  oneLineFailure(
    await t.mcp(["remove", "nope"]),
    new RegExp(`^agent: no MCP server named nope in ${t.settingsPath}$`, "m"),
  );
});

Deno.test("agent mcp: bad input is one line and exit 1, and never breaks the settings file", async () => {
  await using t = await mcpHome();
  await Deno.writeTextFile(t.settingsPath, `model = "kept"\n`);
  oneLineFailure(
    await t.mcp(["add", "x", "--env", "NOEQUALS", "--", "node"]),
    /^agent: --env takes NAME=VALUE, got "NOEQUALS"$/,
  );
  oneLineFailure(
    await t.mcp(["add", "x", "--url", "https://h/mcp", "--header", "=v"]),
    /^agent: --header takes NAME=VALUE, got "=v"$/,
  );
  oneLineFailure(await t.mcp(["add", "x"]), /^agent: agent mcp add needs a command after --/);
  oneLineFailure(await t.mcp(["add", "bad name", "--", "node"]), /"bad name" is not valid/);
  oneLineFailure(await t.mcp(["add", "x", "--bogus", "--", "node"]), /^agent: .*--bogus/);
  oneLineFailure(await t.mcp(["add", "x", "--url", "ftp://h/mcp"]), /url.*http:\/\/ or https:\/\//);
  oneLineFailure(await t.mcp(["test", "ghost"]), /^agent: no MCP server named ghost; configured:/);
  oneLineFailure(await t.mcp(["set-key", "team"], "\n"), /key for team is empty/);
  // None of that left anything behind: the file is as it was, and still parses.
  assert.equal(await t.global(), `model = "kept"\n`);
  const list = await t.mcp(["list"]);
  assert.equal(list.code, 0, list.stderr);

  // Adding a name twice is refused, the first one kept.
  assert.equal((await t.mcp(["add", "x", "--", "node", "a.js"])).code, 0);
  oneLineFailure(await t.mcp(["add", "x", "--", "node", "b.js"]), /x already exists/);
  assert.match(await t.global(), /"a\.js"/);

  // An unknown subcommand prints the usage (several lines), still exit 1.
  const unknown = await t.mcp(["frob"]);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /^usage: agent mcp list/);
});

Deno.test("agent mcp set-key stores the key from stdin and never prints it", async () => {
  await using t = await mcpHome();
  await Deno.writeTextFile(t.settingsPath, `[mcp_servers.web]\nurl = "https://h/mcp"\n`);
  const set = await t.mcp(["set-key", "team"], `${KEY}\n`);
  assert.equal(set.code, 0, set.stderr);
  assert.equal(
    set.stdout,
    `stored mcp_keys.team in ${t.settingsPath}; servers with bearer_key = "team" send it\n`,
  );
  const file = await t.global();
  assert.match(file, new RegExp(`\\[mcp_keys\\]\nteam = "${KEY}"`));
  assert.match(file, /\[mcp_servers\.web\]/, "the rest of the file stays");
  const list = await t.mcp(["list"]);
  const config = await runAgent(["config"], t.env, t.work);
  for (const r of [set, list, config]) {
    assert.ok(!(r.stdout + r.stderr).includes(KEY), r.stdout + r.stderr);
  }
});

Deno.test("agent mcp test: exit 0 with the tools of a ready server, exit 1 and one line for a failing one", async () => {
  await using t = await mcpHome();
  // sandbox = "off" here: this test is about the command's output (the sandbox has its own).
  await Deno.writeTextFile(
    t.settingsPath,
    `sandbox = "off"\n[mcp_servers.raw]\ncommand = "node"\nargs = [${
      JSON.stringify(RAW_SERVER)
    }]\nenabled = false\n` +
      `[mcp_servers.dies]\ncommand = "sh"\nargs = ["-c", "echo 'dies: no config' >&2; exit 4"]\n`,
  );
  const ok = await t.mcp(["test", "raw"]); // disabled in the file: tested all the same
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(
    ok.stdout,
    "raw: ready, 3 tools\n  mcp__raw__crash (read)\n  mcp__raw__hang (read)\n" +
      "  mcp__raw__bad_structured (read)\n",
  );
  oneLineFailure(
    await t.mcp(["test", "dies"]),
    /^agent: MCP server dies failed: .*\(stderr: dies: no config\)$/,
  );
});

peerTest(
  "agent mcp test runs a stdio server in the run's sandbox: the agent home stays hidden",
  probes.bubblewrap,
  async () => {
    await using t = await mcpHome();
    // A server that first reads the global settings file (which a run's sandbox hides), then
    // serves; it is ready only if that read succeeded.
    const table = (name: string) =>
      `[mcp_servers.${name}]\ncommand = "sh"\nargs = ["-c", ${
        JSON.stringify(`cat ${t.settingsPath} >/dev/null && exec node ${RAW_SERVER}`)
      }]\nread_paths = [${JSON.stringify(TEST_SERVERS_DIR)}]\n`;
    await Deno.writeTextFile(t.settingsPath, table("peek"));
    oneLineFailure(
      await t.mcp(["test", "peek"]),
      /^agent: MCP server peek failed: .*\(stderr: cat: .*settings\.toml: No such file or directory\)$/,
    );
    // The same server with the sandbox off reads the file and is ready: the check above is the
    // sandbox's doing, not a broken command.
    await Deno.writeTextFile(t.settingsPath, `sandbox = "off"\n${table("peek")}`);
    const off = await t.mcp(["test", "peek"]);
    assert.equal(off.code, 0, off.stderr);
    assert.match(off.stdout, /^peek: ready, 3 tools/);
  },
);

peerTest(
  "a stored key goes to a global Streamable HTTP server, and never to a project-file one",
  everythingProbe,
  async () => {
    await using peer = await startEverythingHttp();
    await using tap = startHttpTap(peer.url);
    await using t = await mcpHome();
    assert.equal((await t.mcp(["set-key", "team"], `${KEY}\n`)).code, 0);
    const added = await t.mcp(["add", "web", "--url", tap.url, "--bearer-key", "team"]);
    assert.equal(added.code, 0, added.stderr);
    // A custom key_header carries the key as is; a bearer_key with no stored key is refused.
    const file = await t.global();
    await Deno.writeTextFile(
      t.settingsPath,
      `${file}\n[mcp_servers.custom]\nurl = "${tap.url}"\nbearer_key = "team"\n` +
        `key_header = "X-Api-Key"\n[mcp_servers.nokey]\nurl = "${tap.url}"\nbearer_key = "absent"\n`,
    );

    const web = await t.mcp(["test", "web"]);
    assert.equal(web.code, 0, web.stderr);
    assert.match(web.stdout, /^web: ready, \d+ tools\n {2}mcp__web__echo \(read\)/);
    assert.ok(tap.requests.length > 0);
    for (const r of tap.requests) assert.equal(r.headers.get("authorization"), `Bearer ${KEY}`);

    tap.requests.length = 0;
    const custom = await t.mcp(["test", "custom"]);
    assert.equal(custom.code, 0, custom.stderr);
    for (const r of tap.requests) {
      assert.equal(r.headers.get("x-api-key"), KEY);
      assert.equal(r.headers.get("authorization"), null);
    }

    tap.requests.length = 0;
    oneLineFailure(
      await t.mcp(["test", "nokey"]),
      /^agent: MCP server nokey failed: no key mcp_keys\.absent in .*; store one with `agent mcp set-key absent`$/,
    );
    assert.equal(tap.requests.length, 0, "nothing sent without the key");

    // The same table in a project file, approved: the key is still not sent (nor anything).
    await Deno.mkdir(`${t.work}/.agent`);
    await Deno.writeTextFile(
      `${t.work}/.agent/settings.toml`,
      `[mcp_servers.proj]\nurl = "${tap.url}"\nbearer_key = "team"\n`,
    );
    assert.equal((await t.mcp(["approve", "proj"])).code, 0);
    const proj = await t.mcp(["test", "proj"]);
    oneLineFailure(
      proj,
      /^agent: MCP server proj failed: bearer_key is ignored for a server from a project settings file/,
    );
    assert.equal(tap.requests.length, 0, "nothing sent to the project server");
    for (const r of [web, custom, proj]) assert.ok(!(r.stdout + r.stderr).includes(KEY));
  },
);
