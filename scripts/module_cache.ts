// The module cache the programs run from. Every `deno run` of them uses --cached-only
// (scripts/permissions.ts), so the cache must hold every module of both programs first.
// `deno task install` fills it; `deno task outpost` and `deno task agent` run this script
// first, so a fresh checkout works with one command: the first run fetches what deno.lock pins
// (with Deno's download lines as progress) and leaves a stamp in the cache; later runs find the
// stamp and start without touching the network (a warm `deno cache` still asks the npm registry
// for some packages' documents on every call, so it is not run again).
//   deno run --cached-only --allow-read --allow-write --allow-env --allow-run scripts/module_cache.ts

import { cachedModules } from "./permissions.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** `deno cache --frozen` of both programs' entry points, its progress on our stderr. */
export async function fillModuleCache(deno: string, root: string): Promise<void> {
  const { code } = await new Deno.Command(deno, {
    args: ["cache", "--frozen", "--config", `${root}/deno.json`, ...cachedModules(root)],
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  if (code !== 0) {
    throw new Error(`deno cache failed (exit ${code}); check the network and deno.lock`);
  }
}

/** Where this Deno keeps its module cache (DENO_DIR or its default), as `deno info` says. */
export async function denoCacheDir(deno: string): Promise<string> {
  const out = await new Deno.Command(deno, {
    args: ["info", "--json"],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dir = out.success ? JSON.parse(new TextDecoder().decode(out.stdout)).denoDir : undefined;
  if (typeof dir !== "string") throw new Error("`deno info --json` named no module cache");
  return dir;
}

/**
 * The stamp that says this cache holds the programs' modules as this deno.lock pins them, for
 * this Deno version. It lives inside the cache, so clearing the cache clears the stamp too.
 */
export async function cacheStampPath(root: string, denoDir: string): Promise<string> {
  const lock = await Deno.readFile(`${root}/deno.lock`);
  const key = new TextEncoder().encode(`${Deno.version.deno}\n${cachedModules(".").join("\n")}\n`);
  const digest = await crypto.subtle.digest("SHA-256", new Uint8Array([...key, ...lock]));
  const hex = [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${denoDir}/agent-module-cache/${hex.slice(0, 32)}`;
}

/** Records that the cache at `denoDir` now holds the programs' modules. */
export async function writeCacheStamp(root: string, denoDir: string): Promise<void> {
  const stamp = await cacheStampPath(root, denoDir);
  await Deno.mkdir(stamp.slice(0, stamp.lastIndexOf("/")), { recursive: true });
  await Deno.writeTextFile(stamp, `filled ${new Date().toISOString()}\n`);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/**
 * Fills the cache unless its stamp says it is full. Returns what it did; `say` gets the
 * progress lines around Deno's own.
 */
export async function ensureModuleCache(
  deno: string,
  root: string,
  say: (line: string) => void,
): Promise<"present" | "filled"> {
  const denoDir = await denoCacheDir(deno);
  if (await exists(await cacheStampPath(root, denoDir))) return "present";
  const started = Date.now();
  say(`first run: fetching the modules deno.lock pins into ${denoDir} (once, about a minute)`);
  await fillModuleCache(deno, root);
  await writeCacheStamp(root, denoDir);
  say(
    `modules cached in ${((Date.now() - started) / 1000).toFixed(0)} s; later runs start offline`,
  );
  return "filled";
}

if (import.meta.main) {
  try {
    await ensureModuleCache(Deno.execPath(), ROOT, (line) => console.error(line));
  } catch (err) {
    console.error(`module cache: ${err instanceof Error ? err.message : String(err)}`);
    Deno.exit(1);
  }
}
