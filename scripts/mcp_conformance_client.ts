// The agent's MCP client as a client under test for @modelcontextprotocol/conformance: the
// framework starts a scenario server and runs this with its URL as the last argument. It
// connects through McpManager exactly as `agent` does (a Streamable HTTP server in settings),
// then calls every tool once with arguments made from its input schema, as a model would.
//   deno run -A npm:@modelcontextprotocol/conformance@0.1.16 client \
//     --command "deno run -A scripts/mcp_conformance_client.ts" --scenario tools_call
// (the framework needs Node 22 under node; under Deno it runs as above)
//
// Results with conformance 0.1.16 and SDK 1.32.2 (recorded 2026-11-28, issue 35; every one is
// run by tests/e2e/mcp_conformance_test.ts):
//   initialize, tools_call, sse-retry                   PASSED
//   elicitation-sep1034-client-defaults                 PASSED (this script answers a form as a
//                                                       user who accepts it as offered; the
//                                                       manager fills in the defaults)
//   auth/metadata-default, -var1, -var2, -var3          PASSED (login: the SDK's discovery,
//   auth/scope-from-www-authenticate,                   registration, PKCE and token exchange
//     -from-scopes-supported, -omitted-when-undefined,  through core/mcp/oauth_login.ts; the
//     -retry-limit                                      "browser" is a fetch that follows the
//   auth/token-endpoint-auth-basic, -post, -none        redirect to the loopback listener)
//   auth/2025-03-26-oauth-metadata-backcompat,          PASSED
//     -oauth-endpoint-fallback
//   auth/resource-mismatch, auth/offline-access-scope,  PASSED
//     auth/offline-access-not-supported
//   auth/basic-cimd                                     PASSED (oauth_client_metadata_url; the
//                                                       suite's document URL is given below)
//   auth/pre-registration                               PASSED (oauth_client_id + secret)
//   auth/scope-step-up                                  PASSED (a call refused for scope asks
//                                                       for a login; the login asks for that
//                                                       scope; the call is made again)
//   auth/client-credentials-jwt, -basic                 PASSED (oauth_grant = "client_credentials"
//                                                       with a key file or an mcp_keys secret)
//   auth/cross-app-access-complete-flow [extension]     PASSED (oauth_grant = "cross_app_access":
//                                                       the ID token exchanged at the IdP for an
//                                                       ID-JAG, then a jwt-bearer grant;
//                                                       core/mcp/oauth_cross_app.ts)

import { McpManager } from "../core/mcp/manager.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import { envFrom, systemClock } from "../core/ports.ts";
import { loginMcp } from "../core/mcp/oauth_login.ts";

const url = Deno.args.at(-1);
if (!url) throw new Error("usage: mcp_conformance_client.ts URL");
const home = await Deno.makeTempDir({ prefix: "mcp-conformance-" });
const context = JSON.parse(Deno.env.get("MCP_CONFORMANCE_CONTEXT") ?? "{}");
await Deno.writeTextFile(
  `${home}/settings.toml`,
  `[mcp_servers.conf]\nurl = "${url}"\n` + await machineClient(context),
);

/**
 * The auth/client-credentials-* scenarios (a machine client, SEP-1046): the settings a user
 * writes for one, from the suite's context (a secret in mcp_keys, or a private key file).
 */
async function machineClient(context: Record<string, string>): Promise<string> {
  const scenario = Deno.env.get("MCP_CONFORMANCE_SCENARIO") ?? "";
  if (scenario.startsWith("auth/cross-app-access")) return await crossAppClient(context);
  if (!scenario.startsWith("auth/client-credentials")) return "";
  let table = `oauth_grant = "client_credentials"\noauth_client_id = "${context.client_id}"\n`;
  if (context.private_key_pem) {
    await Deno.writeTextFile(`${home}/client.pem`, context.private_key_pem, { mode: 0o600 });
    table += `oauth_private_key_file = "${home}/client.pem"\n` +
      `oauth_signing_alg = "${context.signing_algorithm ?? "ES256"}"\n`;
  }
  const secret = context.client_secret
    ? `[mcp_keys]\n${JSON.stringify(context.client_id)} = ${
      JSON.stringify(context.client_secret)
    }\n`
    : "";
  return table + secret;
}
/**
 * The auth/cross-app-access-* scenarios (enterprise-managed, SEP-990): the user's ID token from
 * the suite's IdP in a file, the IdP's token endpoint, and this client at the MCP server's
 * authorization server with its secret in mcp_keys.
 */
