// Provider presets: two built-in first-party endpoints plus custom [[providers]] rows from
// the global settings file. A preset bundles wire, URL, model id and auth header style.

import { describeSource, SettingsError } from "./errors.ts";
import { type Knob, MODEL_SENTINEL, WIRE_KINDS } from "./knobs.ts";
import { type LoadedFile, positionOf } from "./toml_file.ts";
import type { AuthStyle, ProviderPreset, Settings, Source, WireKind } from "./types.ts";
import { badValue, parseTomlValue } from "./values.ts";

/**
 * The first-party presets. `hosted-messages` is the public Messages API with its native
 * x-api-key header; `messages-gateway` is a first-party gateway speaking the same wire but
 * authenticating with `Authorization: Bearer` (spec 5.4: one preset uses Bearer on Messages).
 */
export const BUILTIN_PRESETS: readonly ProviderPreset[] = Object.freeze([
  Object.freeze(
    {
      id: "hosted-messages",
      label: "Hosted Messages API",
      provider: "messages",
      base_url: "https://api.anthropic.com",
      model: "claude-sonnet-4-5",
      auth_style: "x-api-key",
      builtin: true,
    } satisfies ProviderPreset,
  ),
  Object.freeze(
    {
      id: "messages-gateway",
      label: "First-party Messages gateway (Bearer auth)",
      provider: "messages",
      base_url: "https://gateway.agent-models.dev/v1",
      model: "claude-sonnet-4-5",
      auth_style: "bearer",
      builtin: true,
    } satisfies ProviderPreset,
  ),
]);

/** The header a wire uses when no preset says otherwise. */
export function defaultAuthStyle(provider: WireKind): AuthStyle {
  return provider === "messages" ? "x-api-key" : "bearer";
}

export const PRESET_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ROW_FIELDS = ["id", "label", "provider", "base_url", "model", "auth_style"] as const;

function rowKnob(field: string, type: Knob["type"], values?: readonly string[]): Knob {
  return {
    key: field,
    field: "providers",
    type,
    ...(values ? { values } : {}),
    defaultText: "",
    globalOnly: true,
    help: "",
  };
}

const ROW_KNOBS = {
  id: rowKnob("id", "string"),
  label: rowKnob("label", "string"),
  provider: rowKnob("provider", "enum", WIRE_KINDS),
  base_url: rowKnob("base_url", "url"),
  model: rowKnob("model", "string"),
  auth_style: rowKnob("auth_style", "enum", ["bearer", "x-api-key"]),
} as const;

/**
 * Parses the global file's [[providers]] rows. Missing provider follows spec 4.3 rule 1 (a
 * row always has a base_url, so it defaults to messages); missing model is the `default`
 * sentinel; missing auth_style is the wire's native header. Rows whose id collides with a
 * built-in preset or an earlier row are skipped with a warning.
 */
export function parseCustomProviders(
  value: unknown,
  file: LoadedFile,
  warnings: string[],
): ProviderPreset[] {
  const source: Source = { kind: "global", detail: file.path };
  if (!Array.isArray(value)) {
    throw badValue(
      "providers",
      "an array of tables ([[providers]] rows)",
      value,
      source,
      () => positionOf(file, ["providers"]),
    );
  }
  const out: ProviderPreset[] = [];
  const seen = new Set(BUILTIN_PRESETS.map((p) => p.id));
  value.forEach((row: unknown, i) => {
    const at = (field?: string) => () =>
      positionOf(file, field ? ["providers", i, field] : ["providers", i]);
    if (row === null || typeof row !== "object" || Array.isArray(row)) {
      throw badValue(`providers[${i}]`, "a table", row, source, at());
    }
    const r = row as Record<string, unknown>;
    for (const extra of Object.keys(r)) {
      if (!(ROW_FIELDS as readonly string[]).includes(extra)) {
        const p = at(extra)();
        warnings.push(
          `${file.path}${p.line ? `:${p.line}` : ""}: unknown field ${extra} in [[providers]] ` +
            `row ${i + 1} (ignored; known fields: ${ROW_FIELDS.join(", ")})`,
        );
      }
    }
    const field = <K extends keyof typeof ROW_KNOBS>(name: K): string | undefined => {
      if (r[name] === undefined) return undefined;
      const knob = { ...ROW_KNOBS[name], key: `providers[${i}].${name}` };
      return parseTomlValue(knob, r[name], source, at(name)) as string;
    };
    const id = field("id");
    if (id === undefined || !PRESET_ID_PATTERN.test(id)) {
      throw badValue(
        `providers[${i}].id`,
        "an id of letters, digits, '.', '_' or '-'",
        r.id,
        source,
        at("id"),
      );
    }
    const base_url = field("base_url");
    if (base_url === undefined) {
      throw badValue(
        `providers[${i}].base_url`,
        "an http:// or https:// URL",
        undefined,
        source,
        at(),
      );
    }
    if (seen.has(id)) {
      warnings.push(
        `${file.path}: [[providers]] row ${i + 1} reuses the id ${id} of a built-in preset or ` +
          `an earlier row and is ignored; give it another id`,
      );
      return;
    }
    seen.add(id);
    const provider = (field("provider") ?? "messages") as WireKind;
    out.push(Object.freeze({
      id,
      label: field("label") ?? id,
      provider,
      base_url,
      model: field("model") ?? MODEL_SENTINEL,
      auth_style: (field("auth_style") ?? defaultAuthStyle(provider)) as AuthStyle,
      builtin: false,
    }));
  });
  return out;
}

/** Looks a preset up by id; unknown ids fail with the list of known ones. */
export function findPreset(
  presets: readonly ProviderPreset[],
  id: string,
  source?: Source,
): ProviderPreset {
  const found = presets.find((p) => p.id === id);
  if (found) return found;
  const where = source ? ` (from ${describeSource(source)})` : "";
  throw new SettingsError(
    `Unknown provider preset ${JSON.stringify(id)}${where}. Known presets: ${
      presets.map((p) => p.id).join(", ")
    }. Add a [[providers]] row to the global settings file for a custom endpoint.`,
    { key: "provider_preset", ...(source ? { source } : {}) },
  );
}

/** The preset the resolved settings are using, if any. */
export function activePreset(settings: Settings): ProviderPreset | undefined {
  const id = settings.provider_preset;
  return id === undefined ? undefined : settings.providers.find((p) => p.id === id);
}
