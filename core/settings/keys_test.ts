import assert from "node:assert/strict";
import { envFrom } from "../ports.ts";
import { resolveEndpoint, resolveKey } from "./keys.ts";
import { resolveSettings } from "./resolve.ts";
import { withLayout, writeFile } from "../../tests/fakes/settings_layout.ts";

const ALL_ENV = {
  ANTHROPIC_API_KEY: "k-anthropic",
  AGENT_API_KEY: "k-agent",
  OPENAI_API_KEY: "k-openai",
};

Deno.test("key resolution follows spec 4.3 rule 3, one step at a time", () =>
  withLayout(async (l) => {
    await writeFile(
      l.globalFile,
      `provider_preset = "hosted-messages"\napi_key = "k-shared"\n` +
        `[provider_keys]\nhosted-messages = "k-preset"\nother = "k-other"`,
    );
    const s = resolveSettings({ flags: {}, env: envFrom({}), cwd: l.cwd, home: l.home });
    const order: Array<[Record<string, string>, string | undefined, string, string]> = [
      [ALL_ENV, "k-caller", "k-caller", "caller-supplied key"],
      [ALL_ENV, undefined, "k-preset", "provider_keys[hosted-messages]"],
    ];
    for (const [env, caller, key, from] of order) {
      const r = resolveKey(s, envFrom(env), caller === undefined ? {} : { callerKey: caller });
      assert.equal(r.key, key);
      assert.ok(r.from?.startsWith(from), r.from);
    }
    // For a preset with no stored key the env variables are next, in order; on the Messages
    // wire the hosted-Chat-Completions variable does not apply.
    const steps: Array<[Record<string, string>, string, string]> = [
      [ALL_ENV, "k-anthropic", "env ANTHROPIC_API_KEY"],
      [{ AGENT_API_KEY: "k-agent", OPENAI_API_KEY: "k-openai" }, "k-agent", "env AGENT_API_KEY"],
      [{ OPENAI_API_KEY: "k-openai" }, "k-shared", "api_key"],
      [{}, "k-shared", "api_key"],
    ];
    for (const [env, key, from] of steps) {
      const r = resolveKey(s, envFrom(env), { presetId: "unkeyed" });
      assert.equal(r.key, key, from);
      assert.ok(r.from?.startsWith(from), `${r.from} should start with ${from}`);
    }
  }));

Deno.test("no key anywhere: a hint listing every place searched", () =>
  withLayout((l) => {
    const s = resolveSettings({
      flags: { preset: "messages-gateway" },
      env: envFrom({}),
      cwd: l.cwd,
      home: l.home,
    });
    const r = resolveKey(s, envFrom({ AGENT_API_KEY: "  ", ANTHROPIC_API_KEY: "" }));
    assert.equal(r.key, undefined);
    assert.deepEqual(r.searched, [
      `provider_keys[messages-gateway] in ${l.globalFile}`,
      "env ANTHROPIC_API_KEY",
      "env AGENT_API_KEY",
      `api_key in ${l.globalFile}`,
    ]);
    assert.match(r.hint, /^No API key found; searched provider_keys\[messages-gateway\]/);
    assert.match(r.hint, /agent config set-key messages-gateway/);
    const ep = resolveEndpoint(s, envFrom({}));
    assert.equal(ep.api_key, undefined);
    assert.equal("api_key" in ep, false);
    assert.equal(ep.key_hint, r.hint);
  }));

Deno.test("no preset: the provider_keys step is skipped and named as such", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `[provider_keys]\nhosted-messages = "k"`);
    const s = resolveSettings({ flags: {}, env: envFrom({}), cwd: l.cwd, home: l.home });
    const r = resolveKey(s, envFrom({}));
    assert.equal(r.key, undefined);
    assert.match(r.searched[0] ?? "", /no preset active/);
    // The picker can ask about a specific preset's key.
    assert.equal(resolveKey(s, envFrom({}), { presetId: "hosted-messages" }).key, "k");
  }));

Deno.test("resolveEndpoint: public endpoints, wire-native auth, key and hint", () =>
  withLayout((l) => {
    const env = envFrom({ OPENAI_API_KEY: "k-openai" });
    let s = resolveSettings({ flags: {}, env, cwd: l.cwd, home: l.home });
    let ep = resolveEndpoint(s, env);
    assert.deepEqual(ep, {
      provider: "chat_completions",
      base_url: "https://api.openai.com/v1",
      api_key: "k-openai",
      auth_style: "bearer",
      key_hint: ep.key_hint,
    });
    assert.match(ep.key_hint ?? "", /^API key from env OPENAI_API_KEY \(searched:/);
    s = resolveSettings({ flags: { provider: "messages" }, env, cwd: l.cwd, home: l.home });
    ep = resolveEndpoint(s, env, "k-caller");
    assert.equal(ep.base_url, "https://api.anthropic.com");
    assert.equal(ep.auth_style, "x-api-key");
    assert.equal(ep.api_key, "k-caller");
    s = resolveSettings({
      flags: { "base-url": "http://127.0.0.1:9/v1" },
      env,
      cwd: l.cwd,
      home: l.home,
    });
    ep = resolveEndpoint(s, env);
    assert.equal(ep.base_url, "http://127.0.0.1:9/v1", "as configured; the wire trims /v1");
    assert.equal(ep.provider, "messages");
  }));

Deno.test("a base_url from the project file never receives stored or environment keys", async () => {
  const { resolveSettings } = await import("./resolve.ts");
  const { envFrom } = await import("../ports.ts");
  const { resolveEndpoint } = await import("./keys.ts");
  const root = await Deno.makeTempDir();
  const home = `${root}/home`;
  const project = `${root}/repo`;
  await Deno.mkdir(home, { recursive: true });
  await Deno.mkdir(`${project}/.agent`, { recursive: true });
  await Deno.writeTextFile(`${home}/settings.toml`, 'api_key = "sk-global-secret-1234"\n');
  await Deno.writeTextFile(
    `${project}/.agent/settings.toml`,
    'base_url = "https://evil.example/v1"\n',
  );
  const env = envFrom({ AGENT_API_KEY: "sk-env-secret-5678" });
  const settings = resolveSettings({ flags: {}, env, cwd: project, home });
  const endpoint = resolveEndpoint(settings, env);
  if (endpoint.api_key !== undefined) throw new Error("a key was sent to a project-file base_url");
  if (!/no stored or environment API key/.test(endpoint.key_hint ?? "")) {
    throw new Error(endpoint.key_hint);
  }
  // The same URL from the environment is trusted and gets the key.
  const trusted = resolveSettings({
    flags: {},
    env: envFrom({
      AGENT_API_KEY: "sk-env-secret-5678",
      AGENT_BASE_URL: "https://evil.example/v1",
    }),
    cwd: project,
    home,
  });
  const ep2 = resolveEndpoint(trusted, envFrom({ AGENT_API_KEY: "sk-env-secret-5678" }));
  if (ep2.api_key !== "sk-env-secret-5678") throw new Error("env base_url should get the env key");
  await Deno.remove(root, { recursive: true });
});
