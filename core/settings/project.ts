// Where the settings files live: the agent home (global file) and the project file found
// by walking up from the working directory.

import { dirname, join, resolve } from "../path.ts";
import { SettingsError } from "./errors.ts";
import type { Env } from "../ports.ts";

export const SETTINGS_FILE_NAME = "settings.toml";
export const PROJECT_DIR_NAME = ".agent";

/** AGENT_HOME, else ~/.agent. */
export function agentHome(env: Env): string {
  const explicit = env.get("AGENT_HOME")?.trim();
  if (explicit) return resolve(explicit);
  const home = env.get("HOME")?.trim() || env.get("USERPROFILE")?.trim();
  if (!home) {
    throw new SettingsError(
      "Cannot locate the agent home: neither AGENT_HOME nor HOME is set. Set AGENT_HOME to a directory.",
    );
  }
  return join(home, PROJECT_DIR_NAME);
}

export function globalSettingsPath(home: string): string {
  return join(home, SETTINGS_FILE_NAME);
}

/** The canonical path, or the lexical one for a path that does not exist (yet). */
function real(p: string): string {
  try {
    return Deno.realPathSync(p);
  } catch (err) {
    // A refused home read as its lexical path would no longer match a symlinked spelling of
    // it, and the global file would be read a second time as a project file.
    absent(p, err);
    return resolve(p);
  }
}

function present(p: string): boolean {
  try {
    Deno.statSync(p);
    return true;
  } catch (err) {
    return absent(p, err);
  }
}

/** A missing path reads as absent; a refusal stops with a SettingsError naming it. */
function absent(p: string, err: unknown): false {
  if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
    return false;
  }
  throw new SettingsError(`cannot look for settings at ${p}: ${(err as Error).message ?? err}`);
}

/**
 * The project settings file: `<dir>/.agent/settings.toml` for the nearest `dir` at or above
 * `cwd` that has one. The walk stops after the git root (a directory holding `.git`, file
 * or folder, so worktrees count) or at the filesystem root. An `.agent` directory that is the
 * agent home itself is never a project (a cwd under ~ would otherwise read the global file
 * twice).
 */
export function findProjectSettingsFile(cwd: string, home: string): string | undefined {
  const homeReal = real(home);
  let dir = resolve(cwd);
  for (;;) {
    const agentDir = join(dir, PROJECT_DIR_NAME);
    const candidate = join(agentDir, SETTINGS_FILE_NAME);
    // Whatever is there counts (a FIFO too): the reader skips a non-file with a warning
    // rather than the walk passing it by for a parent project's file.
    if (present(candidate) && real(agentDir) !== homeReal) return candidate;
    if (exists(join(dir, ".git"))) return undefined;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function exists(p: string): boolean {
  try {
    Deno.lstatSync(p);
    return true;
  } catch (err) {
    return absent(p, err);
  }
}
