// The per-server package cache of launcher-style stdio servers (core/mcp/launcher_spec.ts):
// `npx -y pkg`, `bunx pkg`, `uvx pkg`, `pipx run pkg`. The package is resolved to one version
// and installed once, outside the sandbox and with the network, under the agent home
// (<home>/mcp/packages/<server>/<version>-<stamp>/), and the server then runs its command from
// there, inside the sandbox, offline, with that directory bound read-only. `installed.json`
// beside it records what was asked (a changed command line installs again), the version it
// resolved to (shown by `agent mcp list`, part of the tool-list cache key) and what to run.
// Installing writes a new directory and then switches the record, so a failed or interrupted
// install leaves the previous one working. Nothing here runs on the way to a model request
// once a package is installed: reading the record is one small file.

import { dirname, join } from "../path.ts";
import { writeFileAtomic } from "../atomic_write.ts";
import { findOnPath } from "../sandbox/sandbox.ts";
import type { StdioServer } from "../settings/mcp_servers.ts";
import { installSpec, type LauncherPackage, launcherPackage } from "./launcher_spec.ts";

export interface InstalledPackage {
  /** What was asked (launcher, package, version asked, command): another ask installs again. */
  asked: string;
  ecosystem: LauncherPackage["ecosystem"];
  name: string;
  /** The version it resolved to when installed. */
  version: string;
  /** The executable to run, absolute. */
  command: string;
  /** Directories the server needs, bound read-only in the sandbox. */
  dirs: string[];
  installed_at: string;
}

/**
 * What an installer may take from the agent's environment beyond the server's own: how the user
 * reaches the registry (proxies, extra CA certificates, a mirror). Installing runs outside the
 * sandbox, as the user's own `npx` would; the server itself never gets these.
 */
const INSTALLER_ENV =
  /^(https?_proxy|all_proxy|no_proxy|node_extra_ca_certs|ssl_cert_file|ssl_cert_dir|requests_ca_bundle|pip_cert|pip_index_url|pip_extra_index_url|uv_index_url|uv_default_index|npm_config_.+)$/i;

/** The installer's environment: the server's (PATH, HOME, its env table) plus INSTALLER_ENV. */
export function installerEnv(
  serverEnv: Record<string, string>,
  agentEnv: Record<string, string>,
): Record<string, string> {
  const out = { ...serverEnv };
  for (const [name, value] of Object.entries(agentEnv)) {
    if (INSTALLER_ENV.test(name)) out[name] = value;
  }
  return out;
}

/** How long one install may take (a slow registry, a package that builds something). */
const INSTALL_TIMEOUT_MS = 5 * 60_000;
const RECORD = "installed.json";

export function serverPackageDir(home: string, server: string): string {
  return join(home, "mcp", "packages", server);
}

function asked(pkg: LauncherPackage): string {
  return JSON.stringify([pkg.launcher, pkg.name, pkg.requested, pkg.bin ?? null]);
}

