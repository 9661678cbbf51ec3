// The /model picker's rows (spec 4.2): favorites first, then the built-in presets, the
// custom [[providers]] endpoints, and the active endpoint's live model listing. Each row
// says whether a key resolves for it. Pure: the picker and the tests share it.
//
// A row's target is what `/model <target>` receives: a preset id for preset rows, a model id
// for live rows. Favorites store targets too (model_favorites), so a favorite preset row is
// remembered by its preset id, which is unambiguous where two presets serve the same model.

import type { Env } from "../core/ports.ts";
import type { ProviderPreset, Settings } from "../core/settings/types.ts";
import type { ServedModel } from "../core/wires/types.ts";
import { resolveKey } from "../core/settings/keys.ts";
import type { PickItem } from "./pickers/prompts.ts";

export type CatalogGroup = "favorites" | "presets" | "custom" | "live";

export interface CatalogRow {
  group: CatalogGroup;
  target: string;
  model: string;
  presetId?: string;
  /** Where the row's endpoint is (URL), for the hint. */
  endpoint: string;
  /** The endpoint takes an API key (hosted endpoints and every preset). */
  keyNeeded: boolean;
  /** A key resolves for the row (meaningful when keyNeeded). */
  keyed: boolean;
  active: boolean;
  favorite: boolean;
}

/** The endpoint the session is on. */
export interface ActiveEndpoint {
  presetId?: string;
  model: string;
  baseUrl: string;
  keyNeeded: boolean;
  keyed: boolean;
}

export interface CatalogInput {
  settings: Settings;
  env: Env;
  active: ActiveEndpoint;
  /** The active endpoint's GET /v1/models answer (null when it gave none). */
  listing: readonly ServedModel[] | null;
  favorites: readonly string[];
}

export const GROUP_TITLES: Readonly<Record<CatalogGroup, string>> = {
  favorites: "★ Favorites",
  presets: "Presets",
  custom: "Custom endpoints",
  live: "Served by the active endpoint",
};

export function buildCatalog(input: CatalogInput): CatalogRow[] {
  const { settings, env, active } = input;
  const favorites = new Set(input.favorites);
  const presetRow = (p: ProviderPreset): CatalogRow => ({
    group: p.builtin ? "presets" : "custom",
    target: p.id,
    model: p.model,
    presetId: p.id,
    endpoint: p.base_url,
    keyNeeded: true,
    keyed: resolveKey(settings, env, { presetId: p.id }).key !== undefined,
    active: active.presetId === p.id,
    favorite: favorites.has(p.id),
  });
  const liveRow = (model: string): CatalogRow => ({
    group: "live",
    target: model,
    model,
    endpoint: active.baseUrl,
    keyNeeded: active.keyNeeded,
    keyed: active.keyed,
    active: model === active.model,
    favorite: favorites.has(model),
  });

  const presets = settings.providers.filter((p) => p.builtin).map(presetRow);
  const custom = settings.providers.filter((p) => !p.builtin).map(presetRow);
  const liveIds = [...new Set((input.listing ?? []).map((m) => m.id))];
  if (active.presetId === undefined && !liveIds.includes(active.model)) {
    liveIds.unshift(active.model);
  }
  const live = liveIds.map(liveRow);

  const all = [...presets, ...custom, ...live];
  const favoriteRows = input.favorites.map((id): CatalogRow => {
    const found = all.find((r) => r.target === id);
    return { ...(found ?? liveRow(id)), group: "favorites", favorite: true };
  });
  return [...favoriteRows, ...all];
}

/** The rows as picker items: a header per non-empty group, a key badge or hint per row. */
export function catalogItems(rows: readonly CatalogRow[]): PickItem<CatalogRow>[] {
  const items: PickItem<CatalogRow>[] = [];
  for (const group of Object.keys(GROUP_TITLES) as CatalogGroup[]) {
    const inGroup = rows.filter((r) => r.group === group);
    if (inGroup.length === 0) continue;
    const title = group === "live" && inGroup[0]
      ? `${GROUP_TITLES.live} (${inGroup[0].endpoint})`
      : GROUP_TITLES[group];
    items.push({ type: "header", text: title });
    for (const row of inGroup) {
      items.push({
        type: "row",
        value: row,
        key: `${row.group}:${row.target}`,
        label: rowLabel(row),
        hint: rowHint(row),
      });
    }
  }
  return items;
}

function rowLabel(row: CatalogRow): string {
  const star = row.favorite && row.group !== "favorites" ? " ★" : "";
  const name = row.presetId ? `${row.presetId} · ${row.model}` : row.model;
  return `${name}${star}`;
}

/** The key badge ("key ✓") or the needs-key hint, plus "current" on the active row. */
export function rowHint(row: CatalogRow): string {
  const parts: string[] = [];
  if (row.active) parts.push("current");
  if (row.keyNeeded) {
    parts.push(row.keyed ? "key ✓" : `needs key · /providers ${row.presetId ?? "<id>"}`);
  }
  if (row.presetId) parts.push(row.endpoint);
  return parts.join(" · ");
}
