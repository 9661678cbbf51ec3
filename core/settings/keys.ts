// API key resolution (spec 4.3 rule 3, 5.4) and the Endpoint a wire is built from.

import type { Env } from "../ports.ts";
import type { Endpoint } from "../wires/types.ts";
import { PUBLIC_BASE_URLS } from "./knobs.ts";
import { defaultAuthStyle } from "./presets.ts";
import type { Settings } from "./types.ts";

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
 * Key order, exactly spec 4.3 rule 3: caller-supplied key, provider_keys[<active preset id>],
 * ANTHROPIC_API_KEY, AGENT_API_KEY, OPENAI_API_KEY, top-level api_key. Empty values count as
 * unset. With no active preset the provider_keys step is skipped (and the hint says so).
 */
export function resolveKey(settings: Settings, env: Env, query: KeyQuery = {}): KeyResolution {
  const presetId = query.presetId ?? settings.provider_preset;
  const globalFile = settings.files?.global ?? "the global settings file";
  const steps: Array<[string, () => string | undefined]> = [];
  if (query.callerKey !== undefined) steps.push(["caller-supplied key", () => query.callerKey]);
  steps.push([
    presetId === undefined
      ? "provider_keys[<preset>] (no preset active)"
      : `provider_keys[${presetId}] in ${globalFile}`,
    () => (presetId === undefined ? undefined : settings.provider_keys[presetId]),
  ]);
  for (const name of [HOSTED_MESSAGES_KEY_ENV, SHARED_KEY_ENV, HOSTED_CHAT_KEY_ENV]) {
    steps.push([`env ${name}`, () => env.get(name)]);
  }
  steps.push([`api_key in ${globalFile}`, () => settings.api_key]);

  const searched = steps.map(([label]) => label);
  const todo = presetId === undefined
    ? `set ${SHARED_KEY_ENV} in the environment, or store a key with ` +
      "`agent config set-key <provider>` and select that provider with --preset <provider> " +
      "(in a session: /providers <id>)"
    : `set ${SHARED_KEY_ENV}, or store one with \`agent config set-key ${presetId}\` ` +
      `(in a session: /providers ${presetId})`;
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
  return { searched, hint: `No API key found; searched ${searched.join(", ")}; ${todo}` };
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
