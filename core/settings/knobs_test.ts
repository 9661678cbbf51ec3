import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { envFrom } from "../ports.ts";
import { GLOBAL_ONLY_KEYS, KNOBS, SETTINGS_FLAGS, settingsParseArgsOptions } from "./knobs.ts";
import { resolveSettings } from "./resolve.ts";
import { makeLayout } from "../../tests/fakes/settings_layout.ts";

Deno.test("the knob table matches spec 2.2's keys and env vars", () => {
  const table = Object.fromEntries(KNOBS.map((k) => [k.key, k.env ?? null]));
  assert.deepEqual(table, {
    provider: "AGENT_PROVIDER",
    model: "AGENT_MODEL",
    base_url: "AGENT_BASE_URL",
    provider_preset: "AGENT_PRESET",
    provider_keys: null,
    api_key: null,
    model_favorites: null,
    context_window: "AGENT_CONTEXT_WINDOW",
    temperature: "AGENT_TEMPERATURE",
    top_p: "AGENT_TOP_P",
    top_k: "AGENT_TOP_K",
    enable_thinking: "AGENT_ENABLE_THINKING",
    max_tokens: "AGENT_MAX_TOKENS",
    "thinking.type": null,
    request_priority: "AGENT_REQUEST_PRIORITY",
    strict_tools: "AGENT_STRICT_TOOLS",
    pricing_enabled: "AGENT_PRICING",
    token_budget: "AGENT_TOKEN_BUDGET",
    "compaction.threshold": "AGENT_COMPACT_THRESHOLD",
    memory_enabled: null,
    memory_reflect: "AGENT_MEMORY_REFLECT",
    memory_dir: "AGENT_MEMORY_DIR",
    // Not in spec 2.2 (issue 14); AGENT_SANDBOX is taken: the outpost sets it to "container".
    sandbox: "AGENT_SANDBOX_MODE",
    sandbox_network: "AGENT_SANDBOX_NETWORK",
    sandbox_env: null,
    providers: null,
    mcp_servers: null,
    mcp_keys: null,
    mcp_approvals: null,
    project_trust: null,
  });
  assert.deepEqual([...GLOBAL_ONLY_KEYS].sort(), [
    "api_key",
    "mcp_approvals",
    "mcp_keys",
    "memory_dir",
    "model_favorites",
    "project_trust",
    "provider_keys",
    "providers",
    "sandbox",
    "sandbox_env",
    "sandbox_network",
  ]);
});

Deno.test("flags: unique names, boolean knobs get --no- forms, every flag has help", () => {
  const names = SETTINGS_FLAGS.map((f) => f.name);
  assert.equal(new Set(names).size, names.length);
  for (
    const n of ["provider", "model", "base-url", "preset", "token-budget", "compact-threshold"]
  ) {
    assert.ok(names.includes(n), n);
  }
  for (const k of KNOBS.filter((k) => k.type === "boolean" && k.flag)) {
    assert.ok(names.includes(`no-${k.flag}`), k.key);
  }
  for (const f of SETTINGS_FLAGS) assert.ok(f.help.length > 0, f.name);
  assert.equal(
    SETTINGS_FLAGS.find((f) => f.name === "thinking")?.valueName,
    "<enabled|disabled|adaptive>",
  );
});

Deno.test("node:util parseArgs output feeds resolveSettings directly", async () => {
  const layout = await makeLayout();
  try {
    const { values } = parseArgs({
      args: [
        "--base-url=http://127.0.0.1:8000/v1",
        "--temperature",
        "0.25",
        "--no-memory-reflect",
        "--strict-tools",
        "--thinking",
        "disabled",
        "--token-budget",
        "5000",
      ],
      options: settingsParseArgsOptions(),
      strict: true,
    });
    const s = resolveSettings({
      flags: values as Record<string, string | boolean | undefined>,
      env: envFrom({}),
      cwd: layout.cwd,
      home: layout.home,
    });
    assert.equal(s.base_url, "http://127.0.0.1:8000/v1");
    assert.equal(s.provider, "messages");
    assert.equal(s.model, "default");
    assert.equal(s.temperature, 0.25);
    assert.equal(s.memory_reflect, false);
    assert.equal(s.strict_tools, true);
    assert.equal(s.thinking_type, "disabled");
    assert.equal(s.token_budget, 5000);
    assert.deepEqual(s.sources.memory_reflect, { kind: "flag", detail: "--no-memory-reflect" });
  } finally {
    await layout.cleanup();
  }
});