async function crossAppClient(context: Record<string, string>): Promise<string> {
  await Deno.writeTextFile(`${home}/id_token`, context.idp_id_token ?? "", { mode: 0o600 });
  return `oauth_grant = "cross_app_access"\n` +
    `oauth_client_id = ${JSON.stringify(context.client_id)}\n` +
    `oauth_idp_token_endpoint = ${JSON.stringify(context.idp_token_endpoint)}\n` +
    `oauth_idp_client_id = ${JSON.stringify(context.idp_client_id)}\n` +
    `oauth_id_token_file = "${home}/id_token"\n` +
    `[mcp_keys]\n${JSON.stringify(context.client_id)} = ${JSON.stringify(context.client_secret)}\n`;
}

const env = envFrom({ PATH: Deno.env.get("PATH"), HOME: home });
const settings = resolveSettings({ flags: {}, env, cwd: home, home });
const manager = new McpManager(settings, {
  env,
  fetch: globalThis.fetch,
  clock: systemClock,
  workdir: home,
  home,
  clientVersion: "conformance",
  // A user who accepts a form as the picker offers it: every field left at its default
  // (the manager fills defaults into what the user left out, SEP-1034).
  elicit: () => Promise.resolve({ action: "accept", content: {} }),
});

/** A value of the schema's type, the simplest a model would send. */
function sample(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema.enum)) return schema.enum[0];
  switch (schema.type) {
    case "number":
    case "integer":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [];
    case "object": {
      const props = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
      return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sample(v)]));
    }
    default:
      return "x";
  }
}

/**
 * An OAuth server: sign in as `agent mcp login` does, the "browser" being a fetch that follows
 * the authorization server's redirect back to the loopback listener.
 */
async function login(): Promise<void> {
  const server = manager.server("conf")!;
  if (server.transport !== "http") throw new Error("conf is not an HTTP server");
  await loginMcp(home, server, {
    fetch: globalThis.fetch,
    clientVersion: "conformance",
    openBrowser: async (url) => void await (await fetch(url)).body?.cancel(),
    print: (line) => console.log(line),
    // The suite's stand-in for an https client metadata document (SEP-991).
    clientMetadataUrl: "https://conformance-test.local/client-metadata.json",
    ...(context.client_id
      ? { preregistered: { client_id: context.client_id, client_secret: context.client_secret } }
      : {}),
  });
  await manager.reconnect("conf");
}

try {
  await manager.start();
  if (/agent mcp login/.test(manager.statuses()[0]?.error ?? "")) await login();
  const [status] = manager.statuses();
  console.log(`conf: ${status?.state}${status?.error ? ` (${status.error})` : ""}`);
  for (const tool of manager.tools()) {
    const input = sample(tool.input_schema) as Record<string, unknown>;
    const ctx = { workdir: home, signal: new AbortController().signal };
    let out = await tool.execute(input, ctx);
    if (/agent mcp login/.test(out.content)) {
      // Refused for a scope the sign-in did not grant (a step-up): sign in again, call again.
      await login();
      const again = manager.tools().find((t) => t.name === tool.name)!;
      out = await again.execute(input, ctx);
    }
    console.log(`${tool.name} ${JSON.stringify(input)} -> ${out.content.slice(0, 200)}`);
  }
} finally {
  await manager.close();
  await Deno.remove(home, { recursive: true });
}
