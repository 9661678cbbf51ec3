// Which folders may be a run's workdir. The model reads and changes everything in its workdir
// (the sandbox binds it read-write; the file tools reach all of it), so a workdir that is, holds
// or lies inside what the agent protects hands that over: the agent home (keys, sessions, the
// outpost's store), the memory root, a settings file's folder, the user's $HOME, `/` or a system
// folder. This file is the one rule. Every door that takes a workdir calls acceptWorkdir (CLI
// --workdir and interactive start, resume, dashboard and machine-door jobs, recipes, chat `run`),
// and the sandbox refuses to bind one that fails it (docs/sandbox.md, "Which workdirs").
//
// Paths are compared after canonicalization (symlinks resolved), for the workdir and for each
// protected place, so neither a symlink nor a `..` smuggles one in. The lexical spelling is
// checked first too, so `/proc/self` is refused without looking at /proc at all.

import { dirname, join, normalize } from "./path.ts";
import { nearestRealPath } from "./nearest_real_path.ts";

/** Folders of the system itself: a workdir may be none of them nor lie inside one. */
export const SYSTEM_FOLDERS: readonly string[] = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/proc",
  "/run",
  "/sbin",
  "/sys",
  "/usr",
  "/var",
  // macOS spells some of them under /private (its /etc and /var are symlinks there).
  "/private/etc",
  "/private/var",
  "/System",
  "/Library",
];

/** Temp areas under a system folder where scratch workdirs are ordinary. */
const TEMP_UNDER_SYSTEM: readonly string[] = ["/var/tmp", "/var/folders", "/private/var/folders"];

/** The outpost's chat workspaces live here under the agent home by default (see below). */
export const HOME_WORKSPACES_FOLDER = "workspaces";

/** What the agent protects; paths as configured (canonicalized here). */
export interface ProtectedPlaces {
  /** AGENT_HOME or ~/.agent. */
  agentHome: string;
  /** The memory_dir setting, when known at this door. */
  memoryRoot?: string;
  /** Settings files (the global one; its folder is protected). */
  settingsFiles?: readonly string[];
  /** The user's $HOME: refused as a workdir itself (and anything holding it). */
  userHome?: string;
  /**
   * Folders under a system folder that the operator opened for workdirs (AGENT_WORKDIR_ROOTS,
   * workdirRootsFrom): a CI server's checkouts under /var/lib/jenkins/workspace, say. A workdir
   * strictly inside one passes the system-folder rule; every other rule still applies.
   */
  openedRoots?: readonly string[];
}

/** The environment variable that names the opened roots, colon-separated like PATH. */
export const WORKDIR_ROOTS_ENV = "AGENT_WORKDIR_ROOTS";

/**
 * The opened roots from the environment (only the operator's environment: no settings file, so
 * nothing a model can write in a workdir, opens one). Each must be absolute and not `/`.
 */
export function workdirRootsFrom(value: string | undefined): string[] {
  const roots = (value ?? "").split(":").map((r) => r.trim()).filter((r) => r !== "");
  for (const root of roots) {
    if (!root.startsWith("/") || normalize(root) === "/") {
      throw new Error(
        `${WORKDIR_ROOTS_ENV}: "${root}" must be an absolute folder other than / ` +
          `(colon-separated, e.g. /var/lib/jenkins/workspace)`,
      );
    }
  }
  return roots.map(normalize);
}

/** A workdir a door refuses; `message` is one line saying why and what to do. */
export class WorkdirRefusedError extends Error {
  override name = "WorkdirRefusedError";
  constructor(readonly workdir: string, readonly reason: string) {
    super(`workdir ${workdir} ${reason}`);
  }
}

const CHOOSE = "choose a project folder of its own";

/**
 * Checks a workdir at a door: it must exist, be a directory, and pass workdirRefusal both as
 * spelled and canonical. Returns the canonical path (what the run will use).
 */
export async function acceptWorkdir(path: string, places: ProtectedPlaces): Promise<string> {
  if (!path.startsWith("/")) throw new WorkdirRefusedError(path, "is not an absolute path");
  const lexical = normalize(path);
  const early = workdirRefusal(lexical, lexicalPlaces(places));
  if (early !== null) throw new WorkdirRefusedError(path, early);
  let real: string;
  try {
    real = await Deno.realPath(lexical);
  } catch (err) {
    throw new WorkdirRefusedError(path, unreadable(err));
  }
  let info: Deno.FileInfo;
  try {
    info = await Deno.stat(real);
  } catch (err) {
    throw new WorkdirRefusedError(path, unreadable(err));
  }
  if (!info.isDirectory) throw new WorkdirRefusedError(path, "is not a directory");
  const refusal = workdirRefusal(real, canonicalPlaces(places));
  if (refusal !== null) {
    throw new WorkdirRefusedError(
      path,
      real === lexical ? refusal : `resolves to ${real}, which ${refusal}`,
    );
  }
  return real;
}

