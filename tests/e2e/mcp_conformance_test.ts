// The official MCP conformance suite (@modelcontextprotocol/conformance, pinned) against the
// agent's MCP client: scripts/mcp_conformance_client.ts connects through McpManager as `agent`
// does (signing in as `agent mcp login` does when the server wants OAuth) and calls every tool.
// Every client scenario of the suite passes, the auth/cross-app-access-complete-flow extension
// included (core/mcp/oauth_cross_app.ts), each listed in that script's header. The suite is a
// peer: cached by .ci/run, fetched on first use elsewhere.

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

/** Every client scenario of the suite (see scripts/mcp_conformance_client.ts). */
const SCENARIOS = [
  "initialize",
  "tools_call",
  "elicitation-sep1034-client-defaults",
  "sse-retry",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
  "auth/client-credentials-jwt",
  "auth/client-credentials-basic",
  "auth/cross-app-access-complete-flow",
];

for (const scenario of SCENARIOS) {
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
