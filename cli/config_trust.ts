// `agent config trust [FILE]`: records that the person trusts a project settings file as it is
// now (its SHA-256, in the global settings file's [project_trust] table). A project file that
// picks the endpoint (base_url, provider_preset, provider, model) is refused by headless runs
// and asked about by interactive ones until then; any later change to the file asks again
// (core/settings/project_trust.ts). FILE defaults to the project file found from here.

import { basename, dirname, resolve } from "../core/path.ts";
import { PROJECT_DIR_NAME, SETTINGS_FILE_NAME } from "../core/settings/project.ts";
import { readSettingsFile } from "../core/settings/toml_file.ts";
import {
  describeRouting,
  projectDigest,
  ROUTING_KEYS,
  trustProjectFile,
} from "../core/settings/project_trust.ts";
import type { Settings } from "../core/settings/types.ts";

export class TrustCommandError extends Error {
  override name = "TrustCommandError";
}

export async function trustCommand(
  file: string,
  here: Settings,
  home: string,
  cwd: string,
  out: (text: string) => void,
): Promise<number> {
  const path = file === "" ? here.files?.project : await canonicalProjectFile(resolve(cwd, file));
  if (path === undefined) {
    throw new TrustCommandError(
      `no project settings file (${PROJECT_DIR_NAME}/${SETTINGS_FILE_NAME}) here; ` +
        "name it: agent config trust FILE",
    );
  }
  const warnings: string[] = [];
  const loaded = readSettingsFile(path, warnings);
  if (!loaded) throw new TrustCommandError(warnings[0] ?? `${path} does not exist`);
  const routing: Record<string, string> = {};
  for (const key of ROUTING_KEYS) {
    if (loaded.table[key] !== undefined) routing[key] = String(loaded.table[key]);
  }
  const digest = await projectDigest(loaded.text);
  await trustProjectFile(home, path, digest);
  const what = Object.keys(routing).length > 0
    ? `it sets ${describeRouting(routing)}`
    : "it sets nothing that picks the endpoint";
  out(`trusted ${path} (${digest.slice(0, 19)}…): ${what}; a change to the file asks again\n`);
  return 0;
}

/** `<real dir>/.agent/settings.toml` for a path naming one; anything else is refused. */
async function canonicalProjectFile(path: string): Promise<string> {
  const dir = dirname(path);
  if (basename(path) !== SETTINGS_FILE_NAME || basename(dir) !== PROJECT_DIR_NAME) {
    throw new TrustCommandError(
      `${path} is not a project settings file (${PROJECT_DIR_NAME}/${SETTINGS_FILE_NAME})`,
    );
  }
  try {
    return `${await Deno.realPath(dir)}/${SETTINGS_FILE_NAME}`;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new TrustCommandError(`${path} does not exist`);
    throw err;
  }
}
