// `deno task install`: the one step of a source checkout that talks to the npm registry. It
// fills Deno's module cache for both programs (every later run uses --cached-only, see
// scripts/permissions.ts), bundles the agent (scripts/bundle.ts), keeps the Deno it runs on in
// the checkout's .build/runtime/ (npx's cache, where it usually comes from, can be cleared at
// any time) and writes two launchers,
// `agent` and `agent-outpost`, that run the programs from anywhere with exactly the release
// permission flags. The agent launcher runs the bundle, so run install again after changing
// or pulling the sources; the outpost launcher runs the sources and starts its runs through the
// agent launcher beside it.
//   deno task install [--bin-dir DIR] [--no-cache] [--runtime DENO]
// --runtime names a Deno that stays where it is (the container's /usr/local/bin/deno): the
// launchers run it instead of a copy kept in .build/runtime/.

import { parseFlags } from "../cli/args.ts";
import { BUNDLE_DIR, bundleAgent } from "./bundle.ts";
import { denoCacheDir, fillModuleCache, writeCacheStamp } from "./module_cache.ts";
import { ENTRY_POINTS, programFlags, type ProgramName, RUN_ENV, RUN_FLAGS } from "./permissions.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** Single-quotes a word for POSIX sh, so paths with spaces or quotes survive. */
export function shQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The script a launcher runs: the agent's bundle, or the outpost's entry point. */
export function launchedScript(program: ProgramName, root: string): string {
  return program === "agent"
    ? `${root}/${BUNDLE_DIR}/main.js`
    : `${root}/${ENTRY_POINTS[program].entry}`;
}

/** The `deno` arguments a launcher runs a program with (the whole-process tests use them too). */
export function programRunArgs(program: ProgramName, root: string): string[] {
  return [
    "run",
    ...RUN_FLAGS,
    "--config",
    `${root}/deno.json`,
    ...programFlags(program),
    launchedScript(program, root),
  ];
}

/**
 * The launcher script for one program: exec Deno on its script with the release flags. It
 * pins the module cache filled at install time (DENO_DIR, unless the caller sets one), so a
 * run under another HOME still finds it instead of failing under --cached-only. The outpost's
 * launcher starts its runs through the agent launcher in `binDir` (AGENT_OUTPOST_AGENT_BIN,
 * unless the caller sets one), so the outpost runs the agent exactly as users do.
 */
export function launcherScript(
  program: ProgramName,
  deno: string,
  root: string,
  denoDir: string,
  binDir: string,
): string {
  const argv = [deno, ...programRunArgs(program, root)];
  const defaulted = (name: string, value: string) => [
    `${name}="\${${name}:-${value.replaceAll(/["$`\\]/g, "\\$&")}}"`,
    `export ${name}`,
  ];
  return [
    "#!/bin/sh",
    `# ${program}, run from the source checkout at ${root}.`,
    "# Written by `deno task install`; run it again after changing the sources or moving Deno.",
    // Without this, a runtime that is gone ends in the shell's bare `exec: … not found`.
    `if [ ! -x ${shQuote(deno)} ]; then`,
    `  echo ${
      shQuote(
        `${program}: the Deno runtime ${deno} is gone; run \`deno task install\` again in ${root}`,
      )
    } >&2`,
    "  exit 1",
    "fi",
    ...defaulted("DENO_DIR", denoDir),
    ...(program === "agent-outpost" ? defaulted("AGENT_OUTPOST_AGENT_BIN", `${binDir}/agent`) : []),
    ...Object.entries(RUN_ENV).map(([name, value]) => `export ${name}=${shQuote(value)}`),
    `exec ${argv.map(shQuote).join(" ")} "$@"`,
    "",
  ].join("\n");
}

/** Where the launchers' Deno lives, relative to the checkout. */
export const RUNTIME_PATH = ".build/runtime/deno";

/**
 * Puts the running Deno at <root>/.build/runtime/deno for the launchers: a hard link (no
 * space, and it outlives npx's cache entry: `npm cache clean` removes only the other name) or,
 * across file systems, a copy. Replaced atomically; a no-op when already running from it.
 */
export async function installRuntime(deno: string, root: string): Promise<string> {
  const target = `${root}/${RUNTIME_PATH}`;
  const [from, to] = await Promise.all([Deno.stat(deno), Deno.stat(target).catch(notFound)]);
  if (to && from.dev === to.dev && from.ino === to.ino) return target;
  await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
  const tmp = `${target}.tmp-${Deno.pid}`;
  await Deno.remove(tmp).catch(notFound);
  try {
    await Deno.link(deno, tmp);
  } catch {
    // Another file system (EXDEV) or no hard links there: a copy does the same job.
    await Deno.copyFile(deno, tmp);
    await Deno.chmod(tmp, 0o755);
  }
  await Deno.rename(tmp, target);
  return target;
}

function notFound(err: unknown): undefined {
  if (err instanceof Deno.errors.NotFound) return undefined;
  throw err;
}

async function writeLaunchers(binDir: string, deno: string, root: string): Promise<string[]> {
  const denoDir = await denoCacheDir(deno);
  await Deno.mkdir(binDir, { recursive: true });
  const written: string[] = [];
  for (const program of Object.keys(ENTRY_POINTS) as ProgramName[]) {
    const path = `${binDir}/${program}`;
    const tmp = `${path}.tmp-${Deno.pid}`;
    await Deno.writeTextFile(tmp, launcherScript(program, deno, root, denoDir, binDir), {
      mode: 0o755,
    });
    await Deno.chmod(tmp, 0o755);
    await Deno.rename(tmp, path);
    written.push(path);
  }
  return written;
}

function onPath(dir: string): boolean {
  return (Deno.env.get("PATH") ?? "").split(":").some((d) => d.replace(/\/$/, "") === dir);
}

if (import.meta.main) {
  const { values } = parseFlags(Deno.args, {
    "bin-dir": { type: "string" },
    "no-cache": { type: "boolean" },
    runtime: { type: "string" },
  });
  const home = Deno.env.get("HOME");
  const binDir = typeof values["bin-dir"] === "string"
    ? values["bin-dir"]
    : home
    ? `${home}/.local/bin`
    : null;
  if (!binDir) {
    console.error("install: HOME is not set; pass --bin-dir DIR");
    Deno.exit(1);
  }
  const deno = Deno.execPath();
  try {
    if (values["no-cache"] !== true) {
      await fillModuleCache(deno, ROOT);
      await writeCacheStamp(ROOT, await denoCacheDir(deno));
    }
    console.error(`bundled the agent: ${await bundleAgent(ROOT, deno)}`);
    const runtime = typeof values.runtime === "string"
      ? await Deno.realPath(values.runtime)
      : await installRuntime(deno, ROOT);
    console.error(`the launchers run ${runtime}`);
    const written = await writeLaunchers(binDir, runtime, ROOT);
    for (const path of written) console.error(`wrote ${path}`);
    if (!onPath(binDir)) {
      console.error(`${binDir} is not on your PATH; add it, e.g. export PATH="${binDir}:$PATH"`);
    }
    console.error("try: agent --help   agent-outpost --help");
  } catch (err) {
    console.error(`install: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(1);
  }
}
