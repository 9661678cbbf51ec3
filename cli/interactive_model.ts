// /model and /providers (spec 4.2, 5.4, 7.5). A swap builds a new endpoint and wire from
// re-resolved settings and carries the conversation over (convertHistoryForWire); the
// running cost total restarts when the provider changes. /providers is the one place an API
// key is typed (masked); it lands in provider_keys[<id>] by a read-merge write of the
// global settings file, and the running session picks it up at once.

import { setProviderKey, toggleFavorite } from "../core/settings/settings_file.ts";
import { resolveSettings } from "../core/settings/resolve.ts";
import { resolveKey } from "../core/settings/keys.ts";
import { maskKey } from "../core/settings/mask.ts";
import { createWire } from "../core/wires/create.ts";
import { convertHistoryForWire } from "../core/agent/history_convert.ts";
import type { ServedModel } from "../core/wires/types.ts";
import { wireOptions } from "./setup.ts";
import type { SessionState } from "./interactive_types.ts";
import { buildCatalog, catalogItems, type CatalogRow } from "./interactive_catalog.ts";
import {
  missingKeyMessage,
  needsKey,
  planSwap,
  providerLabel,
  resolveSwap,
  sameProvider,
  type SwapPlan,
  type SwapResolution,
  TIER_1M_CONTEXT,
  untrustedSwapMessage,
} from "./interactive_swap.ts";
import { reconcileEffort } from "./interactive_effort.ts";
import type { PickItem } from "./pickers/prompts.ts";

/** How long the picker waits for the active endpoint's model listing. */
const LISTING_TIMEOUT_MS = 3_000;

export async function modelCommand(s: SessionState, arg: string): Promise<void> {
  if (arg.trim() !== "") {
    await switchModel(s, arg.trim());
    return;
  }
  const listing = await activeListing(s);
  let favorites = [...s.ctx.settings.model_favorites];
  let toggled = false;
  const rows = () =>
    buildCatalog({
      settings: s.ctx.settings,
      env: s.env,
      active: {
        ...(s.ctx.settings.provider_preset !== undefined
          ? { presetId: s.ctx.settings.provider_preset }
          : {}),
        // The name the banner and status line show: the served model once known, so the
        // picker never lists the `default` sentinel beside the model it stands for.
        model: s.ctx.resolver.displayName,
        baseUrl: s.ctx.endpoint.base_url,
        keyNeeded: needsKey(s.ctx.settings),
        keyed: s.ctx.endpoint.api_key !== undefined,
      },
      listing,
      favorites,
    });
  const initial = rows().find((r) => r.active && r.group !== "favorites");
  const picked = await s.term.prompts.pick<CatalogRow>({
    message: "Switch model",
    items: catalogItems(rows()),
    ...(initial ? { initialKey: `${initial.group}:${initial.target}` } : {}),
    onToggle: async (row) => {
      const now = await toggleFavorite(s.ctx.home, row.target);
      favorites = now
        ? [...favorites.filter((f) => f !== row.target), row.target]
        : favorites.filter((f) => f !== row.target);
      toggled = true;
      return catalogItems(rows());
    },
  });
  if (toggled) refreshSettings(s);
  if (picked === null) return s.note("model unchanged");
  if (picked.keyNeeded && !picked.keyed && picked.presetId) {
    s.note(`${picked.presetId} has no API key yet: /providers ${picked.presetId}`);
    if (!(await enterKey(s, picked.presetId))) return s.note("model unchanged");
  }
  await switchModel(s, picked.target);
}

/** `/model <id>`: resolve, refuse without a key, else swap in place. */
export async function switchModel(s: SessionState, id: string): Promise<boolean> {
  const listing = await activeListing(s);
  const plan = planSwap(id, { settings: s.ctx.settings, flags: s.flags, listing });
  let resolved: SwapResolution;
  try {
    resolved = resolveSwap(plan, { env: s.env, cwd: s.ctx.workdir, home: s.ctx.home });
  } catch (err) {
    s.error(err instanceof Error ? err.message : String(err));
    return false;
  }
  const refusal = missingKeyMessage(resolved) ?? await untrustedSwapMessage(resolved);
  if (refusal) {
    s.error(refusal);
    return false;
  }
  await applySwap(s, plan, resolved);
  return true;
}

