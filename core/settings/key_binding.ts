// A stored key is bound to the endpoint it was stored for (issue 37 §1): it is sent only to
// that origin (scheme, host and port). Whoever can point base_url somewhere (a job's
// base_url, AGENT_BASE_URL handed to `agent -p`, a dashboard form) cannot thereby have the
// keys in the settings files sent there.
//
// - provider_keys[<id>] is stored for preset <id>: bound to that preset's base_url.
// - The top-level api_key is bound to the endpoint the global settings file itself names: its
//   base_url, else its provider_preset's base_url, else the two wires' public endpoints.
// - Keys in the environment (ANTHROPIC_API_KEY, AGENT_API_KEY, OPENAI_API_KEY) are not bound:
//   whoever sets AGENT_BASE_URL in an environment can read that environment's keys anyway.
//   The outpost never hands them to a job's child (core/scheduler/headless_command.ts).

import { PUBLIC_BASE_URLS } from "./knobs.ts";
import type { Settings } from "./types.ts";

/** The origin requests to `url` go to ("https://api.example.com"); null when not a URL. */
export function endpointOrigin(url: string | undefined): string | null {
  if (url === undefined) return null;
  try {
    const u = new URL(url);
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch {
    return null;
  }
}

/** The origins provider_keys[presetId] may go to (none for an unknown preset). */
export function presetKeyOrigins(settings: Settings, presetId: string): string[] {
  const preset = settings.providers.find((p) => p.id === presetId);
  const origin = endpointOrigin(preset?.base_url);
  return origin === null ? [] : [origin];
}

/** The origins the top-level api_key may go to. */
export function sharedKeyOrigins(settings: Settings): string[] {
  if (settings.api_key_endpoint !== undefined) {
    const origin = endpointOrigin(settings.api_key_endpoint);
    return origin === null ? [] : [origin];
  }
  return Object.values(PUBLIC_BASE_URLS).map((url) => endpointOrigin(url)!);
}
