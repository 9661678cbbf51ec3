// The environment a sandboxed command gets: built from an allowlist, never from the agent's own
// environment minus a denylist, so a key under a name nobody thought of cannot slip through.

import { HOSTED_CHAT_KEY_ENV, HOSTED_MESSAGES_KEY_ENV, SHARED_KEY_ENV } from "../settings/keys.ts";

/** The agent's own model keys: nothing the model runs may see them, whatever the settings say. */
export const MODEL_KEY_VARS: readonly string[] = [
  HOSTED_MESSAGES_KEY_ENV,
  HOSTED_CHAT_KEY_ENV,
  SHARED_KEY_ENV,
];

/** Passed through from the agent's environment when set (spec of issue 14: the allowlist). */
export const BASE_ENV_VARS: readonly string[] = ["PATH", "LANG", "LC_ALL", "TERM", "TZ"];

/** What every sandboxed command sees as HOME and TMPDIR (a fresh tmpfs per call). */
export const SANDBOX_HOME = "/tmp/home";
export const SANDBOX_TMP = "/tmp";

/** A `sandbox_env` entry that names a model key: refused, never silently passed. */
export function forbiddenPassEnv(names: readonly string[]): string[] {
  return names.filter((n) => MODEL_KEY_VARS.includes(n));
}

/**
 * The allowlisted environment: PATH, LANG, LC_ALL, TERM, TZ and the operator's `sandbox_env`
 * names when set in `host`, HOME and TMPDIR pointing into the sandbox's scratch tmpfs. The
 * model keys are never included, even when listed (openSandbox refuses such a list first).
 */
export function sandboxEnv(
  host: Readonly<Record<string, string>>,
  passEnv: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of [...BASE_ENV_VARS, ...passEnv]) {
    const value = host[name];
    if (value !== undefined && !MODEL_KEY_VARS.includes(name)) out[name] = value;
  }
  if (out.PATH === undefined) out.PATH = "/usr/local/bin:/usr/bin:/bin";
  out.HOME = SANDBOX_HOME;
  out.TMPDIR = SANDBOX_TMP;
  return out;
}

/** With `sandbox = "off"`: the agent's environment minus its model keys (the old behaviour). */
export function withoutModelKeys(env: Readonly<Record<string, string>>): Record<string, string> {
  const out = { ...env };
  for (const name of MODEL_KEY_VARS) delete out[name];
  return out;
}
