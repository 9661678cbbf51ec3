import assert from "node:assert/strict";
import { envFrom } from "../ports.ts";
import { SettingsError } from "./errors.ts";
import { resolveEndpoint } from "./keys.ts";
import { activePreset, BUILTIN_PRESETS, findPreset } from "./presets.ts";
import { type Flags, resolveSettings } from "./resolve.ts";
import { type Layout, withLayout, writeFile } from "../../tests/fakes/settings_layout.ts";

function resolveIn(l: Layout, flags: Flags = {}, env: Record<string, string> = {}) {
  return resolveSettings({ flags, env: envFrom(env), cwd: l.cwd, home: l.home });
}

const CUSTOM = `
[[providers]]
id = "local-vllm"
label = "Workstation vLLM"
provider = "chat_completions"
base_url = "http://127.0.0.1:8000/v1"

[[providers]]
id = "lab"
base_url = "https://lab.test"
model = "lab-model"
auth_style = "bearer"
`;

Deno.test("two built-in first-party presets, one of them Bearer on the Messages wire", () => {
  assert.equal(BUILTIN_PRESETS.length, 2);
  for (const p of BUILTIN_PRESETS) {
    assert.equal(p.builtin, true);
    assert.equal(p.provider, "messages");
    assert.ok(p.base_url.startsWith("https://"));
  }
  assert.deepEqual(BUILTIN_PRESETS.map((p) => p.auth_style).sort(), ["bearer", "x-api-key"]);
});

Deno.test("an active built-in preset supplies wire, URL, model and auth style", () =>
  withLayout((l) => {
    const s = resolveIn(l, { preset: "hosted-messages" });
    assert.equal(s.provider, "messages");
    assert.equal(s.base_url, "https://api.anthropic.com");
    assert.equal(s.model, "claude-sonnet-4-5");
    assert.deepEqual(s.sources.base_url, { kind: "preset", detail: "hosted-messages" });
    assert.equal(activePreset(s)?.id, "hosted-messages");
    const ep = resolveEndpoint(s, envFrom({}));
    assert.equal(ep.auth_style, "x-api-key");
    assert.equal(ep.preset, "hosted-messages");
  }));

Deno.test("the gateway preset sends Bearer on the Messages wire", () =>
  withLayout((l) => {
    const s = resolveIn(l, {}, { AGENT_PRESET: "messages-gateway" });
    const ep = resolveEndpoint(s, envFrom({ AGENT_API_KEY: "tok-123" }));
    assert.equal(ep.provider, "messages");
    assert.equal(ep.auth_style, "bearer");
    assert.equal(ep.base_url, BUILTIN_PRESETS[1]?.base_url);
    assert.equal(ep.api_key, "tok-123");
    assert.equal(ep.preset, "messages-gateway");
  }));

Deno.test("explicit base_url/model from an equal or more specific source beat the preset", () =>
  withLayout(async (l) => {
    // Same source as the preset (the global file): explicit wins.
    await writeFile(l.globalFile, `provider_preset = "hosted-messages"\nmodel = "pinned"`);
    let s = resolveIn(l);
    assert.equal(s.model, "pinned");
    assert.equal(s.base_url, "https://api.anthropic.com");
    // More specific (env) base_url beats a global preset.
    s = resolveIn(l, {}, { AGENT_BASE_URL: "http://proxy.test" });
    assert.equal(s.base_url, "http://proxy.test");
    assert.equal(s.sources.base_url?.kind, "env");
    assert.equal(s.provider, "messages", "the preset's wire still applies");
  }));

Deno.test("a preset chosen more specifically beats less specific explicit values", () =>
  withLayout(async (l) => {
    await writeFile(
      l.globalFile,
      `provider = "chat_completions"\nbase_url = "http://127.0.0.1:8000/v1"\nmodel = "local"`,
    );
    const s = resolveIn(l, { preset: "hosted-messages" });
    assert.equal(s.provider, "messages");
    assert.equal(s.base_url, "https://api.anthropic.com");
    assert.equal(s.model, "claude-sonnet-4-5");
    // A flag for provider still wins over a flag-chosen preset (same rank).
    const t = resolveIn(l, { preset: "hosted-messages", provider: "chat_completions" });
    assert.equal(t.provider, "chat_completions");
    assert.equal(resolveEndpoint(t, envFrom({})).auth_style, "bearer");
  }));

