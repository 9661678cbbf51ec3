// Webhook secrets of recipe triggers. A trigger's secret is derived, never stored:
// HMAC-SHA256(install trigger key, trigger id + salt). The install key lives in
// <home>/outpost/trigger_key (mode 0600, minted on first use); the salt is in the trigger
// row. So a copy of outpost.db alone cannot forge a delivery, and the secret can be shown
// to the operator once, at enable time, and recomputed on every delivery.

import { createHmac, timingSafeEqual } from "node:crypto";
import { join } from "node:path";
import { loadOrCreateSecretFile, mintSecret } from "../secret_file.ts";

/** Derives secrets from the install's trigger key. */
export interface TriggerSecrets {
  /** The webhook secret of trigger `id` with `salt` (base64url, 43 characters). */
  secretFor(id: number, salt: string): Promise<string>;
}

export function triggerKeyPath(home: string): string {
  return join(home, "outpost", "trigger_key");
}

export function newSalt(): string {
  return mintSecret();
}

/** Secrets from <home>/outpost/trigger_key, minted on first use. */
export function fileTriggerSecrets(home: string): TriggerSecrets {
  let key: Promise<string> | null = null;
  return {
    async secretFor(id, salt) {
      key ??= loadOrCreateSecretFile(triggerKeyPath(home)).catch((err) => {
        key = null; // a fixed file is picked up on the next delivery
        throw err;
      });
      return deriveSecret(await key, id, salt);
    },
  };
}

export function deriveSecret(key: string, id: number, salt: string): string {
  return createHmac("sha256", key).update(`agent-outpost trigger v1\0${id}\0${salt}`)
    .digest("base64url");
}

/**
 * Checks GitHub's `X-Hub-Signature-256: sha256=<hex>` header: the HMAC-SHA256 of the raw
 * body bytes under `secret`, compared in constant time. False for a missing or malformed
 * header.
 */
export function verifyGithubSignature(
  secret: string,
  body: Uint8Array,
  header: string | undefined,
): boolean {
  if (header === undefined) return false;
  const m = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!m) return false;
  const expected = createHmac("sha256", secret).update(body).digest();
  const given = Uint8Array.from(m[1]!.match(/../g)!.map((h) => parseInt(h, 16)));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The header value GitHub would send for `body` (tests, and the setup check). */
export function githubSignature(secret: string, body: Uint8Array | string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
