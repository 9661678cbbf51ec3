// API key resolution (spec 4.3 rule 3, 5.4) and the Endpoint a wire is built from. Stored keys
// are bound to their endpoint's origin (key_binding.ts).

import type { Env } from "../ports.ts";
import { endpointOrigin, presetKeyOrigins, sharedKeyOrigins } from "./key_binding.ts";
import { PUBLIC_BASE_URLS } from "./knobs.ts";
import { defaultAuthStyle } from "./presets.ts";
import type { Endpoint, Settings, WireKind } from "./types.ts";

/** The hosted-Messages and hosted-Chat-Completions key variables of spec 4.3 rule 3. */
export const HOSTED_MESSAGES_KEY_ENV = "ANTHROPIC_API_KEY";
export const HOSTED_CHAT_KEY_ENV = "OPENAI_API_KEY";
export const SHARED_KEY_ENV = "AGENT_API_KEY";

export interface KeyResolution {
  /** The key, trimmed; absent when no place held one. */
  key?: string;
  /** Where the key came from ("provider_keys[hosted-messages]", "env AGENT_API_KEY", …). */
  from?: string;
  /** Every place searched, in order. */
  searched: readonly string[];
  /** One line for 401/403 and "missing key" errors: where we looked and what to do. */
  hint: string;
}

export interface KeyQuery {
  /** A key handed in by the caller (highest precedence). */
  callerKey?: string;
  /** Resolve for this preset instead of the active one (the /model picker's key badges). */
  presetId?: string;
}

function clean(v: string | undefined): string | undefined {
  const t = v?.trim();
  return t ? t : undefined;
}

/**
 * Key order, spec 4.3 rule 3: caller-supplied key, provider_keys[<active preset id>], the
 * hosted-Messages env key (ANTHROPIC_API_KEY), AGENT_API_KEY, the hosted-Chat-Completions env
 * key (OPENAI_API_KEY), top-level api_key. Empty values count as unset. With no active preset
 * the provider_keys step is skipped (and the hint says so).
 *
 * Two narrowings, each written down in settings.md: a wire's hosted env key is searched only
 * for that wire (an Anthropic key never goes to a Chat Completions server, nor the reverse);
 * and a key stored in a settings file is used only when the request goes to the origin it was
 * stored for (key_binding.ts), so pointing base_url elsewhere never carries it along.
 */
export function resolveKey(settings: Settings, env: Env, query: KeyQuery = {}): KeyResolution {
  const presetId = query.presetId ?? settings.provider_preset;
  const target = keyTarget(settings, query.presetId);
  const globalFile = settings.files?.global ?? "the global settings file";
  const steps: Array<[string, () => string | undefined]> = [];
  const stored = (label: string, origins: string[], value: string | undefined) => {
    if (clean(value) !== undefined && !origins.includes(target.origin ?? "")) {
      const owner = origins.length > 0 ? `stored for ${origins.join(" and ")}` : "no endpoint";
      steps.push([
        `${label} (${owner}; not sent to ${target.origin ?? target.url})`,
        () => undefined,
      ]);
      return;
    }
    steps.push([label, () => value]);
  };
  if (query.callerKey !== undefined) steps.push(["caller-supplied key", () => query.callerKey]);
  if (presetId === undefined) {
    steps.push(["provider_keys[<preset>] (no preset active)", () => undefined]);
  } else {
    stored(
      `provider_keys[${presetId}] in ${globalFile}`,
      presetKeyOrigins(settings, presetId),
      settings.provider_keys[presetId],
    );
  }
  for (const name of envKeyNames(target.wire)) steps.push([`env ${name}`, () => env.get(name)]);
  stored(`api_key in ${globalFile}`, sharedKeyOrigins(settings), settings.api_key);

  const searched = steps.map(([label]) => label);
  for (const [label, get] of steps) {
    const key = clean(get());
    if (key !== undefined) {
      return {
        key,
        from: label,
        searched,
        hint: `API key from ${label} (searched: ${searched.join(", ")})`,
      };
    }
  }
  const heldBack = searched.some((label) => label.includes("; not sent to "));
  return {
    searched,
    hint: `No API key found; searched ${searched.join(", ")}; ${todo(presetId)}` +
      (heldBack
        ? "; a stored key is sent only to the endpoint it was stored for: for this one, add a " +
          "[[providers]] row with its base_url, store its key and select that preset"
        : ""),
  };
}

