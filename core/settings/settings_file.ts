// Writing the global settings file: read the current file fresh, apply one change, write it
// back atomically (temp file in the same directory, fsync, rename) with mode 0600. Another
// provider's key or any other setting is never dropped; comments may be. A file that does
// not parse is never overwritten.

import { stringify } from "smol-toml";
import { dirname, join } from "../path.ts";
import { SettingsError, tomlSyntaxError } from "./errors.ts";
import { PRESET_ID_PATTERN } from "./presets.ts";
import { globalSettingsPath } from "./project.ts";
import { parseSettingsText } from "./toml_file.ts";

/** The parsed file as smol-toml returns it (tables have a null prototype). */
export type TomlDoc = Record<string, unknown>;

// Writers in this process queue per file so two quick updates cannot read the same old file.
const queues = new Map<string, Promise<unknown>>();

async function writeAtomically(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `.settings.toml.${crypto.randomUUID()}.tmp`);
  try {
    const file = await Deno.open(tmp, { write: true, createNew: true, mode: 0o600 });
    try {
      await file.write(new TextEncoder().encode(text));
      await file.syncData();
    } finally {
      file.close();
    }
    await Deno.chmod(tmp, 0o600); // the umask may have narrowed it; never widen beyond 0600
    await Deno.rename(tmp, path);
  } catch (err) {
    await Deno.remove(tmp).catch(() => {});
    const msg = err instanceof Error ? err.message : String(err);
    throw new SettingsError(`Could not write ${path}: ${msg}. The previous file is unchanged.`, {
      file: path,
    }, { cause: err });
  }
}

async function updateOnce<T>(path: string, mutate: (doc: TomlDoc) => T): Promise<T> {
  let text: string | undefined;
  try {
    text = await Deno.readTextFile(path);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw tomlSyntaxError(path, err, true);
  }
  // Big integers stay exact and dates stay TomlDate, so the rewrite loses no value.
  const doc: TomlDoc = text === undefined ? {} : parseSettingsText(path, text, true);
  const result = mutate(doc);
  const out = stringify(doc);
  await writeAtomically(path, out);
  return result;
}

/**
 * Read-merge-write of `<home>/settings.toml`. `mutate` edits the freshly parsed document in
 * place (and may throw to abort without writing); its return value is passed through.
 */
export function updateGlobalSettings<T>(home: string, mutate: (doc: TomlDoc) => T): Promise<T> {
  const path = globalSettingsPath(home);
  const previous = queues.get(path) ?? Promise.resolve();
  const run = previous.then(() => updateOnce(path, mutate));
  const settled = run.then(() => {}, () => {});
  queues.set(path, settled);
  settled.then(() => {
    if (queues.get(path) === settled) queues.delete(path);
  });
  return run;
}

/**
 * The table `doc[key]`, created empty when absent. Any other value refuses the write: the
 * file is left as the person wrote it rather than silently replacing their setting.
 */
export function tableAt(doc: TomlDoc, key: string, path: string): Record<string, unknown> {
  const v = doc[key];
  if (v === undefined) {
    const fresh: Record<string, unknown> = {};
    doc[key] = fresh;
    return fresh;
  }
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new SettingsError(
      `Refusing to write ${path}: ${key} is not a table. Fix it by hand; the file was left untouched.`,
      { key, file: path },
    );
  }
  return v as Record<string, unknown>;
}

/** Stores provider_keys[<providerId>] = key, keeping every other key and setting. */
export function setProviderKey(home: string, providerId: string, key: string): Promise<void> {
  const path = globalSettingsPath(home);
  if (!PRESET_ID_PATTERN.test(providerId)) {
    return Promise.reject(
      new SettingsError(
        `Provider id ${
          JSON.stringify(providerId)
        } is not valid: use letters, digits, '.', '_' or '-'.`,
        { key: "provider_keys", file: path },
      ),
    );
  }
  const clean = key.trim();
  if (clean === "" || /\s/.test(clean)) {
    return Promise.reject(
      new SettingsError(
        `The API key for ${providerId} is empty or contains whitespace; paste the key alone.`,
        { key: `provider_keys.${providerId}`, file: path },
      ),
    );
  }
  return updateGlobalSettings(home, (doc) => {
    tableAt(doc, "provider_keys", path)[providerId] = clean;
  });
}

/** Adds or removes a model id in model_favorites; resolves to true when it is now a favorite. */
export function toggleFavorite(home: string, modelId: string): Promise<boolean> {
  const path = globalSettingsPath(home);
  const id = modelId.trim();
  if (id === "") {
    return Promise.reject(
      new SettingsError("Cannot favorite an empty model id.", { key: "model_favorites" }),
    );
  }
  return updateGlobalSettings(home, (doc) => {
    const current = doc.model_favorites ?? [];
    if (!Array.isArray(current)) {
      throw new SettingsError(
        `Refusing to write ${path}: model_favorites is not a list. Fix it by hand; the file was left untouched.`,
        { key: "model_favorites", file: path },
      );
    }
    const at = current.indexOf(id);
    if (at >= 0) current.splice(at, 1);
    else current.push(id);
    doc.model_favorites = current;
    return at < 0;
  });
}
