import assert from "node:assert/strict";
import { envFrom } from "../core/ports.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import { makeLayout, writeFile } from "../tests/fakes/settings_layout.ts";
import { buildCatalog, catalogItems, type CatalogRow } from "./interactive_catalog.ts";

const GLOBAL = `
model_favorites = ["big-model", "local", "gone-model"]
[provider_keys]
local = "sk-local-0001"
[[providers]]
id = "local"
provider = "chat_completions"
base_url = "http://127.0.0.1:9/v1"
model = "small-model"
[[providers]]
id = "keyless"
base_url = "http://127.0.0.1:10/v1"
`;

async function catalog(env: Record<string, string> = {}) {
  const layout = await makeLayout();
  await writeFile(layout.globalFile, GLOBAL);
  try {
    const e = envFrom(env);
    const settings = resolveSettings({
      flags: { preset: "local" },
      env: e,
      cwd: layout.cwd,
      home: layout.home,
    });
    return buildCatalog({
      settings,
      env: e,
      active: {
        presetId: "local",
        model: "small-model",
        baseUrl: "http://127.0.0.1:9/v1",
        keyNeeded: true,
        keyed: true,
      },
      listing: [{ id: "small-model" }, { id: "big-model" }],
      favorites: settings.model_favorites,
    });
  } finally {
    await layout.cleanup();
  }
}

const brief = (r: CatalogRow) =>
  `${r.group}:${r.target}${r.keyNeeded ? (r.keyed ? " key" : " needs-key") : ""}${
    r.active ? " active" : ""
  }`;

Deno.test("favorites come first, then presets, custom endpoints and the live listing", async () => {
  const rows = await catalog();
  assert.deepEqual(rows.map(brief), [
    "favorites:big-model key",
    "favorites:local key active",
    "favorites:gone-model key",
    "presets:hosted-messages needs-key",
    "presets:messages-gateway needs-key",
    "custom:local key active",
    "custom:keyless needs-key",
    "live:small-model key active",
    "live:big-model key",
  ]);
  // Both big-model rows carry the star, the live one as well as its favorites entry.
  assert.deepEqual(
    rows.filter((r) => r.target === "big-model").map((r) => `${r.group}:${r.favorite}`),
    ["favorites:true", "live:true"],
  );
});

Deno.test("a key from the environment counts as keyed for every preset", async () => {
  const rows = await catalog({ ANTHROPIC_API_KEY: "sk-ant-0001" });
  assert.deepEqual(rows.filter((r) => r.group === "presets").map(brief), [
    "presets:hosted-messages key",
    "presets:messages-gateway key",
  ]);
});

Deno.test("picker items: one header per group, badges and hints, stable keys", async () => {
  const items = catalogItems(await catalog());
  const headers = items.filter((i) => i.type === "header").map((i) =>
    i.type === "header" ? i.text : ""
  );
  assert.deepEqual(headers, [
    "★ Favorites",
    "Presets",
    "Custom endpoints",
    "Served by the active endpoint (http://127.0.0.1:9/v1)",
  ]);
  const row = (key: string) => items.find((i) => i.type === "row" && i.key === key);
  const hosted = row("presets:hosted-messages");
  assert.ok(hosted?.type === "row");
  assert.equal(hosted.hint, "needs key · /providers hosted-messages · https://api.anthropic.com");
  const live = row("live:big-model");
  assert.ok(live?.type === "row");
  assert.equal(live.label, "big-model ★");
  assert.equal(live.hint, "key ✓");
});