/** The server's installed package, or null: not a launcher server, not installed, or re-asked. */
export async function readInstalled(
  home: string,
  server: StdioServer,
): Promise<InstalledPackage | null> {
  const pkg = launcherPackage(server.command, server.args);
  if (!pkg) return null;
  let text: string;
  try {
    text = await Deno.readTextFile(join(serverPackageDir(home, server.name), RECORD));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
  const record = JSON.parse(text) as InstalledPackage;
  return record.asked === asked(pkg) ? record : null;
}

/** One line: what is installed for the server, for `agent mcp list`. */
export function describeInstalled(record: InstalledPackage): string {
  return `${record.name}@${record.version} (${record.ecosystem}, installed ` +
    `${record.installed_at.slice(0, 10)} in ${dirname(dirname(record.command))})`;
}

/**
 * Resolves and installs the server's package (the newest version matching what it asks for),
 * then records it. Needs the network and the installer (npm; uv, or python3 with venv and pip).
 * Throws one line naming what failed, with the installer's last words.
 */
export async function installPackage(
  home: string,
  server: StdioServer,
  env: Record<string, string>,
): Promise<InstalledPackage> {
  const pkg = launcherPackage(server.command, server.args);
  if (!pkg) throw new Error(`${server.name} does not run through npx, bunx, uvx or pipx run`);
  const base = serverPackageDir(home, server.name);
  await Deno.mkdir(base, { recursive: true, mode: 0o700 });
  const dir = join(base, `v-${Date.now().toString(36)}`);
  try {
    const installed = pkg.ecosystem === "npm"
      ? await installNpm(pkg, dir, env)
      : await installPython(pkg, dir, env);
    const record: InstalledPackage = {
      asked: asked(pkg),
      ecosystem: pkg.ecosystem,
      name: pkg.name,
      ...installed,
      installed_at: new Date().toISOString(),
    };
    // The install the record pointed at until now stays: a session still running from it keeps
    // working; older ones go.
    const previous = await readPrevious(base);
    await writeFileAtomic(join(base, RECORD), JSON.stringify(record, null, 2) + "\n");
    await removeOthers(base, [dir, ...(previous ? [previous] : [])]);
    return record;
  } catch (err) {
    await Deno.remove(dir, { recursive: true }).catch(() => {}); // a half install is never used
    throw new Error(
      `installing ${installSpec(pkg, pkg.requested)} for MCP server ${server.name} failed: ` +
        (err instanceof Error ? err.message : String(err)),
    );
  }
}

async function installNpm(pkg: LauncherPackage, dir: string, env: Record<string, string>) {
  const npmEnv = { ...env, npm_config_update_notifier: "false", npm_config_fund: "false" };
  const viewed = await run("npm", ["view", installSpec(pkg, pkg.requested), "version", "--json"], {
    env: npmEnv,
    cwd: dirname(dir),
  });
  const parsed = JSON.parse(viewed) as string | string[];
  const version = Array.isArray(parsed) ? parsed.at(-1) : parsed;
  if (typeof version !== "string") {
    throw new Error(`npm found no version of ${pkg.name} matching "${pkg.requested}"`);
  }
  await Deno.mkdir(dir, { recursive: true });
  await run("npm", [
    "install",
    "--prefix",
    dir,
    "--no-audit",
    "--omit=dev",
    "--no-package-lock",
    installSpec(pkg, version),
  ], { env: npmEnv, cwd: dir });
  const manifest = JSON.parse(
    await Deno.readTextFile(join(dir, "node_modules", pkg.name, "package.json")),
  ) as { bin?: string | Record<string, string> };
  const bin = npmBin(pkg, manifest.bin);
  return { version, command: join(dir, "node_modules", ".bin", bin), dirs: [dir] };
}

/** The command npx would run: the one named, the only one, or the one named like the package. */
function npmBin(pkg: LauncherPackage, bin: string | Record<string, string> | undefined): string {
  const plain = pkg.name.split("/").at(-1)!;
  if (typeof bin === "string") return plain;
  const names = Object.keys(bin ?? {});
  const wanted = pkg.bin ?? (names.length === 1 ? names[0] : plain);
  if (wanted && names.includes(wanted)) return wanted;
  throw new Error(
    `${pkg.name} has ${names.length === 0 ? "no command" : `the commands ${names.join(", ")}`}` +
      `${pkg.bin ? `, not ${pkg.bin}` : ""}; name one with npx -p ${pkg.name} COMMAND`,
  );
}

async function installPython(pkg: LauncherPackage, dir: string, env: Record<string, string>) {
  const python = join(dir, "bin", "python");
  const spec = installSpec(pkg, pkg.requested);
  if (findOnPath("uv", env.PATH ?? "") !== null) {
    await run("uv", ["venv", "--quiet", dir], { env, cwd: dirname(dir) });
    await run("uv", ["pip", "install", "--quiet", "--python", python, spec], { env, cwd: dir });
  } else {
    // The environment is made by the interpreter itself, not a link to it: python3 found through
    // a link (~/bin/python3, a temp folder) would leave the environment pointing through that
    // link, which the sandbox does not show.
    const real = (await run("python3", [
      "-c",
      "import os, sys; print(os.path.realpath(sys.executable))",
    ], { env, cwd: dirname(dir) })).trim();
    await run(real, ["-m", "venv", dir], { env, cwd: dirname(dir) });
    await run(python, ["-m", "pip", "install", "--quiet", spec], { env, cwd: dir });
  }
  const name = pkg.name.replace(/\[.*$/, "");
  const [version, basePrefix] = (await run(python, [
    "-c",
    `import importlib.metadata as m, sys; print(m.version(${JSON.stringify(name)})); ` +
    "print(sys.base_prefix)",
  ], { env, cwd: dir })).trim().split("\n").map((line) => line.trim());
  const command = join(dir, "bin", pkg.bin ?? name);
  // The environment's interpreter lives outside it: its installation (sys.base_prefix, the
  // interpreter and its library) is bound too. Not pyvenv.cfg's `home`: that is the folder the
  // interpreter was found in, possibly a folder of links (whose parent may be /tmp or $HOME).
  return { version: version!, command, dirs: [dir, ...(basePrefix ? [basePrefix] : [])] };
}

/** Runs an installer; its stdout, or an error with the last lines it wrote. */
async function run(
  program: string,
  args: string[],
  options: { env: Record<string, string>; cwd: string },
): Promise<string> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(program, {
      args,
      env: options.env,
      clearEnv: true,
      cwd: options.cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: AbortSignal.timeout(INSTALL_TIMEOUT_MS),
    }).output();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) throw new Error(`${program} is not on PATH`);
    throw err;
  }
  const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  if (out.success) return decode(out.stdout);
  const said = decode(out.stderr).trim().split("\n").slice(-3).join(" | ");
  throw new Error(`${program} ${args[0]} exited with ${out.code}${said ? `: ${said}` : ""}`);
}

/** The install directory the server's record points at now, if any. */
async function readPrevious(base: string): Promise<string | null> {
  try {
    const record = JSON.parse(await Deno.readTextFile(join(base, RECORD))) as InstalledPackage;
    return record.dirs[0] ?? null;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return null;
    throw err;
  }
}

/** Removes the server's install directories but `keep`. */
async function removeOthers(base: string, keep: string[]): Promise<void> {
  for await (const entry of Deno.readDir(base)) {
    const path = join(base, entry.name);
    if (entry.isDirectory && !keep.includes(path)) await Deno.remove(path, { recursive: true });
  }
}