/** What to do about a missing key. */
function todo(presetId: string | undefined): string {
  return presetId === undefined
    ? `set ${SHARED_KEY_ENV} in the environment, or store a key with ` +
      "`agent config set-key <provider>` and select that provider with --preset <provider> " +
      "(in a session: /providers <id>)"
    : `set ${SHARED_KEY_ENV}, or store one with \`agent config set-key ${presetId}\` ` +
      `(in a session: /providers ${presetId})`;
}

/** Where the request goes: the picker's preset, else the resolved base_url or public endpoint. */
function keyTarget(
  settings: Settings,
  presetId: string | undefined,
): { url: string; origin: string | null; wire: WireKind } {
  const preset = presetId === undefined
    ? undefined
    : settings.providers.find((p) => p.id === presetId);
  const wire = preset?.provider ?? settings.provider;
  const url = preset?.base_url ?? settings.base_url ?? PUBLIC_BASE_URLS[wire];
  return { url, origin: endpointOrigin(url), wire };
}

/**
 * The env key variables of spec 4.3 rule 3 that apply to a wire, in the spec's order: the
 * hosted-Messages key only for the Messages wire, the hosted-Chat-Completions key only for the
 * Chat Completions wire, AGENT_API_KEY for both.
 */
export function envKeyNames(wire: WireKind): string[] {
  return wire === "messages"
    ? [HOSTED_MESSAGES_KEY_ENV, SHARED_KEY_ENV]
    : [SHARED_KEY_ENV, HOSTED_CHAT_KEY_ENV];
}

/**
 * The Endpoint a wire is built from. base_url falls back to the provider's public endpoint;
 * the auth header comes from the active preset when it speaks the resolved wire, else the
 * wire's native header (Bearer for Chat Completions, x-api-key for Messages). `preset` is set
 * only for built-in (first-party) presets, as Endpoint documents.
 */
export function resolveEndpoint(settings: Settings, env: Env, callerKey?: string): Endpoint {
  const provider = settings.provider;
  const preset = settings.provider_preset === undefined
    ? undefined
    : settings.providers.find((p) => p.id === settings.provider_preset);
  // A cloned repository's .agent/settings.toml may point base_url anywhere; never hand it
  // the user's stored or environment keys. Only a caller-supplied key goes there.
  const untrustedUrl = settings.sources.base_url?.kind === "project";
  const keys = untrustedUrl
    ? untrustedUrlKeys(settings, callerKey)
    : resolveKey(settings, env, callerKey === undefined ? {} : { callerKey });
  return {
    provider,
    base_url: settings.base_url ?? PUBLIC_BASE_URLS[provider],
    ...(keys.key !== undefined ? { api_key: keys.key } : {}),
    auth_style: preset && preset.provider === provider
      ? preset.auth_style
      : defaultAuthStyle(provider),
    ...(preset?.builtin ? { preset: preset.id } : {}),
    key_hint: keys.hint,
  };
}

function untrustedUrlKeys(settings: Settings, callerKey?: string): KeyResolution {
  const file = settings.sources.base_url?.detail ?? "the project settings file";
  const hint = `base_url comes from ${file}, so no stored or environment API key is sent to it; ` +
    "set base_url in the global settings file or AGENT_BASE_URL to use a key there";
  const key = clean(callerKey);
  return key === undefined
    ? { searched: ["caller-supplied key"], hint }
    : { key, from: "caller-supplied key", searched: ["caller-supplied key"], hint };
}
