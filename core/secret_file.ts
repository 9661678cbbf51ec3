// A per-install secret kept in a private file (mode 0600), minted on first use and then only
// read: the CSRF token (server/http/csrf.ts) and the trigger key of recipe webhooks
// (core/recipes/trigger_secret.ts). Two processes starting at once agree on one value.

import { dirname } from "node:path";
import { makePrivateDir } from "./private_files.ts";

/** 32 random bytes as base64url (43 characters). */
export function mintSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "");
}

/**
 * The trimmed content of `path`, minting and writing it first when the file does not exist.
 * The value is written whole to a private temp file, then hard-linked into place: a link
 * fails when the name exists, so concurrent starts agree on whichever value landed first and
 * no reader ever sees a created-but-not-yet-written file. Other read errors are thrown.
 */
export async function loadOrCreateSecretFile(
  path: string,
  mint: () => string = mintSecret,
): Promise<string> {
  const read = async (): Promise<string | null> => {
    try {
      return (await Deno.readTextFile(path)).trim();
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  };
  const existing = await read();
  if (existing !== null) return existing;
  await makePrivateDir(dirname(path));
  const fresh = mint();
  const tmp = `${path}.tmp-${crypto.randomUUID().slice(0, 8)}`;
  try {
    await Deno.writeTextFile(tmp, fresh + "\n", { createNew: true, mode: 0o600 });
    await Deno.link(tmp, path);
    return fresh;
  } catch (err) {
    if (!(err instanceof Deno.errors.AlreadyExists)) throw err;
    const won = await read();
    if (won === null) throw new Error(`${path} vanished while it was being created`);
    return won;
  } finally {
    await Deno.remove(tmp).catch(() => {});
  }
}
