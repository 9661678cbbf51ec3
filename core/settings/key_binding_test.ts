// Stored keys are bound to the endpoint they were stored for (issue 37 §1), and a wire's
// missing-key hint lists only the places that apply to it (issue 33).

import assert from "node:assert/strict";
import { envFrom } from "../ports.ts";
import { resolveEndpoint, resolveKey } from "./keys.ts";
import { resolveSettings } from "./resolve.ts";
import { type Layout, withLayout, writeFile } from "../../tests/fakes/settings_layout.ts";

function endpoint(l: Layout, env: Record<string, string>) {
  const e = envFrom(env);
  return resolveEndpoint(resolveSettings({ flags: {}, env: e, cwd: l.cwd, home: l.home }), e);
}

Deno.test("provider_keys[<preset>] goes only to the preset's origin: another AGENT_BASE_URL gets no key", () =>
  withLayout(async (l) => {
    await writeFile(
      l.globalFile,
      `provider_preset = "hosted-messages"\n[provider_keys]\nhosted-messages = "k-stored"\n`,
    );
    // Same origin, another path: the key goes.
    for (
      const url of [undefined, "https://api.anthropic.com/v1", "https://API.anthropic.com:443"]
    ) {
      const ep = endpoint(l, url === undefined ? {} : { AGENT_BASE_URL: url });
      assert.equal(ep.api_key, "k-stored", String(url));
    }
    // Another origin: no key, and the hint says which key was held back and why.
    for (
      const url of [
        "http://127.0.0.1:9/v1",
        "https://api.anthropic.com.evil.test",
        "http://api.anthropic.com",
      ]
    ) {
      const ep = endpoint(l, { AGENT_BASE_URL: url });
      assert.equal(ep.api_key, undefined, url);
      assert.ok(!("api_key" in ep));
      assert.match(
        ep.key_hint ?? "",
        /provider_keys\[hosted-messages\] in .* \(stored for https:\/\/api\.anthropic\.com; not sent to /,
      );
      assert.match(
        ep.key_hint ?? "",
        /a stored key is sent only to the endpoint it was stored for/,
      );
      assert.doesNotMatch(ep.key_hint ?? "", /k-stored/);
    }
  }));

Deno.test("a custom [[providers]] row's key goes to its own origin, port included", () =>
  withLayout(async (l) => {
    await writeFile(
      l.globalFile,
      `[[providers]]\nid = "gpu"\nprovider = "chat_completions"\nbase_url = "http://127.0.0.1:8000/v1"\n` +
        `[provider_keys]\ngpu = "k-gpu"\n`,
    );
    assert.equal(endpoint(l, { AGENT_PRESET: "gpu" }).api_key, "k-gpu");
    assert.equal(
      endpoint(l, { AGENT_PRESET: "gpu", AGENT_BASE_URL: "http://127.0.0.1:8000/v1" }).api_key,
      "k-gpu",
    );
    assert.equal(
      endpoint(l, { AGENT_PRESET: "gpu", AGENT_BASE_URL: "http://127.0.0.1:8001/v1" }).api_key,
      undefined,
    );
    // The picker's badge asks about the preset's own endpoint: keyed.
    const s = resolveSettings({ flags: {}, env: envFrom({}), cwd: l.cwd, home: l.home });
    assert.equal(resolveKey(s, envFrom({}), { presetId: "gpu" }).key, "k-gpu");
  }));

Deno.test("the top-level api_key is bound to the endpoint the global file names", () =>
  withLayout(async (l) => {
    // No base_url in the file: the public endpoints.
    await writeFile(l.globalFile, `api_key = "k-shared"\n`);
    assert.equal(endpoint(l, {}).api_key, "k-shared");
    assert.equal(endpoint(l, { AGENT_PROVIDER: "messages" }).api_key, "k-shared");
    assert.equal(endpoint(l, { AGENT_BASE_URL: "http://127.0.0.1:9/v1" }).api_key, undefined);
    // The file's own base_url: that origin only.
    await writeFile(l.globalFile, `api_key = "k-shared"\nbase_url = "http://10.0.0.5:8000/v1"\n`);
    assert.equal(endpoint(l, {}).api_key, "k-shared");
    assert.equal(endpoint(l, { AGENT_BASE_URL: "http://10.0.0.5:8000/v1/" }).api_key, "k-shared");
    const ep = endpoint(l, { AGENT_BASE_URL: "https://api.openai.com/v1" });
    assert.equal(ep.api_key, undefined);
    assert.match(
      ep.key_hint ?? "",
      /api_key in .* \(stored for http:\/\/10\.0\.0\.5:8000; not sent/,
    );
  }));

Deno.test("environment keys are the caller's own and are not bound; a project-file base_url still gets none", () =>
  withLayout(async (l) => {
    await writeFile(l.globalFile, `api_key = "k-shared"\n`);
    const ep = endpoint(l, { AGENT_API_KEY: "k-env", AGENT_BASE_URL: "http://127.0.0.1:9/v1" });
    assert.equal(ep.api_key, "k-env");
    await writeFile(l.projectFile, `base_url = "http://127.0.0.1:9/v1"\n`);
    assert.equal(endpoint(l, { AGENT_API_KEY: "k-env" }).api_key, undefined);
  }));

Deno.test("Chat Completions default: the missing-key hint lists no ANTHROPIC_API_KEY, and that key is not sent", () =>
  withLayout((l) => {
    const env = envFrom({ ANTHROPIC_API_KEY: "k-anthropic" });
    const s = resolveSettings({ flags: {}, env, cwd: l.cwd, home: l.home });
    assert.equal(s.provider, "chat_completions");
    const r = resolveKey(s, env);
    assert.equal(r.key, undefined);
    assert.deepEqual(r.searched, [
      "provider_keys[<preset>] (no preset active)",
      "env AGENT_API_KEY",
      "env OPENAI_API_KEY",
      `api_key in ${l.globalFile}`,
    ]);
    assert.doesNotMatch(r.hint, /ANTHROPIC/);
    // The Messages wire lists its own variable and not the Chat Completions one.
    const m = resolveSettings({ flags: { provider: "messages" }, env, cwd: l.cwd, home: l.home });
    const rm = resolveKey(m, envFrom({ OPENAI_API_KEY: "k-openai" }));
    assert.equal(rm.key, undefined);
    assert.doesNotMatch(rm.hint, /OPENAI/);
    assert.match(rm.hint, /env ANTHROPIC_API_KEY, env AGENT_API_KEY/);
  }));
