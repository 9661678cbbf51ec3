// The install's own secrets, which no publication may carry (issue 37): read afresh for
// every scan (a few small files and HMACs), so a key stored or rotated a minute ago is
// covered. Any source that cannot be read throws: the scan then fails and the publication
// is held, never sent unchecked.
//
// - model keys: provider_keys, api_key and mcp_keys of the settings files, and the key
//   variables of the environment (ANTHROPIC_API_KEY, AGENT_API_KEY, OPENAI_API_KEY);
// - the Matrix bot's token (MX_TOKEN) and the code host's (AGENT_OUTPOST_GITHUB_TOKEN);
// - every recipe trigger's webhook secret (derived from <home>/outpost/trigger_key);
// - the VAPID private key (raw base64url, and the key file's text when it is PEM);
// - the dashboard's CSRF secret.
// Machine-door tokens are stored only as hashes; secret_scan.ts matches their shape instead.

import { MODEL_KEY_VARS } from "../sandbox/environment.ts";
import type { Env } from "../ports.ts";
import type { TriggerSecrets } from "../recipes/trigger_secret.ts";
import type { TriggerStore } from "../store/triggers.ts";

const ENV_SECRETS = ["MX_TOKEN", "AGENT_OUTPOST_GITHUB_TOKEN", ...MODEL_KEY_VARS];

export interface KnownSecretSources {
  home: string;
  env: Env;
  triggers: Pick<TriggerStore, "list">;
  triggerSecrets: TriggerSecrets;
  /** The VAPID private key (raw base64url) when the push lane has one. */
  vapidPrivateKey: () => string | null;
  csrfToken: () => string;
}

export async function collectKnownSecrets(o: KnownSecretSources): Promise<string[]> {
  const out: string[] = [...await settingsSecrets(o.home, o.env)];
  for (const name of ENV_SECRETS) {
    const v = o.env.get(name)?.trim();
    if (v) out.push(v);
  }
  for (const t of o.triggers.list()) out.push(await o.triggerSecrets.secretFor(t.id, t.salt));
  const vapid = o.vapidPrivateKey();
  if (vapid) out.push(vapid);
  out.push(o.csrfToken());
  return out;
}

/** Every string under provider_keys, api_key and mcp_keys of the resolved settings. */
async function settingsSecrets(home: string, env: Env): Promise<string[]> {
  const { resolveSettings } = await import("../settings/resolve.ts");
  const s = resolveSettings({ flags: {}, env, cwd: home, home });
  const out: string[] = [];
  const collect = (v: unknown): void => {
    if (typeof v === "string") {
      if (v.trim()) out.push(v.trim());
    } else if (v && typeof v === "object") {
      for (const inner of Object.values(v)) collect(inner);
    }
  };
  collect(s.provider_keys);
  collect(s.api_key);
  collect(s.mcp_keys);
  return out;
}
