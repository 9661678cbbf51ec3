// The Linux sandbox: the bubblewrap (`bwrap`) command line that wraps one command. Everything
// the command may see is listed here; whatever is not listed does not exist inside.
//
//   new namespaces    user (when needed), pid, ipc, uts, cgroup, and net unless network is on
//   filesystem        an empty read-only root; the system directories read-only; a fresh /proc,
//                     /dev and /tmp; the workdir read-write; the agent's own files masked, and
//                     so is the workdir's `.agent/` folder (project settings: never the model's)
//   process           --die-with-parent, --new-session (no TIOCSTI into the operator's
//                     terminal), every capability dropped (root included)
//
// The plan is data (BubblewrapLayout) so the argv is a pure function and can be tested line by
// line; inspectLayout is the one part that looks at the disk.

import { SANDBOX_HOME, SANDBOX_TMP } from "./environment.ts";

/** What the model's commands may see of the system, read-only. Missing entries are skipped. */
export const SYSTEM_PATHS: readonly string[] = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/nix",
];

/** A system entry: a directory bound read-only, or a symlink recreated (merged-/usr systems). */
export type SystemEntry =
  | { path: string; kind: "dir" }
  | { path: string; kind: "symlink"; target: string };

/** A path the command must not see: a directory gets an empty read-only tmpfs, a file /dev/null. */
export interface HiddenPath {
  path: string;
  dir: boolean;
}

/** A host path bound read-only: `source` canonical, seen inside at `target` (and at `source`). */
export interface ReadPath {
  source: string;
  target: string;
}

export interface BubblewrapLayout {
  system: readonly SystemEntry[];
  /** Canonical workdir, bound read-write at its own path; null for the start-up probe. */
  workdir: string | null;
  /** The agent home, memory root, settings files and the real HOME, canonical, that exist. */
  hidden: readonly HiddenPath[];
  /** Files inside the workdir bound read-only over themselves (outside `projectMask`). */
  readOnly: readonly string[];
  /**
   * The workdir's `.agent` (canonical), masked after the workdir bind so no command reads or
   * changes the project's settings; null for the start-up probe. When it does not exist bwrap
   * creates it as the mount point (sandbox.ts removes it again when the run closes).
   */
  projectMask: HiddenPath | null;
  /** Checked host paths bound read-only after /tmp (an MCP server's read_paths). */
  readPaths: readonly ReadPath[];
  /** Agent-installed directories bound read-only after the masks (a launcher server's package). */
  installDirs?: readonly ReadPath[];
  /** true: share the host's network namespace (sandbox_network = on). */
  network: boolean;
  /** Extra files to bind read-only when the network is on (resolv.conf's real target). */
  networkFiles: readonly string[];
}

/** `path` equals `dir` or lies under it. */
export function isWithin(path: string, dir: string): boolean {
  if (dir === "/") return path.startsWith("/");
  return path === dir || path.startsWith(`${dir}/`);
}

function maskArgs(h: HiddenPath): string[] {
  return h.dir ? ["--tmpfs", h.path] : ["--ro-bind", "/dev/null", h.path];
}

