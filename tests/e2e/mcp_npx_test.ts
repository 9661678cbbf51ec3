// The README's MCP example, verbatim, through the real npx package and the npm registry:
// `agent mcp add files -- npx -y @modelcontextprotocol/server-filesystem .` installs the package
// once, with the network, into the agent home, and `agent mcp list` shows the pinned version;
// then a run (default sandbox, no network) calls list_directory on it, and nothing is
// downloaded again. `agent mcp update` re-resolves it.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import { peerTest, probes } from "../peers.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";

const PACKAGE = "@modelcontextprotocol/server-filesystem";

function toolMessages(body: unknown): string[] {
  return (body as { messages: { role: string; content?: unknown }[] }).messages
    .filter((m) => m.role === "tool").map((m) => String(m.content));
}

peerTest(
  "README example: agent mcp add files -- npx -y server-filesystem . installs once, then runs offline in the sandbox",
  // Both runs start the server in the default bubblewrap sandbox.
  () => probes.npmRegistry() ?? probes.bubblewrap(),
  async () => {
    // The user's way to the registry (this machine's proxy signs with its own CA) goes to the
    // installer as it would to their own npx.
    const ca = Deno.env.get("NODE_EXTRA_CA_CERTS");
    await using t = await headlessSetup({ env: ca ? { NODE_EXTRA_CA_CERTS: ca } : {} });
    await Deno.writeTextFile(`${t.work}/hello.txt`, "hi\n");
    // Exactly as the README writes it, from the project directory.
    const add = await runAgent(
      ["mcp", "add", "files", "--", "npx", "-y", PACKAGE, "."],
      t.env,
      t.work,
    );
    assert.equal(add.code, 0, add.stderr);
    const installed = /installed (\S+)@(\d\S*) \(npm/.exec(add.stdout);
    assert.ok(installed, add.stdout);
    assert.equal(installed[1], PACKAGE);
    const version = installed[2]!;

    const list = await runAgent(["mcp", "list"], t.env, t.work);
    assert.equal(list.code, 0, list.stderr);
    assert.ok(list.stdout.includes(`package: ${PACKAGE}@${version} (npm, installed `), list.stdout);

    // The run: default sandbox (network off), so the server cannot have downloaded anything.
    t.fake.enqueue(reply().tool("mcp__files__list_directory", { path: t.work }));
    t.fake.enqueue(reply().text("listed"));
    const r = await runAgent(
      ["-p", "--workdir", t.work, "--output-format", "json", "--", "list the files"],
      t.env,
      t.work,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stderr, /installing/);
    const result = JSON.parse(r.stdout) as HeadlessResult;
    assert.equal(result.mcp_servers?.[0]?.state, "ready", r.stderr);
    const [listing] = toolMessages(t.fake.requests[1]!.body);
    assert.match(String(listing), /\[FILE\] hello\.txt/);

    // update re-resolves (the registry's newest version) and installs it again; the install the
    // record pointed at until then stays, for a session still running from it.
    const record = `${t.home}/.agent/mcp/packages/files/installed.json`;
    const before = JSON.parse(await Deno.readTextFile(record)).dirs[0];
    const update = await runAgent(["mcp", "update", "files"], t.env, t.work);
    assert.equal(update.code, 0, update.stderr);
    const after = JSON.parse(await Deno.readTextFile(record)).dirs[0];
    assert.notEqual(after, before);
    assert.ok((await Deno.stat(before)).isDirectory);
    assert.match(update.stdout, new RegExp(`installed ${PACKAGE.replace("/", "\\/")}@\\d`));
  },
);

peerTest(
  "a launcher server written into the settings by hand is installed on its first start, with a message",
  // Both runs start the server in the default bubblewrap sandbox.
  () => probes.npmRegistry() ?? probes.bubblewrap(),
  async () => {
    const ca = Deno.env.get("NODE_EXTRA_CA_CERTS");
    await using t = await headlessSetup({ env: ca ? { NODE_EXTRA_CA_CERTS: ca } : {} });
    await Deno.mkdir(`${t.home}/.agent`);
    await Deno.writeTextFile(
      `${t.home}/.agent/settings.toml`,
      // The install (outside the sandbox) is not bounded by startup_timeout_s (10 s).
      `[mcp_servers.files]\ncommand = "npx"\nargs = ["-y", "${PACKAGE}", "."]\n`,
    );
    t.fake.enqueue(reply().text("first"));
    const first = await runAgent(
      ["-p", "--workdir", t.work, "--output-format", "json", "--", "hi"],
      t.env,
      t.work,
    );
    assert.equal(first.code, 0, first.stderr);
    assert.match(
      first.stderr,
      /agent: MCP server files: installing @modelcontextprotocol\/server-filesystem \(npx\) once/,
    );
    assert.match(
      first.stderr,
      /agent: MCP server files: installed @modelcontextprotocol\/server-filesystem@\d/,
    );
    assert.equal((JSON.parse(first.stdout) as HeadlessResult).mcp_servers?.[0]?.state, "ready");
    // The second run finds it installed: no message, and nothing fetched.
    t.fake.enqueue(reply().text("second"));
    const second = await runAgent(
      ["-p", "--workdir", t.work, "--output-format", "json", "--", "hi"],
      t.env,
      t.work,
    );
    assert.equal(second.code, 0, second.stderr);
    assert.doesNotMatch(second.stderr, /installing/);
  },
);
