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

/** The longest path the badge and /api/push/status quote before cutting it short. */
const QUOTED_PATH_MAX = 120;

/**
 * How the badge and /api/push/status name the VAPID_PRIVATE_KEY_FILE value. An operator may
 * paste the key itself into the variable; the detail is shown on the dashboard and in the
 * API, so the value is quoted only when it is shaped like a path (starts with /, ./, ../ or
 * ~/; no whitespace; no PEM armour; not a bare base64 run that could be a key) and then cut
 * at QUOTED_PATH_MAX. Anything else is described, never echoed.
 */
export function describeKeyFileValue(value: string): string {
  const pathShaped = /^(\/|\.{1,2}\/|~\/)/.test(value) &&
    !/[\s\p{Cc}]/u.test(value) &&
    !value.includes("-----") &&
    !/^[A-Za-z0-9+/_=-]{40,}$/.test(value);
  if (!pathShaped) {
    return `${VAPID_FILE_VAR} (its value is not a file path; put the key in a file and name the file)`;
  }
  const shown = value.length > QUOTED_PATH_MAX ? `${value.slice(0, QUOTED_PATH_MAX)}…` : value;
  return `${VAPID_FILE_VAR} ${shown}`;
}

/**
 * Why a file operation failed, by error class only: Deno's OS error messages quote the path,
 * which may be the key itself (see describeKeyFileValue).
 */
function fileFailure(err: unknown): string {
  if (err instanceof Deno.errors.NotFound) return "no such file";
  if (err instanceof Deno.errors.PermissionDenied) return "permission denied";
  if (err instanceof Deno.errors.IsADirectory) return "it is a directory";
  if (err instanceof Deno.errors.InvalidData) return "it is not UTF-8 text";
  return err instanceof Error ? err.name : "unknown error";
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
        detail: `${describeKeyFileValue(path)} cannot be read: ${fileFailure(err)}`,
      };
    }
    if (this.#cache?.stamp === stamp) return this.#cache.state;
    let state: VapidState;
    let text: string;
    try {
      text = Deno.readTextFileSync(path);
    } catch (err) {
      // Not cached: a file that is unreadable now may be fixed without touching its mtime.
      return {
        state: "error",
        detail: `${describeKeyFileValue(path)} cannot be read: ${fileFailure(err)}`,
      };
    }
    try {
      // vapidKeyPair's messages say what was wrong, never the key text.
      state = { state: "ok", keys: { subject, ...vapidKeyPair(text) } };
    } catch (err) {
      state = {
        state: "error",
        detail: `${describeKeyFileValue(path)}: ${(err as Error).message}`,
      };
    }
    this.#cache = { stamp, state };
    return state;
  }
}
