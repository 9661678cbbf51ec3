// A run with an MCP server never loads ajv: the MCP client is the SDK's Protocol
// (core/mcp/client.ts), not the SDK's Client, whose module imports ajv and ajv-formats (about
// half of the SDK's load time on the way to the first model request; scripts/bench_mcp.ts), and
// structured results are checked with @cfworker/json-schema only once one arrives. The real
// `agent -p` (its launcher's bundle, with the flags of scripts/permissions.ts) plus --inspect,
// is held at its first model request (every server is connected and listed by then) while V8's
// inspector lists the scripts it has parsed. The SDK's own modules are the control: without them in the
// list the check would prove nothing.

import assert from "node:assert/strict";
import { headlessSetup, ROOT } from "./agent_process.ts";
import { bundleModules, scriptsAtFirstRequest } from "./inspector_kit.ts";

const MCP_DIR = `${ROOT}/tests/mcp`;

Deno.test("a run with a stdio MCP server loads the SDK's Protocol but never ajv or the output-schema checker", async () => {
  await using t = await headlessSetup();
  await Deno.mkdir(`${t.home}/.agent`);
  // sandbox = "off": which modules the agent loads does not depend on bubblewrap.
  await Deno.writeTextFile(
    `${t.home}/.agent/settings.toml`,
    `sandbox = "off"\n[mcp_servers.instant]\ncommand = "sh"\n` +
      `args = [${JSON.stringify(`${MCP_DIR}/instant_server.sh`)}]\n`,
  );
  const urls = await scriptsAtFirstRequest(t);
  // The tool reached the model, so the server was connected when the scripts were listed.
  const tools = (t.fake.requests[0]!.body as { tools?: { function: { name: string } }[] }).tools;
  assert.ok(tools?.some((x) => x.function.name === "mcp__instant__ping"), JSON.stringify(tools));
  const modules = await bundleModules(urls);
  assert.ok(modules.includes("core/mcp/client.ts"), "core/mcp/client.ts not listed");
  assert.ok(
    urls.some((u) => u.includes("@modelcontextprotocol/sdk/") && u.endsWith("/shared/protocol.js")),
    "the SDK's protocol.js not listed",
  );
  assert.deepEqual(modules.filter((m) => /\/(ajv|ajv-formats|@cfworker)\//.test(m)), []);
  assert.deepEqual(modules.filter((m) => m === "core/mcp/output_schema.ts"), []);
});
