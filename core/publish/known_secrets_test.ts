// The install's own secrets (known_secrets.ts): every source is read, and a settings file that
// cannot be parsed is an error (the gate then holds the publication), never an empty list.

import assert from "node:assert/strict";
import { join } from "node:path";
import { envFrom } from "../ports.ts";
import { deriveSecret, type TriggerSecrets } from "../recipes/trigger_secret.ts";
import type { RecipeTrigger } from "../store/triggers.ts";
import { collectKnownSecrets } from "./known_secrets.ts";

const triggerSecrets: TriggerSecrets = {
  secretFor: (id, salt) => Promise.resolve(deriveSecret("install-key", id, salt)),
};

function sources(home: string) {
  return {
    home,
    env: envFrom({
      MX_TOKEN: "syt_matrix_token_123",
      AGENT_OUTPOST_GITHUB_TOKEN: "ghp_code_host_token",
      OPENAI_API_KEY: "sk-env-model-key",
      PATH: "/usr/bin",
    }),
    triggers: { list: () => [{ id: 7, salt: "s7" } as RecipeTrigger] },
    triggerSecrets,
    vapidPrivateKey: () => "vapid-private-key-b64url",
    csrfToken: () => "csrf-secret-value",
  };
}

Deno.test("every source of the install's secrets is collected", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(
      join(home, "settings.toml"),
      'api_key = "top-level-key"\n[provider_keys]\nopenai = "stored-openai-key"\n' +
        '[mcp_keys]\ndocs = "mcp-docs-key"\n',
    );
    const known = await collectKnownSecrets(sources(home));
    for (
      const s of [
        "top-level-key",
        "stored-openai-key",
        "mcp-docs-key",
        "syt_matrix_token_123",
        "ghp_code_host_token",
        "sk-env-model-key",
        deriveSecret("install-key", 7, "s7"),
        "vapid-private-key-b64url",
        "csrf-secret-value",
      ]
    ) assert.ok(known.includes(s), s);
    assert.ok(!known.includes("/usr/bin"), "ordinary variables are not secrets");
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a settings file that cannot be parsed is an error, not an empty list", async () => {
  const home = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(join(home, "settings.toml"), "[provider_keys\nopenai = 'x'\n");
    await assert.rejects(collectKnownSecrets(sources(home)));
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