Deno.test("custom [[providers]] rows: parsed with defaults and selectable", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `provider_preset = "local-vllm"\n${CUSTOM}`);
    const s = resolveIn(l);
    assert.deepEqual(s.providers.map((p) => p.id), [
      "hosted-messages",
      "messages-gateway",
      "local-vllm",
      "lab",
    ]);
    const local = s.providers[2]!;
    assert.deepEqual({ ...local }, {
      id: "local-vllm",
      label: "Workstation vLLM",
      provider: "chat_completions",
      base_url: "http://127.0.0.1:8000/v1",
      model: "default",
      auth_style: "bearer",
      builtin: false,
    });
    const lab = s.providers[3]!;
    assert.equal(lab.provider, "messages", "a row has a base_url, so rule 4.3.1 picks messages");
    assert.equal(lab.label, "lab");
    assert.equal(lab.auth_style, "bearer");
    assert.equal(s.provider, "chat_completions");
    assert.equal(s.model, "default");
    const ep = resolveEndpoint(s, envFrom({}));
    assert.equal(ep.preset, undefined, "custom rows are not first-party presets");
    assert.equal(ep.auth_style, "bearer");
    const x = resolveIn(l, { preset: "lab" });
    assert.equal(resolveEndpoint(x, envFrom({})).auth_style, "bearer");
    assert.equal(x.model, "lab-model");
  }));

Deno.test("a row reusing a built-in or earlier id is skipped with a warning", () =>
  withLayout(async (l) => {
    await writeFile(
      l.globalFile,
      `[[providers]]\nid = "hosted-messages"\nbase_url = "http://evil.test"\n` +
        `[[providers]]\nid = "a"\nbase_url = "http://a.test"\nflavor = 1\n` +
        `[[providers]]\nid = "a"\nbase_url = "http://b.test"\n`,
    );
    const s = resolveIn(l);
    assert.equal(
      s.providers.find((p) => p.id === "hosted-messages")?.base_url,
      "https://api.anthropic.com",
    );
    assert.equal(s.providers.filter((p) => p.id === "a").length, 1);
    assert.equal(s.providers.find((p) => p.id === "a")?.base_url, "http://a.test");
    assert.equal(s.warnings.filter((w) => /reuses the id/.test(w)).length, 2);
    assert.ok(s.warnings.some((w) => /unknown field flavor/.test(w)));
  }));

Deno.test("invalid rows are errors naming the row field and line", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `[[providers]]\nid = "x"\nbase_url = "not a url"\n`);
    assert.throws(() => resolveIn(l), (e: unknown) => {
      assert.ok(e instanceof SettingsError);
      assert.equal(e.key, "providers[0].base_url");
      assert.equal(e.line, 3);
      return true;
    });
    await writeFile(l.globalFile, `[[providers]]\nbase_url = "http://x.test"\n`);
    assert.throws(() => resolveIn(l), /providers\[0\]\.id/);
    await writeFile(l.globalFile, `[[providers]]\nid = "x"\n`);
    assert.throws(() => resolveIn(l), /providers\[0\]\.base_url/);
    await writeFile(
      l.globalFile,
      `[[providers]]\nid = "x"\nbase_url = "http://x"\nauth_style = "basic"`,
    );
    assert.throws(() => resolveIn(l), /one of bearer, x-api-key/);
    await writeFile(l.globalFile, `providers = "x"`);
    assert.throws(() => resolveIn(l), /array of tables/);
  }));

Deno.test("an unknown preset id is an error listing the known ones", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, CUSTOM);
    assert.throws(() => resolveIn(l, {}, { AGENT_PRESET: "nope" }), (e: unknown) => {
      assert.ok(e instanceof SettingsError);
      assert.equal(e.key, "provider_preset");
      assert.deepEqual(e.source, { kind: "env", detail: "AGENT_PRESET" });
      assert.match(e.message, /Unknown provider preset "nope" \(from env AGENT_PRESET\)/);
      assert.match(e.message, /hosted-messages, messages-gateway, local-vllm, lab/);
      return true;
    });
    assert.throws(() => findPreset(BUILTIN_PRESETS, "x"), /Known presets: hosted-messages/);
  }));
