// Table-driven proof of spec 2.2's precedence for every knob: flag beats env beats project
// beats global beats default. Each case peels the most specific source off one at a time.

import assert from "node:assert/strict";
import { join } from "../path.ts";
import { envFrom } from "../ports.ts";
import { KNOBS, KNOBS_BY_KEY } from "./knobs.ts";
import { type Flags, resolveSettings } from "./resolve.ts";
import { makeLayout, removeIfExists, writeFile } from "../../tests/fakes/settings_layout.ts";
import type { SourceKind } from "./types.ts";

interface Level {
  flags?: Flags;
  env?: string;
  toml?: string;
  value: unknown;
}

interface Case {
  key: string;
  flag?: Level;
  env?: Level;
  project?: Level;
  global?: Level;
  default: unknown;
}

const ROWS = `
[[providers]]
id = "p3"
base_url = "http://p3.test/v1"
[[providers]]
id = "p4"
base_url = "http://p4.test/v1"
`;

const CASES: Case[] = [
  {
    key: "provider",
    flag: { flags: { provider: "messages" }, value: "messages" },
    env: { env: "chat_completions", value: "chat_completions" },
    project: { toml: `provider = "messages"`, value: "messages" },
    global: { toml: `provider = "chat_completions"`, value: "chat_completions" },
    default: "chat_completions",
  },
  {
    key: "model",
    flag: { flags: { model: "m-flag" }, value: "m-flag" },
    env: { env: "m-env", value: "m-env" },
    project: { toml: `model = "m-proj"`, value: "m-proj" },
    global: { toml: `model = "m-glob"`, value: "m-glob" },
    default: "gpt-4.1",
  },
  {
    key: "base_url",
    flag: { flags: { "base-url": "http://flag.test/v1" }, value: "http://flag.test/v1" },
    env: { env: "http://env.test/v1", value: "http://env.test/v1" },
    project: { toml: `base_url = "http://proj.test/v1"`, value: "http://proj.test/v1" },
    global: { toml: `base_url = "https://glob.test"`, value: "https://glob.test" },
    default: undefined,
  },
  {
    key: "provider_preset",
    flag: { flags: { preset: "hosted-messages" }, value: "hosted-messages" },
    env: { env: "messages-gateway", value: "messages-gateway" },
    project: { toml: `provider_preset = "p3"`, value: "p3" },
    global: { toml: `provider_preset = "p4"\n${ROWS}`, value: "p4" },
    default: undefined,
  },
  {
    key: "provider_keys",
    global: { toml: `[provider_keys]\nx = "kx"`, value: { x: "kx" } },
    default: {},
  },
  {
    key: "mcp_keys",
    global: { toml: `[mcp_keys]\nweb = "kw"`, value: { web: "kw" } },
    default: {},
  },
  { key: "api_key", global: { toml: `api_key = "k-glob"`, value: "k-glob" }, default: undefined },
  {
    key: "model_favorites",
    global: { toml: `model_favorites = ["a", "b"]`, value: ["a", "b"] },
    default: [],
  },
  {
    key: "context_window",
    flag: { flags: { "context-window": "1001" }, value: 1001 },
    env: { env: "1002", value: 1002 },
    project: { toml: `context_window = 1003`, value: 1003 },
    global: { toml: `context_window = 1004`, value: 1004 },
    default: undefined,
  },
  {
    key: "temperature",
    flag: { flags: { temperature: "0.1" }, value: 0.1 },
    env: { env: "0.2", value: 0.2 },
    project: { toml: `temperature = 0.3`, value: 0.3 },
    global: { toml: `temperature = 1`, value: 1 },
    default: undefined,
  },
  {
    key: "top_p",
    flag: { flags: { "top-p": "0.5" }, value: 0.5 },
    env: { env: "0.6", value: 0.6 },
    project: { toml: `top_p = 0.7`, value: 0.7 },
    global: { toml: `top_p = 1.0`, value: 1 },
    default: undefined,
  },
  {
    key: "top_k",
    flag: { flags: { "top-k": "10" }, value: 10 },
    env: { env: "20", value: 20 },
    project: { toml: `top_k = 30`, value: 30 },
    global: { toml: `top_k = -1`, value: -1 },
    default: undefined,
  },
  {
    key: "enable_thinking",
    flag: { flags: { "no-enable-thinking": true }, value: false },
    env: { env: "yes", value: true },
    project: { toml: `enable_thinking = false`, value: false },
    global: { toml: `enable_thinking = true`, value: true },
    default: undefined,
  },
  {
    key: "max_tokens",
    flag: { flags: { "max-tokens": "8000" }, value: 8000 },
    env: { env: "16000", value: 16000 },
    project: { toml: `max_tokens = 24000`, value: 24000 },
    global: { toml: `max_tokens = 32000`, value: 32000 },
    default: undefined,
  },
  {
    key: "thinking.type",
    flag: { flags: { thinking: "enabled" }, value: "enabled" },
    project: { toml: `[thinking]\ntype = "disabled"`, value: "disabled" },
    global: { toml: `thinking.type = "enabled"`, value: "enabled" },
    default: "adaptive",
  },
  {
    key: "request_priority",
    flag: { flags: { "request-priority": "-5" }, value: -5 },
    env: { env: "0", value: 0 },
    project: { toml: `request_priority = 3`, value: 3 },
    global: { toml: `request_priority = 4`, value: 4 },
    default: undefined,
  },
  {
    key: "strict_tools",
    flag: { flags: { "strict-tools": true }, value: true },
    env: { env: "0", value: false },
    project: { toml: `strict_tools = true`, value: true },
    global: { toml: `strict_tools = false`, value: false },
    default: false,
  },
  {
    key: "pricing_enabled",
    flag: { flags: { "no-pricing": true }, value: false },
    env: { env: "1", value: true },
    project: { toml: `pricing_enabled = false`, value: false },
    global: { toml: `pricing_enabled = true`, value: true },
    default: false,
  },
  {
    key: "token_budget",
    flag: { flags: { "token-budget": "100" }, value: 100 },
    env: { env: "200", value: 200 },
    project: { toml: `token_budget = 300`, value: 300 },
    global: { toml: `token_budget = 400`, value: 400 },
    default: undefined,
  },
  {
    key: "compaction.threshold",
    flag: { flags: { "compact-threshold": "0.5" }, value: 0.5 },
    env: { env: "0.85", value: 0.85 },
    project: { toml: `[compaction]\nthreshold = 0.7`, value: 0.7 },
    global: { toml: `compaction = { threshold = 0.8 }`, value: 0.8 },
    default: undefined,
  },
  {
    key: "memory_enabled",
    flag: { flags: { "no-memory": true }, value: false },
    project: { toml: `memory_enabled = true`, value: true },
    global: { toml: `memory_enabled = false`, value: false },
    default: true,
  },
  {
    key: "memory_reflect",
    flag: { flags: { "memory-reflect": true }, value: true },
    env: { env: "0", value: false },
    project: { toml: `memory_reflect = true`, value: true },
    global: { toml: `memory_reflect = false`, value: false },
    default: true,
  },
  {
    key: "memory_dir",
    flag: { flags: { "memory-dir": "/m/flag" }, value: "/m/flag" },
    env: { env: "/m/env", value: "/m/env" },
    global: { toml: `memory_dir = "/m/glob"`, value: "/m/glob" },
    default: "<home>/memory",
  },
  {
    key: "sandbox",
    flag: { flags: { sandbox: "bubblewrap" }, value: "bubblewrap" },
    env: { env: "off", value: "off" },
    global: { toml: `sandbox = "auto"`, value: "auto" },
    default: "auto",
  },
  {
    key: "sandbox_network",
    flag: { flags: { "sandbox-network": "on" }, value: "on" },
    env: { env: "off", value: "off" },
    global: { toml: `sandbox_network = "on"`, value: "on" },
    default: "off",
  },
  {
    key: "sandbox_env",
    global: { toml: `sandbox_env = ["GITHUB_TOKEN"]`, value: ["GITHUB_TOKEN"] },
    default: [],
  },
];

