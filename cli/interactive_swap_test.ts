import assert from "node:assert/strict";
import { envFrom } from "../core/ports.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import { makeLayout, writeFile } from "../tests/fakes/settings_layout.ts";
import {
  baseFlags,
  missingKeyMessage,
  planSwap,
  resolveSwap,
  sameProvider,
  stripTier,
  untrustedSwapMessage,
} from "./interactive_swap.ts";

const GLOBAL = `
temperature = 0.3
[provider_keys]
local = "sk-local-0001"
[[providers]]
id = "local"
provider = "chat_completions"
base_url = "http://127.0.0.1:9/v1"
model = "qwen"
`;

async function setup(flags: Record<string, string> = {}, env: Record<string, string> = {}) {
  const layout = await makeLayout();
  await writeFile(layout.globalFile, GLOBAL);
  const e = envFrom(env);
  const settings = resolveSettings({ flags, env: e, cwd: layout.cwd, home: layout.home });
  return { layout, settings, env: e, ctx: { env: e, cwd: layout.cwd, home: layout.home } };
}

Deno.test("a [1m] suffix is stripped before lookup", () => {
  assert.deepEqual(stripTier("claude-sonnet-4-5[1m]"), { id: "claude-sonnet-4-5", tier1m: true });
  assert.deepEqual(stripTier(" plain "), { id: "plain", tier1m: false });
});

Deno.test("a preset id swaps to the preset; endpoint flags from the command line are dropped", async () => {
  const t = await setup({ "base-url": "http://10.0.0.1/v1", temperature: "0.9" });
  try {
    const plan = planSwap("local", {
      settings: t.settings,
      flags: { "base-url": "http://10.0.0.1/v1", temperature: "0.9" },
      listing: null,
    });
    assert.equal(plan.via, "preset");
    assert.deepEqual(plan.flags, { temperature: "0.9", preset: "local" });
    const r = resolveSwap(plan, t.ctx);
    assert.equal(r.settings.provider, "chat_completions");
    assert.equal(r.settings.model, "qwen");
    assert.equal(r.settings.temperature, 0.9);
    assert.equal(r.endpoint.api_key, "sk-local-0001");
    assert.equal(missingKeyMessage(r), null);
  } finally {
    await t.layout.cleanup();
  }
});

Deno.test("a served model swaps in place on the active endpoint", async () => {
  const t = await setup({ preset: "local" });
  try {
    const plan = planSwap("qwen-large", {
      settings: t.settings,
      flags: { preset: "local" },
      listing: [{ id: "qwen" }, { id: "qwen-large" }],
    });
    assert.equal(plan.via, "listing");
    const r = resolveSwap(plan, t.ctx);
    assert.equal(r.settings.provider_preset, "local");
    assert.equal(r.settings.model, "qwen-large");
    assert.equal(r.endpoint.base_url, "http://127.0.0.1:9/v1");
    assert.ok(
      sameProvider(r.endpoint, resolveSwap({ flags: { preset: "local" } }, t.ctx).endpoint),
    );
  } finally {
    await t.layout.cleanup();
  }
});

Deno.test("a preset's model finds its preset; an unknown id stays on the endpoint", async () => {
  const t = await setup({ "base-url": "http://127.0.0.1:8/v1" });
  try {
    const cur = {
      settings: t.settings,
      flags: { "base-url": "http://127.0.0.1:8/v1" },
      listing: null,
    };
    const byModel = planSwap("claude-sonnet-4-5[1m]", cur);
    assert.equal(byModel.via, "preset-model");
    assert.equal(byModel.presetId, "hosted-messages");
    assert.equal(byModel.tier1m, true);
    const unknown = planSwap("my-finetune", cur);
    assert.equal(unknown.via, "unlisted");
    const r = resolveSwap(unknown, t.ctx);
    assert.equal(r.settings.base_url, "http://127.0.0.1:8/v1");
    assert.equal(r.settings.model, "my-finetune");
    assert.equal(r.keyNeeded, false);
  } finally {
    await t.layout.cleanup();
  }
});

Deno.test("a hosted preset without a key is refused with a /providers hint", async () => {
  const t = await setup();
  try {
    const r = resolveSwap(
      planSwap("messages-gateway", { settings: t.settings, flags: {}, listing: null }),
      t.ctx,
    );
    assert.equal(
      missingKeyMessage(r),
      "No API key for messages-gateway: run /providers messages-gateway to enter one, then try again.",
    );
    // The shared env key counts, as at start-up.
    const keyed = await setup({}, { AGENT_API_KEY: "sk-env-1234" });
    try {
      const r2 = resolveSwap(
        planSwap("messages-gateway", { settings: keyed.settings, flags: {}, listing: null }),
        keyed.ctx,
      );
      assert.equal(missingKeyMessage(r2), null);
    } finally {
      await keyed.layout.cleanup();
    }
  } finally {
    await t.layout.cleanup();
  }
});

Deno.test("a broken settings file fails the swap with the resolver's error, not a crash", async () => {
  const t = await setup();
  try {
    await writeFile(t.layout.globalFile, "temperature = [oops");
    assert.throws(() => resolveSwap({ flags: { preset: "local" } }, t.ctx), /settings\.toml/);
    assert.deepEqual(
      baseFlags({ model: "x", preset: "p", provider: "messages", "base-url": "u", pricing: true }),
      { pricing: true },
    );
  } finally {
    await t.layout.cleanup();
  }
});

Deno.test("a swap that would follow a changed, untrusted project file is refused", async () => {
  const t = await setup();
  try {
    const { trustProjectFile, untrustedProject } = await import(
      "../core/settings/project_trust.ts"
    );
    await writeFile(t.layout.projectFile, 'base_url = "http://127.0.0.1:9/v1"\n');
    const first = await untrustedProject(resolveSwap({ flags: {} }, t.ctx).settings);
    await trustProjectFile(t.layout.home, t.layout.projectFile, first!.digest);
    assert.equal(await untrustedSwapMessage(resolveSwap({ flags: {} }, t.ctx)), null);
    // Mid-session the file changes: the next /model must not follow it silently.
    await writeFile(t.layout.projectFile, 'base_url = "http://evil.example/v1"\n');
    const refusal = await untrustedSwapMessage(resolveSwap({ flags: { model: "m" } }, t.ctx));
    assert.match(refusal ?? "", /changed and now set base_url = "http:\/\/evil\.example\/v1"/);
    assert.match(refusal ?? "", /agent config trust/);
  } finally {
    await t.layout.cleanup();
  }
});
