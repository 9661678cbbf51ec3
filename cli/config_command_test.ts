import assert from "node:assert/strict";
import { join } from "../core/path.ts";
import { envFrom } from "../core/ports.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import { maskKey } from "../core/settings/mask.ts";
import { configRows, renderConfig, renderConfigJson } from "./config_command.ts";

async function settingsWith(globalToml: string, env: Record<string, string> = {}) {
  const root = await Deno.makeTempDir({ prefix: "agent_config_cmd_" });
  const home = join(root, ".agent");
  await Deno.mkdir(home);
  await Deno.writeTextFile(join(home, "settings.toml"), globalToml);
  try {
    return resolveSettings({ flags: {}, env: envFrom(env), cwd: root, home });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const SECRET_A = "sk-ant-api03-SECRETSECRETabcd";
const SECRET_B = "plainkeyvalue9876";
const SECRET_C = "sk-sharedSECRETwxyz";

const GLOBAL = `api_key = "${SECRET_C}"
model_favorites = ["x"]
[provider_keys]
hosted-messages = "${SECRET_A}"
lab = "${SECRET_B}"
[[providers]]
id = "lab"
base_url = "http://lab.test"
`;

Deno.test("maskKey keeps a type prefix and the last four characters only", () => {
  assert.equal(maskKey("sk-abcdefghijkl1234"), "sk-…1234");
  assert.equal(maskKey(SECRET_B), "…9876");
  assert.equal(maskKey("short"), "****");
  assert.equal(maskKey("elevenchars"), "****");
});

Deno.test("renderConfig: one line per key with value and source, keys masked", async () => {
  const s = await settingsWith(GLOBAL, { AGENT_TEMPERATURE: "0.2" });
  const text = renderConfig(s);
  for (const secret of [SECRET_A, SECRET_B, SECRET_C]) {
    assert.ok(!text.includes(secret), "a secret leaked into agent config output");
    assert.ok(!text.includes(secret.slice(0, -4)), "too much of a secret is shown");
  }
  assert.match(text, /^temperature = 0\.2 +\(env AGENT_TEMPERATURE\)$/m);
  assert.match(text, /^provider_keys\.hosted-messages = sk-…abcd +\(global .*settings\.toml\)$/m);
  assert.match(text, /^provider_keys\.lab = …9876 /m);
  assert.match(text, /^api_key = sk-…wxyz /m);
  assert.match(text, /^request_priority = \(unset\) +\(default: absent \(not 0\)\)$/m);
  assert.match(text, /^provider = "chat_completions" +\(default: no base_url\)$/m);
  assert.match(
    text,
    /^providers\.lab = messages http:\/\/lab\.test model=default auth=x-api-key /m,
  );
  assert.match(text, /^# project settings: \(none found\)$/m);
  assert.doesNotMatch(text, /warnings:/);
});

Deno.test("renderConfig lists warnings", async () => {
  const s = await settingsWith(`modle = "x"`);
  assert.match(renderConfig(s), /warnings:\n {2}- .*unknown setting modle .*did you mean model\?/);
});

Deno.test("--json rendering: same rows, masked, machine-readable", async () => {
  const s = await settingsWith(GLOBAL);
  const json = renderConfig(s, { json: true });
  assert.equal(json, renderConfigJson(s));
  for (const secret of [SECRET_A, SECRET_B, SECRET_C]) assert.ok(!json.includes(secret));
  const parsed = JSON.parse(json);
  assert.deepEqual(parsed.settings["provider_keys.hosted-messages"].value, "sk-…abcd");
  assert.deepEqual(parsed.settings.temperature, {
    value: null,
    source: { kind: "default", detail: "unset (server default)" },
  });
  assert.deepEqual(parsed.settings.model_favorites.value, ["x"]);
  assert.equal(parsed.settings.model_favorites.source.kind, "global");
  assert.deepEqual(parsed.warnings, []);
  assert.equal(Object.keys(parsed.settings).length, configRows(s).length);
});

Deno.test("agent config warns when the sandbox is off and says where that came from", async () => {
  const off = renderConfig(await settingsWith(`sandbox = "off"\n`));
  assert.match(
    off,
    /^# warning: sandbox is off \(.*settings\.toml.*\): the model's shell commands run unsandboxed/m,
  );
  assert.match(off, /^sandbox = "off" /m);
  const fromEnv = renderConfig(await settingsWith("", { AGENT_SANDBOX_MODE: "off" }));
  assert.match(fromEnv, /# warning: sandbox is off \(env AGENT_SANDBOX_MODE\)/);
  const on = renderConfig(await settingsWith(""));
  assert.ok(!on.includes("sandbox is off"));
  assert.match(on, /^sandbox = "auto" /m);
  assert.match(on, /^sandbox_network = "off" /m);
});

Deno.test("agent config lists MCP servers without env or header values, and masks mcp_keys", async () => {
  const settings = await settingsWith(`[mcp_servers.fs]
command = "node"
args = ["server.js"]
env = { TOKEN = "envSECRETvalue" }
[mcp_servers.web]
url = "https://mcp.example.com/mcp"
http_headers = { X-Team = "hdrSECRETvalue" }
bearer_key = "web"
[mcp_keys]
web = "${SECRET_A}"
`);
  const text = renderConfig(settings);
  assert.match(text, /mcp_servers\.fs = stdio node server\.js \(env TOKEN\)/);
  assert.match(text, /mcp_servers\.web = http https:\/\/mcp\.example\.com\/mcp/);
  assert.match(text, new RegExp(`mcp_keys\\.web = ${maskKey(SECRET_A).replace(".", "\\.")}`));
  for (const secret of [SECRET_A, "envSECRETvalue", "hdrSECRETvalue"]) {
    assert.ok(!text.includes(secret), secret);
    assert.ok(!renderConfigJson(settings).includes(secret), secret);
  }
});
