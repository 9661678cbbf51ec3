// VAPID keys of the push lane (spec 5.5): the private key is a file secret named by
// VAPID_PRIVATE_KEY_FILE (the variable never holds the key itself); the public key is
// derived from it on demand; VAPID_SUBJECT is the contact URI (RFC 8292 `sub`). The file is
// re-read when its mtime or size changes, so a rotated key needs no restart.

import { createECDH, createPrivateKey } from "node:crypto";
import type { Env } from "../ports.ts";

export const VAPID_FILE_VAR = "VAPID_PRIVATE_KEY_FILE";
export const VAPID_SUBJECT_VAR = "VAPID_SUBJECT";

/** What web-push needs: base64url raw keys (32-byte private scalar, 65-byte public point). */
export interface VapidKeys {
  subject: string;
  publicKey: string;
  privateKey: string;
}

export type VapidState =
  | { state: "dormant"; missing: string[] }
  | { state: "ok"; keys: VapidKeys }
  | { state: "error"; detail: string };

function b64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

function fromB64url(text: string): Uint8Array {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(
    atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)),
    (c) => c.charCodeAt(0),
  );
}

/**
 * The raw key pair for a VAPID private key given as PEM (PKCS#8 or SEC1, P-256) or as the
 * raw 32-byte scalar in base64url (web-push's format). Throws with what was wrong, never
 * with the key text.
 */
export function vapidKeyPair(secret: string): { publicKey: string; privateKey: string } {
  const text = secret.trim();
  let raw: Uint8Array;
  if (text.startsWith("-----BEGIN")) {
    let jwk: { kty?: string | undefined; crv?: string | undefined; d?: string | undefined };
    try {
      jwk = createPrivateKey(text).export({ format: "jwk" });
    } catch {
      throw new Error("the PEM block is not a readable private key");
    }
    if (jwk.kty !== "EC" || jwk.crv !== "P-256" || !jwk.d) {
      throw new Error("the PEM key is not a P-256 (prime256v1) EC key");
    }
    raw = fromB64url(jwk.d);
  } else {
    if (!/^[A-Za-z0-9_-]{42,44}={0,2}$/.test(text)) {
      throw new Error("expected a PEM EC key or a base64url 32-byte private key");
    }
    raw = fromB64url(text.replace(/=+$/, ""));
  }
  if (raw.length !== 32) throw new Error(`the private key is ${raw.length} bytes, expected 32`);
  const ecdh = createECDH("prime256v1");
  ecdh.setPrivateKey(raw);
  return { publicKey: b64url(new Uint8Array(ecdh.getPublicKey())), privateKey: b64url(raw) };
}

/** The uncompressed P-256 public key (base64url, 65 bytes) of a VAPID private key. */
export function vapidPublicKey(secret: string): string {
  return vapidKeyPair(secret).publicKey;
}

/**
 * VAPID_SUBJECT, or the default mailto of the operator at the dashboard's host. A value that
 * is neither a mailto: with an address nor an https: URL is an error (push services refuse
 * it, so better said on the badge than in every send).
 */
export function vapidSubject(env: Env, baseUrl: string): string {
  const set = (env.get(VAPID_SUBJECT_VAR) ?? "").trim();
  if (set === "") {
    let host = "localhost";
    try {
      host = new URL(baseUrl).hostname.replace(/^\[|\]$/g, "") || host;
    } catch { /* a malformed base URL is reported where it is used; the default stays */ }
    return `mailto:operator@${host}`;
  }
  if (/^mailto:[^@\s]+@[^@\s]+$/.test(set)) return set;
  if (/^https:\/\/[^\s]+$/.test(set) && URL.canParse(set)) return set;
  throw new Error(`${VAPID_SUBJECT_VAR} must be a mailto: address or an https: URL`);
}

/** Reads the key file when it changed (mtime, size) and keeps the derived keys. */
export class VapidKeyFile {
  readonly #env: Env;
  readonly #baseUrl: string;
  #cache: { stamp: string; state: VapidState } | null = null;

  constructor(env: Env, baseUrl: string) {
    this.#env = env;
    this.#baseUrl = baseUrl;
  }

  /** True when VAPID_PRIVATE_KEY_FILE is set at all (the lane is not dormant). */
  get configured(): boolean {
    return (this.#env.get(VAPID_FILE_VAR) ?? "").trim() !== "";
  }

  load(): VapidState {
    const path = (this.#env.get(VAPID_FILE_VAR) ?? "").trim();
    if (path === "") return { state: "dormant", missing: [VAPID_FILE_VAR] };
    let subject: string;
    try {
      subject = vapidSubject(this.#env, this.#baseUrl);
    } catch (err) {
      return { state: "error", detail: (err as Error).message };
    }
    let stamp: string;
    try {
      const st = Deno.statSync(path);
      stamp = `${path}:${st.mtime?.getTime()}:${st.size}:${subject}`;
    } catch (err) {
      return {
        state: "error",
        detail: `${VAPID_FILE_VAR} ${path} cannot be read: ${(err as Error).message}`,
      };
    }
    if (this.#cache?.stamp === stamp) return this.#cache.state;
    let state: VapidState;
    try {
      state = { state: "ok", keys: { subject, ...vapidKeyPair(Deno.readTextFileSync(path)) } };
    } catch (err) {
      state = { state: "error", detail: `${VAPID_FILE_VAR} ${path}: ${(err as Error).message}` };
    }
    this.#cache = { stamp, state };
    return state;
  }
}