async function applySwap(s: SessionState, plan: SwapPlan, r: SwapResolution): Promise<void> {
  const before = { endpoint: s.ctx.endpoint, model: s.ctx.settings.model };
  const wire = createWire(r.endpoint, wireOptions(r.settings), s.modelFetch);
  const same = sameProvider(before.endpoint, r.endpoint);
  const sameModel = same && before.model === r.settings.model;
  s.history = convertHistoryForWire(s.history, wire.kind, { keepSignatures: sameModel });
  s.ctx.settings = r.settings;
  s.ctx.endpoint = r.endpoint;
  s.ctx.wire = wire;
  s.flags = plan.flags;
  s.contextOverride = plan.tier1m ? TIER_1M_CONTEXT : undefined;
  s.ctx.resolver.setModel(r.settings.model, {
    hasBaseUrl: r.settings.base_url !== undefined,
    keepListing: same,
  });
  const label = providerLabel(r.settings, r.endpoint);
  if (!same) {
    const prior = s.meter.label;
    const counted = s.meter.enabled && s.meter.turns > 0;
    s.meter.swapProvider(r.settings.provider, label);
    if (counted) s.note(`cost total restarts for ${label} (${prior} is footnoted in /cost)`);
    s.listing = undefined;
    if (r.settings.base_url !== undefined) {
      const models = await wire.listModels(AbortSignal.timeout(LISTING_TIMEOUT_MS));
      s.ctx.resolver.applyListing(models);
      s.listing = { endpoint: r.endpoint.base_url, models };
    }
  }
  reconcileEffort(s);
  s.print(`model: ${s.style.cyan(s.ctx.resolver.displayName)} · ${r.settings.provider} · ${label}`);
  if (plan.tier1m) {
    s.note(`1M-context tier: the window is ${TIER_1M_CONTEXT.toLocaleString("en-US")} tokens`);
  }
  if (plan.via === "unlisted") {
    s.note(`${plan.id} is not in the catalog; it is sent to ${r.endpoint.base_url} as-is`);
  }
  if (!same && s.history.length > 0) {
    s.note(`the conversation continues on the ${r.settings.provider} wire`);
  }
}

/** `/providers [id]`: pick a provider (bare) and enter its key, masked. */
export async function providersCommand(s: SessionState, arg: string): Promise<void> {
  let id = arg.trim();
  const presets = s.ctx.settings.providers;
  if (id === "") {
    const items: PickItem<string>[] = presets.map((p) => {
      const keyed = resolveKey(s.ctx.settings, s.env, { presetId: p.id }).key !== undefined;
      const stored = s.ctx.settings.provider_keys[p.id] !== undefined;
      return {
        type: "row",
        value: p.id,
        key: p.id,
        label: `${p.id} · ${p.label}`,
        hint: `${
          stored ? "key stored" : keyed ? "key ✓ (from the environment)" : "needs key"
        } · ${p.base_url}`,
      };
    });
    const picked = await s.term.prompts.pick({ message: "Enter an API key for", items });
    if (picked === null) return s.note("no key stored");
    id = picked;
  }
  if (!presets.some((p) => p.id === id)) {
    return s.error(
      `Unknown provider ${JSON.stringify(id)}. Known: ${presets.map((p) => p.id).join(", ")}. ` +
        `A custom endpoint needs a [[providers]] row in ${
          s.ctx.settings.files?.global ?? "the global settings file"
        } first.`,
    );
  }
  if (!(await enterKey(s, id))) return;
  if (s.ctx.settings.provider_preset === id) {
    // The running session swaps to the new key live, conversation and model unchanged.
    const r = resolveSwap({ flags: s.flags }, { env: s.env, cwd: s.ctx.workdir, home: s.ctx.home });
    const untrusted = await untrustedSwapMessage(r);
    if (untrusted) return s.error(untrusted);
    s.ctx.settings = r.settings;
    s.ctx.endpoint = r.endpoint;
    s.ctx.wire = createWire(r.endpoint, wireOptions(r.settings), s.modelFetch);
    s.note(`the session now uses the new key for ${id}`);
  }
}

/** Masked key entry and the read-merge write; true when a key was stored. */
export async function enterKey(s: SessionState, id: string): Promise<boolean> {
  const file = s.ctx.settings.files?.global ?? "the global settings file";
  const key = await s.term.prompts.secret(`API key for ${id} (saved to ${file})`);
  if (key === null) {
    s.note("no key stored");
    return false;
  }
  try {
    await setProviderKey(s.ctx.home, id, key);
  } catch (err) {
    s.error(err instanceof Error ? err.message : String(err));
    return false;
  }
  s.print(`key for ${id} stored (${maskKey(key)})`);
  refreshSettings(s);
  return true;
}

/** Re-reads the settings files for the current endpoint (favorites, stored keys). */
function refreshSettings(s: SessionState): void {
  try {
    s.ctx.settings = resolveSettings({
      flags: s.flags,
      env: s.env,
      cwd: s.ctx.workdir,
      home: s.ctx.home,
    });
  } catch (err) {
    s.error(err instanceof Error ? err.message : String(err));
  }
}

/** The active endpoint's model listing, asked once per endpoint. */
async function activeListing(s: SessionState): Promise<readonly ServedModel[] | null> {
  const endpoint = s.ctx.endpoint.base_url;
  if (s.listing?.endpoint === endpoint) return s.listing.models;
  const models = await s.ctx.wire.listModels(AbortSignal.timeout(LISTING_TIMEOUT_MS));
  s.listing = { endpoint, models };
  return models;
}