/** The door's own wording for "cannot be used", kept apart from the protection rule. */
function unreadable(err: unknown): string {
  if (err instanceof Deno.errors.NotFound) {
    return "does not exist; create it (or mount it) first";
  }
  if (err instanceof Deno.errors.NotADirectory) return "is not a directory";
  if (err instanceof Deno.errors.PermissionDenied || err instanceof Deno.errors.NotCapable) {
    return `cannot be read by this process (${err.message})`;
  }
  throw err;
}

/**
 * Why `workdir` (absolute, normalized; canonical when `places` are) may not be a workdir, or
 * null. Pure: compares paths, never touches the disk.
 */
export function workdirRefusal(workdir: string, places: ProtectedPlaces): string | null {
  if (workdir === "/") return "is the filesystem root: it holds every protected folder; " + CHOOSE;
  for (const sys of SYSTEM_FOLDERS) {
    if (!within(workdir, sys)) continue;
    const opened = [...TEMP_UNDER_SYSTEM, ...(places.openedRoots ?? [])];
    if (opened.some((t) => within(workdir, t) && workdir !== t)) break;
    return `is a system folder (${sys}); ${CHOOSE}`;
  }
  const user = places.userHome;
  if (user && user !== "/" && workdir === user) {
    return `is your home folder: every file in it (~/.ssh, credentials) would be the model's; ` +
      `choose a project folder inside it instead`;
  }
  const home = places.agentHome;
  const workspaces = join(home, HOME_WORKSPACES_FOLDER);
  // The outpost's chat workspaces default to <agent home>/workspaces/<name>: only that folder
  // is bound into the sandbox, so each one below it is an ordinary project folder.
  const aWorkspace = within(workdir, workspaces) && workdir !== workspaces;
  const guarded: [string, string][] = [
    [home, "the agent home (keys, sessions, the outpost's data)"],
    ...(places.memoryRoot ? [[places.memoryRoot, "the memory root"] as [string, string]] : []),
    ...(places.settingsFiles ?? []).map((f): [string, string] => [
      dirname(f),
      `the folder of the settings file ${f}`,
    ]),
  ];
  for (const [place, what] of guarded) {
    if (within(place, workdir)) {
      return workdir === place ? `is ${what}; ${CHOOSE}` : `holds ${what} (${place}); ${CHOOSE}`;
    }
    if (within(workdir, place) && !(place === home && aWorkspace)) {
      return `lies inside ${what} (${place}); ${CHOOSE}`;
    }
  }
  if (user && user !== "/" && within(user, workdir)) {
    return `holds your home folder (${user}); ${CHOOSE}`;
  }
  return null;
}

/**
 * workdirRefusal for paths as configured: the workdir and each place canonicalized first (sync,
 * for the sandbox, which checks the workdir again before each bind).
 */
export function canonicalWorkdirRefusal(workdir: string, places: ProtectedPlaces): string | null {
  return workdirRefusal(nearestRealPath(normalize(workdir)), canonicalPlaces(places));
}

/** `path` equals `dir` or lies under it (both normalized, absolute). */
function within(path: string, dir: string): boolean {
  if (dir === "/") return true;
  return path === dir || path.startsWith(`${dir}/`);
}

function lexicalPlaces(p: ProtectedPlaces): ProtectedPlaces {
  return mapPlaces(p, normalize);
}

/** Each protected place as its real path (or its normalized spelling when it does not exist). */
function canonicalPlaces(p: ProtectedPlaces): ProtectedPlaces {
  return mapPlaces(p, (path) => nearestRealPath(normalize(path)));
}

function mapPlaces(p: ProtectedPlaces, f: (path: string) => string): ProtectedPlaces {
  return {
    agentHome: f(p.agentHome),
    ...(p.memoryRoot ? { memoryRoot: f(p.memoryRoot) } : {}),
    ...(p.settingsFiles ? { settingsFiles: p.settingsFiles.map(f) } : {}),
    ...(p.userHome ? { userHome: f(p.userHome) } : {}),
    ...(p.openedRoots ? { openedRoots: p.openedRoots.map(f) } : {}),
  };
}
