// Which package a launcher-style stdio server runs: `npx`, `bunx` (npm packages), `uvx` and
// `pipx run` (Python packages) each download a package and run one of its commands, which in the
// sandbox cannot work (no network, no cache, no HOME). The agent installs the package once,
// outside the sandbox, under its home (core/mcp/package_install.ts) and runs the command from
// there; this module only reads the server's command line: the package, the version asked for,
// the command to run from it and the server's own arguments. Pure: no disk, no network.

export type Ecosystem = "npm" | "pypi";

export interface LauncherPackage {
  ecosystem: Ecosystem;
  /** The launcher as written (npx, bunx, uvx, pipx run). */
  launcher: string;
  /** The package name (an npm name may have a scope). */
  name: string;
  /** The version asked for ("" = the latest), as written after `@` or `==`. */
  requested: string;
  /** The command to run from the package when it is named apart (npx -p, uvx --from). */
  bin?: string;
  /** The server's own arguments, after the package. */
  args: string[];
}

/** The package a server's command line runs through a launcher, or null for any other command. */
export function launcherPackage(command: string, args: readonly string[]): LauncherPackage | null {
  const program = command.split("/").at(-1) ?? command;
  if (program === "npx" || program === "bunx") return nodeLauncher(program, args);
  if (program === "uvx") return pythonLauncher("uvx", args, ["--from"], ["--python", "--with"]);
  if (program === "pipx" && args[0] === "run") {
    return pythonLauncher("pipx run", args.slice(1), ["--spec"], ["--python", "--pip-args"]);
  }
  return null;
}

/** npx/bunx: flags, then the package (or, with -p/--package, the command), then its args. */
function nodeLauncher(launcher: string, args: readonly string[]): LauncherPackage | null {
  let pkg: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === "--") {
      i++;
      break;
    }
    if (arg === "-p" || arg === "--package") pkg = args[++i];
    else if (arg.startsWith("--package=")) pkg = arg.slice("--package=".length);
    else if (!arg.startsWith("-")) break;
    // -y, --yes, -q, --quiet, --bun and the like change nothing about what runs.
  }
  const first = args[i];
  if (first === undefined) return null;
  const spec = splitNpm(pkg ?? first);
  if (!spec) return null;
  return {
    ecosystem: "npm",
    launcher,
    ...spec,
    ...(pkg ? { bin: first } : {}),
    args: args.slice(i + 1),
  };
}

/** uvx / pipx run: flags (one naming the package apart), then the package or command. */
function pythonLauncher(
  launcher: string,
  args: readonly string[],
  fromFlags: readonly string[],
  valueFlags: readonly string[],
): LauncherPackage | null {
  let from: string | undefined;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=")
      ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)]
      : [arg, undefined];
    if (fromFlags.includes(flag)) from = inline ?? args[++i];
    else if (valueFlags.includes(flag)) {
      if (inline === undefined) i++;
    } else if (!arg.startsWith("-")) break;
  }
  const first = args[i];
  if (first === undefined) return null;
  const spec = splitPython(from ?? first);
  if (!spec) return null;
  return {
    ecosystem: "pypi",
    launcher,
    ...spec,
    ...(from ? { bin: first } : {}),
    args: args.slice(i + 1),
  };
}

const NPM_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;
const PYTHON_NAME = /^[A-Za-z0-9][\w.-]*(\[[\w,.-]+\])?$/;

/** `@scope/name@1.2.3` → name and version; null for what is not a registry name (a path, a URL). */
function splitNpm(spec: string): { name: string; requested: string } | null {
  const at = spec.indexOf("@", 1);
  const name = at === -1 ? spec : spec.slice(0, at);
  const requested = at === -1 ? "" : spec.slice(at + 1);
  return NPM_NAME.test(name) ? { name, requested } : null;
}

/** `name==1.2`, `name@1.2` → name and version; null for a path or URL. */
function splitPython(spec: string): { name: string; requested: string } | null {
  const match = /^([^=@<>!~ ]+)\s*(?:==|@)\s*(.+)$/.exec(spec);
  const name = match ? match[1]! : spec;
  const requested = match ? match[2]! : "";
  return PYTHON_NAME.test(name) ? { name, requested } : null;
}

/** How the package is named to its installer: `name@version` (npm) or `name==version` (pip). */
export function installSpec(pkg: { ecosystem: Ecosystem; name: string }, version: string): string {
  if (version === "") return pkg.name;
  return pkg.ecosystem === "npm" ? `${pkg.name}@${version}` : `${pkg.name}==${version}`;
}
