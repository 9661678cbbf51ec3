// What to change when a sandboxed stdio server did not start: the failure line of
// core/mcp/manager.ts gets the fix, in the words of the settings file. Two causes are common
// and say little by themselves: a command or script installed outside what the sandbox shows
// (`bwrap: execvp …: No such file or directory`, node's "Cannot find module"), whose fix is a
// `read_paths` line naming the directories to bind; and a server that reached for the network,
// which the sandbox closes, whose fix is `network = true` (global settings file only).
// Nothing here runs on the way to a model request: only after a start has failed.

import { dirname, isAbsolute, join } from "../path.ts";
import { isWithin, SYSTEM_PATHS } from "../sandbox/bubblewrap.ts";
import type { StdioServer } from "../settings/mcp_servers.ts";

/**
 * What a hint reads of a spawned server's launch (launch.ts's LaunchedCommand fits it; named here
 * so this module does not import launch.ts, which imports it).
 */
export interface LaunchedCommand {
  command: string;
  args: readonly string[];
  env: Readonly<Record<string, string>>;
  cwd: string;
  /** A launcher package's directories, which the sandbox binds (core/mcp/package_install.ts). */
  installDirs?: readonly string[];
}

/** stderr words of a DNS lookup or connection the sandbox's empty network refused. */
const NETWORK_TRIED =
  /EAI_AGAIN|ENOTFOUND|ENETUNREACH|EHOSTUNREACH|Network is unreachable|Temporary failure in name resolution|Could not resolve host|Name or service not known|getaddrinfo/i;

export interface HintInput {
  server: StdioServer;
  /** The server's spec before the sandbox wrapped it (what it means on the host). */
  spec: LaunchedCommand;
  workdir: string;
  /** Whether the server had the network. */
  network: boolean;
  /** What it wrote to stderr (bwrap's own complaint included). */
  stderr: string;
}

/** The fixes that apply, each one sentence; empty when none is known. */
export function sandboxHints(input: HintInput): string[] {
  const hints: string[] = [];
  const missing = invisiblePaths(input);
  if (missing.length > 0) {
    const paths = [...new Set([...input.server.read_paths, ...missing])];
    hints.push(
      `the sandbox does not show ${missing.join(", ")}: add ` +
        `read_paths = ${JSON.stringify(paths).replaceAll('","', '", "')} to ` +
        `[mcp_servers.${input.server.name}] in ${input.server.file}`,
    );
  }
  if (!input.network && NETWORK_TRIED.test(input.stderr)) {
    hints.push(
      input.server.scope === "global"
        ? `it tried the network, which its sandbox closes: add network = true to ` +
          `[mcp_servers.${input.server.name}] in ${input.server.file}`
        : `it tried the network, which its sandbox closes; network = true is honoured only ` +
          `for a server defined in the global settings file`,
    );
  }
  return hints;
}

/**
 * The directories to bind so the command and the absolute paths among its arguments show in
 * the sandbox: each one that exists on the host but lies outside the system directories, the
 * workdir and the server's read_paths (the sandbox's /tmp and HOME are its own, empty).
 */
function invisiblePaths({ server, spec, workdir }: HintInput): string[] {
  const visible = (path: string) =>
    SYSTEM_PATHS.some((root) => isWithin(path, root)) || isWithin(path, workdir) ||
    server.read_paths.some((root) => isWithin(path, root)) ||
    (spec.installDirs ?? []).some((root) => isWithin(path, root));
  const wanted: string[] = [];
  const command = resolveCommand(spec);
  if (command) wanted.push(command);
  // A script is run by its interpreter (a virtual environment's python, a node), which the
  // sandbox must show too, with its own library folder.
  const interpreter = command ? scriptInterpreter(command, spec) : null;
  if (interpreter) wanted.push(interpreter);
  for (const arg of spec.args) if (isAbsolute(arg) && exists(arg)) wanted.push(arg);
  const dirs: string[] = [];
  for (const path of wanted) {
    for (const seen of new Set([path, realPath(path)])) {
      if (visible(seen)) continue;
      const dir = installRoot(seen);
      if (!dirs.some((d) => isWithin(dir, d))) dirs.push(dir);
    }
  }
  return dirs;
}

/** The host path the command runs from: as written when it has a slash, else found on PATH. */
function resolveCommand(spec: LaunchedCommand, command = spec.command): string | null {
  if (command.includes("/")) {
    const path = isAbsolute(command) ? command : join(spec.cwd, command);
    return exists(path) ? path : null;
  }
  for (const dir of (spec.env.PATH ?? "").split(":")) {
    if (dir === "") continue;
    const path = join(dir, command);
    if (exists(path)) return path;
  }
  return null;
}

/** The interpreter a script's `#!` line names (through `/usr/bin/env NAME` too), if any. */
function scriptInterpreter(path: string, spec: LaunchedCommand): string | null {
  if (!Deno.statSync(path).isFile) return null;
  const file = Deno.openSync(path);
  const head = new Uint8Array(256);
  let read: number | null;
  try {
    read = file.readSync(head);
  } finally {
    file.close();
  }
  const line = new TextDecoder().decode(head.subarray(0, read ?? 0)).split("\n")[0]!;
  if (!line.startsWith("#!")) return null;
  const [program, first] = line.slice(2).trim().split(/\s+/);
  if (!program) return null;
  if (program.endsWith("/env") && first) return resolveCommand(spec, first);
  return exists(program) ? program : null;
}

/**
 * The directory to bind for a file: the folder holding its node_modules (a package and its
 * dependencies), a Python virtual environment's root, an installation prefix (`<prefix>/bin`
 * beside `<prefix>/lib`: an interpreter needs its library), or else the file's own directory.
 */
function installRoot(path: string): string {
  const nodeModules = path.indexOf("/node_modules/");
  if (nodeModules > 0) return path.slice(0, nodeModules);
  const dir = dirname(path);
  if (dir.endsWith("/bin") && exists(join(dirname(dir), "pyvenv.cfg"))) return dirname(dir);
  if (dir.endsWith("/bin") && exists(join(dirname(dir), "lib"))) return dirname(dir);
  return Deno.statSync(path).isDirectory ? path : dir;
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || err instanceof Deno.errors.NotADirectory) {
      return false;
    }
    throw err;
  }
}

function realPath(path: string): string {
  try {
    return Deno.realPathSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return path;
    throw err;
  }
}
