// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the
// agent's MCP client: scripts/mcp_conformance_client.ts connects through McpManager as `agent`
// does and calls every tool. The client scenarios that apply to what the agent implements must
// pass; the ones it does not implement (elicitation, OAuth) are listed in that script's header
// with why. The suite is a peer: cached by .ci/run, fetched on first use elsewhere.

import assert from "node:assert/strict";
import { peerTest } from "../peers.ts";
import { ROOT } from "./agent_process.ts";

const CONFORMANCE = "npm:@modelcontextprotocol/conformance@0.1.16";

// --no-lock: the suite's own dependencies stay out of the project's lockfile.
const suiteArgs = ["run", "-A", "--no-lock", CONFORMANCE];

let probed: string | null | undefined;
function conformanceProbe(): string | null {
  if (probed !== undefined) return probed;
  const out = new Deno.Command(Deno.execPath(), {
    args: [...suiteArgs, "--version"],
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
  return probed = out.success
    ? null
    : `${CONFORMANCE} could not be fetched: ${new TextDecoder().decode(out.stderr).trim()}`;
}

for (
  const scenario of ["initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"]
) {
  peerTest(`MCP conformance client scenario ${scenario} passes`, conformanceProbe, async () => {
    const client =
      `${Deno.execPath()} run -A --cached-only ${ROOT}/scripts/mcp_conformance_client.ts`;
    const out = await new Deno.Command(Deno.execPath(), {
      args: [...suiteArgs, "client", "--command", client, "--scenario", scenario],
      cwd: ROOT,
      env: { NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, text);
    assert.match(text, /Passed: (\d+)\/\1, 0 failed/, text);
    assert.match(text, /OVERALL: PASSED/, text);
  });
}
