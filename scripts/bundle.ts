// The agent as its launcher runs it: `deno bundle` of cli/main.ts into .build/agent/, split
// into chunks at the program's dynamic imports (cli/main.ts), so a headless turn loads a few
// pre-built files instead of ~100 TypeScript modules and the npm resolver. Measured against
// the same turn from the sources, in one interleaved run: 0.77x the time (72.3 vs 94.0 ms at
// load ~2; scripts/bench_processes.ts prints the figure of record). `deno task install` and the
// test kits build it; nothing in it is committed.
//   deno run -A scripts/bundle.ts [ROOT]

/** Where the bundle lives, relative to the checkout. The launcher runs `main.js` in it. */
export const BUNDLE_DIR = ".build/agent";

/**
 * npm packages left out of the bundle: each chunk imports them by name and Deno loads them
 * from its module cache (through deno.json and deno.lock, as for the sources) when a run first
 * needs them. None is on a headless turn's path.
 * - CommonJS packages (ajv and ajv-formats; @inquirer's editor prompt through iconv-lite), and
 *   the MCP SDK, which imports ajv: bundling any CommonJS module makes the bundle's shared
 *   chunk import node:module, whose Node layer costs ~27 ms at every start (measured).
 * - cli-highlight (the code blocks of cli/terminal/markdown.ts): CommonJS, as above.
 */
export const EXTERNAL_PACKAGES: readonly string[] = [
  "ajv",
  "ajv/*",
  "ajv-formats",
  "@inquirer/*",
  "@modelcontextprotocol/sdk/*",
  "cli-highlight",
];

/**
 * Bundles the agent of the checkout at `root` into `root/.build/agent` and returns the path of
 * its `main.js`. The new build replaces the old one only when a file differs, so a run that
 * started on the old build never finds a chunk missing halfway.
 */
export async function bundleAgent(root: string, deno = Deno.execPath()): Promise<string> {
  const dir = `${root}/${BUNDLE_DIR}`;
  const fresh = `${dir}.tmp-${Deno.pid}`;
  await Deno.remove(fresh, { recursive: true }).catch(ignoreNotFound);
  const { code, stderr } = await new Deno.Command(deno, {
    args: [
      "bundle",
      "--quiet",
      "--config",
      `${root}/deno.json`,
      "--frozen",
      "--platform",
      "deno",
      "--code-splitting",
      ...EXTERNAL_PACKAGES.flatMap((name) => ["--external", name]),
      "--outdir",
      fresh,
      `${root}/cli/main.ts`,
    ],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (code !== 0) {
    await Deno.remove(fresh, { recursive: true }).catch(ignoreNotFound);
    throw new Error(`deno bundle failed (exit ${code}):\n${new TextDecoder().decode(stderr)}`);
  }
  if (await sameFiles(fresh, dir)) {
    await Deno.remove(fresh, { recursive: true });
  } else {
    const old = `${dir}.old-${Deno.pid}`;
    await Deno.rename(dir, old).catch(ignoreNotFound);
    await Deno.rename(fresh, dir);
    await Deno.remove(old, { recursive: true }).catch(ignoreNotFound);
  }
  return `${dir}/main.js`;
}

function ignoreNotFound(e: unknown): void {
  if (!(e instanceof Deno.errors.NotFound)) throw e;
}

/** True when directory `b` exists and holds exactly the files of `a`, byte for byte. */
async function sameFiles(a: string, b: string): Promise<boolean> {
  const names = async (d: string) => {
    const out: string[] = [];
    for await (const e of Deno.readDir(d)) out.push(e.name);
    return out.sort();
  };
  let theirs: string[];
  try {
    theirs = await names(b);
  } catch (e) {
    ignoreNotFound(e);
    return false;
  }
  const ours = await names(a);
  if (ours.join("\n") !== theirs.join("\n")) return false;
  for (const name of ours) {
    const [x, y] = await Promise.all([
      Deno.readFile(`${a}/${name}`),
      Deno.readFile(`${b}/${name}`),
    ]);
    if (x.length !== y.length || !x.every((byte, i) => byte === y[i])) return false;
  }
  return true;
}

if (import.meta.main) {
  const root = Deno.args[0] ?? new URL("..", import.meta.url).pathname.replace(/\/$/, "");
  try {
    console.log(await bundleAgent(root));
  } catch (e) {
    console.error(`bundle: ${e instanceof Error ? e.message : String(e)}`);
    Deno.exit(1);
  }
}