const LEVELS = ["flag", "env", "project", "global"] as const;

Deno.test("precedence table covers every knob that can be set", () => {
  const covered = new Set(CASES.map((c) => c.key));
  for (const knob of KNOBS) {
    if (knob.key === "providers") continue; // rows: tested in presets_test.ts
    // Tables: merge and trust rules are tested in mcp_servers_test.ts and project_trust_test.ts.
    const tables = ["mcp_servers", "mcp_approvals", "project_trust"];
    if (tables.includes(knob.key)) continue;
    assert.ok(covered.has(knob.key), `no precedence case for ${knob.key}`);
    const c = CASES.find((x) => x.key === knob.key)!;
    assert.equal(c.flag !== undefined, knob.flag !== undefined, `${knob.key}: flag level`);
    assert.equal(c.env !== undefined, knob.env !== undefined, `${knob.key}: env level`);
    assert.equal(c.project === undefined, knob.globalOnly, `${knob.key}: project level`);
  }
});

for (const c of CASES) {
  Deno.test(`precedence: ${c.key} — flag > env > project > global > default`, async () => {
    const layout = await makeLayout();
    try {
      const knob = KNOBS_BY_KEY.get(c.key)!;
      const levels = LEVELS.filter((l) => c[l] !== undefined);
      for (let i = 0; i <= levels.length; i++) {
        const present = new Set(levels.slice(i));
        const flags = present.has("flag") ? c.flag!.flags! : {};
        const env = envFrom(present.has("env") ? { [knob.env!]: c.env!.env! } : {});
        await removeIfExists(layout.projectFile);
        await removeIfExists(layout.globalFile);
        if (present.has("project")) await writeFile(layout.projectFile, c.project!.toml!);
        // The preset case needs the custom rows whenever a lower level is present.
        const globalText = present.has("global")
          ? c.global!.toml!
          : c.key === "provider_preset" && present.size > 0
          ? ROWS
          : undefined;
        if (globalText !== undefined) await writeFile(layout.globalFile, globalText);

        const s = resolveSettings({ flags, env, cwd: layout.cwd, home: layout.home });
        const winner = levels[i];
        const expected = winner
          ? c[winner]!.value
          : c.default === "<home>/memory"
          ? join(layout.home, "memory")
          : c.default;
        const got = (s as unknown as Record<string, unknown>)[knob.field];
        const label = `${c.key} with ${[...present].join(",") || "nothing"} set`;
        assert.deepEqual(got, expected, label);
        const kind: SourceKind = winner ?? "default";
        if (expected !== undefined) assert.equal(s.sources[c.key]?.kind, kind, label);
        assert.deepEqual(s.warnings, [], label);
      }
    } finally {
      await layout.cleanup();
    }
  });
}
