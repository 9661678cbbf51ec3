// Machine-door bearer tokens: created and revoked from the command line, shown once, stored
// only as a SHA-256 hash (a database leak reveals no usable token). Tokens are long random
// strings, so an unsalted fast hash is enough: there is nothing to brute-force.

import { createHash } from "node:crypto";

/** Recognisable prefix, so a leaked token is easy to grep for and to attribute. */
export const TOKEN_PREFIX = "aop_";
const TOKEN_RE = /^aop_[A-Za-z0-9_-]{43}$/;

/** A fresh token: aop_ + 32 random bytes in base64url. */
export function generateMachineToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
  return TOKEN_PREFIX + b64;
}

/** Lower-case hex SHA-256 of the token text. */
export function hashMachineToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** Cheap shape check before hashing (refuses junk without a store lookup). */
export function looksLikeMachineToken(text: string): boolean {
  return TOKEN_RE.test(text);
}
