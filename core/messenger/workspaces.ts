// Chat `run <workspace>:` names a workspace, never a path: a folder directly under the
// workspaces root (AGENT_OUTPOST_WORKSPACES, default <home>/workspaces). `ask` is `run` in
// the ranger workspace, whose brief scopes the agent to the outpost's jobs, runs, schedules,
// alerts and inbox. The resolved folder is canonical and must stay inside the root.

import { join } from "node:path";
import type { Env } from "../ports.ts";
import { RefusalError } from "./replies.ts";
import { acceptWorkdir, type ProtectedPlaces, WorkdirRefusedError } from "../workdir_policy.ts";

export const RANGER = "ranger";
export const WORKSPACES_ENV = "AGENT_OUTPOST_WORKSPACES";

export function workspacesRootFrom(env: Env, home: string): string {
  const raw = (env.get(WORKSPACES_ENV) ?? "").trim();
  return raw === "" ? join(home, "workspaces") : raw;
}

/**
 * The canonical folder of workspace `name`. Throws RefusalError when it is missing, or when it
 * fails the workdir rule of core/workdir_policy.ts (a workspaces root set to $HOME, say).
 */
export async function resolveWorkspace(
  root: string,
  name: string,
  places: ProtectedPlaces,
): Promise<string> {
  const where = join(root, name);
  let real: string;
  let realRoot: string;
  try {
    realRoot = await Deno.realPath(root);
    real = await Deno.realPath(where);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new RefusalError(
        "no_such_workspace",
        `there is no workspace ${JSON.stringify(name)}; create the folder ${where} on the ` +
          `outpost host`,
      );
    }
    throw err; // a refused permission is not a missing workspace
  }
  if (!real.startsWith(realRoot === "/" ? "/" : realRoot + "/") || real === realRoot) {
    throw new RefusalError(
      "no_such_workspace",
      `workspace ${JSON.stringify(name)} leads outside ${root}; it is refused`,
    );
  }
  const info = await Deno.stat(real);
  if (!info.isDirectory) {
    throw new RefusalError(
      "no_such_workspace",
      `workspace ${JSON.stringify(name)} is not a folder`,
    );
  }
  try {
    return await acceptWorkdir(real, places);
  } catch (err) {
    if (!(err instanceof WorkdirRefusedError)) throw err;
    throw new RefusalError("invalid", `workspace ${JSON.stringify(name)}: ${err.message}`);
  }
}