/** The bwrap arguments (after the `bwrap` program itself) that run `argv` in `layout`. */
export function bubblewrapArgs(layout: BubblewrapLayout, argv: readonly string[]): string[] {
  const args = [
    "--unshare-all",
    ...(layout.network ? ["--share-net"] : []),
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
  ];
  for (const e of layout.system) {
    if (e.kind === "dir") args.push("--ro-bind", e.path, e.path);
    else args.push("--symlink", e.target, e.path);
  }
  if (layout.network) { for (const f of layout.networkFiles) args.push("--ro-bind", f, f); }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", SANDBOX_TMP, "--dir", SANDBOX_HOME);
  // After the fresh /tmp, so a tool installed under /tmp shows; before the workdir, so a workdir
  // inside a read path stays writable.
  for (const r of layout.readPaths) {
    for (const target of new Set([r.source, r.target])) args.push("--ro-bind", r.source, target);
  }
  const underSystem = (p: string) =>
    layout.system.some((e) => e.kind === "dir" && isWithin(p, e.path));
  const workdir = layout.workdir;
  const insideWorkdir = (p: string) => workdir !== null && p !== workdir && isWithin(p, workdir);
  // Masks over the system tree come before the workdir bind: a workdir inside a masked
  // directory is then mounted on top of the mask, and only it shows.
  const remount: string[] = [];
  for (const h of layout.hidden) {
    if (!underSystem(h.path)) continue;
    args.push(...maskArgs(h));
    if (h.dir) remount.push(h.path);
  }
  if (workdir !== null) args.push("--bind", workdir, workdir);
  for (const h of layout.hidden) {
    if (!insideWorkdir(h.path)) continue;
    args.push(...maskArgs(h));
    if (h.dir) remount.push(h.path);
  }
  const mask = layout.projectMask;
  if (mask !== null) {
    args.push(...maskArgs(mask));
    if (mask.dir) remount.push(mask.path);
  }
  for (const f of layout.readOnly) {
    if (insideWorkdir(f) && !(mask && isWithin(f, mask.path))) args.push("--ro-bind", f, f);
  }
  // A package the agent installed under its (masked) home shows at its own path, read-only.
  for (const r of layout.installDirs ?? []) {
    for (const target of new Set([r.source, r.target])) args.push("--ro-bind", r.source, target);
  }
  // Masks are read-only too (nothing lands in them), and so is the root that holds the mounts.
  for (const p of remount) args.push("--remount-ro", p);
  args.push("--remount-ro", "/", "--chdir", workdir ?? "/", "--", ...argv);
  return args;
}

/** What the agent knows it must hide, before canonicalizing (paths may not exist). */
export interface LayoutInput {
  workdir: string | null;
  network: boolean;
  hidden: readonly string[];
  readOnly: readonly string[];
  /** Already checked (sandbox.ts, confinedReadPaths). */
  readPaths?: readonly ReadPath[];
  /** Decided by sandbox.ts (projectMaskOf); null for the start-up probe. */
  projectMask?: HiddenPath | null;
}

/**
 * Looks at the disk once: which system directories exist (and which are symlinks), which
 * hidden paths exist and what they are, canonicalized so a symlinked agent home is hidden too.
 */
export function inspectLayout(input: LayoutInput): BubblewrapLayout {
  const system: SystemEntry[] = [];
  for (const path of SYSTEM_PATHS) {
    const info = lstatOrNull(path);
    if (!info) continue;
    if (info.isSymlink) system.push({ path, kind: "symlink", target: Deno.readLinkSync(path) });
    else if (info.isDirectory) system.push({ path, kind: "dir" });
  }
  const hidden: HiddenPath[] = [];
  const seen = new Set<string>();
  for (const raw of input.hidden) {
    for (const path of new Set([raw, realOrNull(raw) ?? raw])) {
      const info = statOrNull(path);
      if (!info || seen.has(path)) continue;
      seen.add(path);
      hidden.push({ path, dir: info.isDirectory });
    }
  }
  const readOnly = input.readOnly.map((p) => realOrNull(p)).filter((p): p is string => p !== null);
  const networkFiles: string[] = [];
  if (input.network) {
    // A resolv.conf that links out of /etc (systemd-resolved) needs its target for DNS.
    const resolv = realOrNull("/etc/resolv.conf");
    if (resolv && !isWithin(resolv, "/etc")) networkFiles.push(resolv);
  }
  return {
    system,
    workdir: input.workdir,
    hidden,
    readOnly,
    readPaths: input.readPaths ?? [],
    projectMask: input.projectMask ?? null,
    network: input.network,
    networkFiles,
  };
}

function lstatOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

function statOrNull(path: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw err;
  }
}

/** The canonical path, or null when it (or a parent) does not exist; other errors throw. */
export function realOrNull(path: string): string | null {
  try {
    return Deno.realPathSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw err;
  }
}
