// The messenger pill and the push badge (spec 3.3, 5.5, 5.6), computed from the
// environment and the store. Neither imports the Matrix or web-push libraries: a dormant
// lane must cost nothing, and the status must not either.

import { createECDH, createPrivateKey } from "node:crypto";
import type { Env } from "../../core/ports.ts";
import type { Store } from "../../core/store/store.ts";
import type { MessengerStatus, PushStatus } from "../deps.ts";
import { MX_VARS, parseAllowlist } from "../../core/messenger/config.ts";

export { MX_VARS };

/** Live state a running Matrix bot reports (core/messenger/bot.ts: BotStatus). */
export interface MessengerProbe {
  state: "ok" | "error";
  detail?: string;
  next_retry_at?: string;
  last_sync_at?: string;
}

/**
 * Dormant with the missing names when any MX_* variable is unset or blank. With all four
 * set, the bot's own report decides; with no bot running the pill says error, with why.
 */
export function messengerStatus(env: Env, probe: MessengerProbe | null): MessengerStatus {
  const missing = MX_VARS.filter((name) => (env.get(name) ?? "").trim() === "");
  const allowlist_size = parseAllowlist(env.get("MX_ALLOWLIST")).length;
  if (missing.length > 0) return { state: "dormant", missing, allowlist_size };
  if (!probe) {
    return {
      state: "error",
      missing: [],
      allowlist_size,
      detail: "all MX_* variables are set but the Matrix bot is not running",
    };
  }
  return {
    state: probe.state,
    missing: [],
    allowlist_size,
    ...(probe.detail === undefined ? {} : { detail: probe.detail }),
    ...(probe.next_retry_at === undefined ? {} : { next_retry_at: probe.next_retry_at }),
    ...(probe.last_sync_at === undefined ? {} : { last_sync_at: probe.last_sync_at }),
  };
}

/** Reads VAPID_PRIVATE_KEY_FILE and derives the public key (cached per file path and mtime). */
export class PushKeys {
  readonly #env: Env;
  #cache: { key: string; value: { public_key: string } | { error: string } } | null = null;

  constructor(env: Env) {
    this.#env = env;
  }

  status(store: Pick<Store, "listPushSubscriptions">): PushStatus {
    const devices = store.listPushSubscriptions().length;
    const path = (this.#env.get("VAPID_PRIVATE_KEY_FILE") ?? "").trim();
    if (path === "") return { state: "dormant", devices, missing: ["VAPID_PRIVATE_KEY_FILE"] };
    const derived = this.#derive(path);
    if ("error" in derived) return { state: "error", devices, missing: [], detail: derived.error };
    return { state: "ok", public_key: derived.public_key, devices, missing: [] };
  }

  #derive(path: string): { public_key: string } | { error: string } {
    let stamp: string;
    try {
      const st = Deno.statSync(path);
      stamp = `${path}:${st.mtime?.getTime()}:${st.size}`;
    } catch (err) {
      return { error: `VAPID_PRIVATE_KEY_FILE ${path} cannot be read: ${(err as Error).message}` };
    }
    if (this.#cache?.key === stamp) return this.#cache.value;
    let value: { public_key: string } | { error: string };
    try {
      value = { public_key: vapidPublicKey(Deno.readTextFileSync(path)) };
    } catch (err) {
      value = { error: `VAPID_PRIVATE_KEY_FILE ${path}: ${(err as Error).message}` };
    }
    this.#cache = { key: stamp, value };
    return value;
  }
}

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

function fromB64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(
    atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)),
    (c) => c.charCodeAt(0),
  );
}

/**
 * The uncompressed P-256 public key (base64url, 65 bytes) for a VAPID private key given as
 * PEM (PKCS#8 or SEC1) or as the raw 32-byte scalar in base64url (web-push's format).
 */
export function vapidPublicKey(secret: string): string {
  const text = secret.trim();
  if (text.startsWith("-----BEGIN")) {
    const jwk = createPrivateKey(text).export({ format: "jwk" });
    if (jwk.kty !== "EC" || jwk.crv !== "P-256" || !jwk.x || !jwk.y) {
      throw new Error("the PEM key is not a P-256 (prime256v1) EC key");
    }
    const x = fromB64url(jwk.x);
    const y = fromB64url(jwk.y);
    return b64url(Uint8Array.from([4, ...x, ...y]));
  }
  if (!/^[A-Za-z0-9_-]{42,44}={0,2}$/.test(text)) {
    throw new Error("expected a PEM EC key or a base64url 32-byte private key");
  }
  const raw = fromB64url(text.replace(/=+$/, ""));
  if (raw.length !== 32) throw new Error(`the private key is ${raw.length} bytes, expected 32`);
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(raw);
  return b64url(new Uint8Array(ecdh.getPublicKey()));
}
