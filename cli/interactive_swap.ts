// What `/model <id>` switches to (spec 4.2, 7.5). The id is looked up, after stripping a
// `[1m]` tier suffix, as: a preset id; a model the active endpoint serves; a preset's model
// (the active preset first); otherwise a model id sent as-is to the active endpoint.
// The new endpoint is resolved by re-running the settings resolver with command-line flags
// that pin it, so every other knob keeps its precedence and freshly stored keys are seen.

import type { Env } from "../core/ports.ts";
import type { Settings } from "../core/settings/types.ts";
import type { Endpoint, ServedModel } from "../core/wires/types.ts";
import { type Flags, resolveSettings } from "../core/settings/resolve.ts";
import { resolveEndpoint } from "../core/settings/keys.ts";
import { untrustedProject, untrustedRefusal } from "../core/settings/project_trust.ts";

/** Flags that choose the endpoint; a swap replaces them, every other flag is kept. */
export const ENDPOINT_FLAGS = ["provider", "base-url", "model", "preset"] as const;

/** The 1M-context tier suffix (`claude-sonnet-4-5[1m]`). */
export const TIER_1M_SUFFIX = "[1m]";
export const TIER_1M_CONTEXT = 1_000_000;

export interface SwapPlan {
  /** Settings flags that resolve to the target endpoint and model. */
  flags: Flags;
  /** The id without the tier suffix. */
  id: string;
  tier1m: boolean;
  /** How the id was found: a preset, the live listing, a preset's model, or not at all. */
  via: "preset" | "listing" | "preset-model" | "unlisted";
  presetId?: string;
}

export interface SwapResolution {
  settings: Settings;
  endpoint: Endpoint;
  /** A hosted endpoint needs a key (setup.ts applies the same rule at start-up). */
  keyNeeded: boolean;
}

export function stripTier(id: string): { id: string; tier1m: boolean } {
  const trimmed = id.trim();
  if (trimmed.toLowerCase().endsWith(TIER_1M_SUFFIX)) {
    return { id: trimmed.slice(0, -TIER_1M_SUFFIX.length), tier1m: true };
  }
  return { id: trimmed, tier1m: false };
}

/** The command-line flags without the endpoint-choosing ones. */
export function baseFlags(flags: Flags): Flags {
  const out: Flags = { ...flags };
  for (const f of ENDPOINT_FLAGS) delete out[f];
  return out;
}

/** Flags that keep the current endpoint (preset, or wire and URL from other sources). */
export function pinFlags(settings: Settings): Flags {
  const out: Flags = {};
  if (settings.provider_preset !== undefined) out.preset = settings.provider_preset;
  if (settings.sources.provider?.kind !== "preset") out.provider = settings.provider;
  if (settings.base_url !== undefined && settings.sources.base_url?.kind !== "preset") {
    out["base-url"] = settings.base_url;
  }
  return out;
}

export function planSwap(
  requested: string,
  current: { settings: Settings; flags: Flags; listing: readonly ServedModel[] | null },
): SwapPlan {
  const { id, tier1m } = stripTier(requested);
  const base = baseFlags(current.flags);
  const presets = current.settings.providers;
  const preset = presets.find((p) => p.id === id);
  if (preset) {
    return { flags: { ...base, preset: id }, id, tier1m, via: "preset", presetId: id };
  }
  const pinned = { ...base, ...pinFlags(current.settings), model: id };
  if (current.listing?.some((m) => m.id === id)) {
    return { flags: pinned, id, tier1m, via: "listing" };
  }
  const byModel =
    presets.find((p) => p.id === current.settings.provider_preset && p.model === id) ??
      presets.find((p) => p.model === id);
  if (byModel) {
    return {
      flags: { ...base, preset: byModel.id, model: id },
      id,
      tier1m,
      via: "preset-model",
      presetId: byModel.id,
    };
  }
  return { flags: pinned, id, tier1m, via: "unlisted" };
}

/** Resolves a plan to settings and an endpoint (throws SettingsError on a bad settings file). */
export function resolveSwap(
  plan: Pick<SwapPlan, "flags">,
  ctx: { env: Env; cwd: string; home: string },
): SwapResolution {
  const settings = resolveSettings({
    flags: plan.flags,
    env: ctx.env,
    cwd: ctx.cwd,
    home: ctx.home,
  });
  const endpoint = resolveEndpoint(settings, ctx.env);
  return { settings, endpoint, keyNeeded: needsKey(settings) };
}

/** The start-up rule of cli/setup.ts: hosted endpoints (no base_url, or a preset's) need a key. */
export function needsKey(settings: Settings): boolean {
  return settings.base_url === undefined || settings.sources.base_url?.kind === "preset";
}

/**
 * A swap re-reads the project settings file: if it now routes the prompt with content that is
 * not trusted (it changed since the start), the swap is refused with the start's one line
 * (core/settings/project_trust.ts), or null when it may go ahead.
 */
export async function untrustedSwapMessage(r: SwapResolution): Promise<string | null> {
  const untrusted = await untrustedProject(r.settings);
  if (untrusted === null) return null;
  const known = r.settings.project_trust[untrusted.file] !== undefined;
  return untrustedRefusal(untrusted, known);
}

/** The refusal of spec 7.5 when no key resolves, or null when the swap may go ahead. */
export function missingKeyMessage(r: SwapResolution): string | null {
  if (!r.keyNeeded || r.endpoint.api_key) return null;
  const preset = r.settings.provider_preset;
  if (preset !== undefined) {
    return `No API key for ${preset}: run /providers ${preset} to enter one, then try again.`;
  }
  return `No API key for ${r.endpoint.base_url}: pick a provider preset and run ` +
    `/providers <id> to enter its key (or set AGENT_API_KEY).`;
}

/** Whether two endpoints are the same provider (the cost total and signatures carry over). */
export function sameProvider(a: Endpoint, b: Endpoint): boolean {
  return a.provider === b.provider && a.base_url === b.base_url && a.preset === b.preset;
}

/** How the user knows an endpoint: its preset id, else its URL. */
export function providerLabel(settings: Settings, endpoint: Endpoint): string {
  return settings.provider_preset ?? endpoint.base_url;
}
