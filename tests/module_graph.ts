// The module graph Deno itself computes (`deno info --json`), for tests that say what a module
// loads: which modules and npm packages its static imports reach, and which it leaves to a
// dynamic `import()`. Reading the graph, rather than grepping source text, sees every form of
// import (`import x from`, `export … from`, a re-export through another file, an npm package
// that depends on another) and only the ones that load at run time (type-only imports do not).

interface InfoDependency {
  specifier: string;
  /** Set when the import loads code at run time (a type-only import has only `type`). */
  code?: { specifier: string };
  isDynamic?: boolean;
}

interface InfoJson {
  roots: string[];
  modules: { specifier: string; dependencies?: InfoDependency[] }[];
  redirects: Record<string, string>;
  npmPackages: Record<string, { dependencies: string[] }>;
}

export interface ModuleGraph {
  /** Modules the root's static run-time imports reach, the root included (file: and npm:). */
  staticModules: string[];
  /** npm packages (name@version) those modules load, with the packages they depend on. */
  staticPackages: string[];
  /** Targets of the dynamic `import()`s found in the static modules. */
  dynamicImports: string[];
}

/** The graph of `path` (relative to the repository root or absolute), as Deno resolves it. */
export async function moduleGraph(path: string): Promise<ModuleGraph> {
  const root = new URL(`../${path}`, import.meta.url).pathname;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", root],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno info ${path} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  return walk(JSON.parse(new TextDecoder().decode(out.stdout)) as InfoJson);
}

function walk(info: InfoJson): ModuleGraph {
  const modules = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (s: string) => info.redirects[s] ?? s;
  const seen = new Set<string>();
  const dynamic = new Set<string>();
  const stack = info.roots.map(resolve);
  while (stack.length > 0) {
    const specifier = stack.pop()!;
    if (seen.has(specifier)) continue;
    seen.add(specifier);
    for (const dep of modules.get(specifier)?.dependencies ?? []) {
      if (!dep.code) continue;
      const target = resolve(dep.code.specifier);
      if (dep.isDynamic) dynamic.add(target);
      else stack.push(target);
    }
  }
  const staticModules = [...seen].sort();
  return {
    staticModules,
    staticPackages: npmClosure(info, staticModules),
    dynamicImports: [...dynamic].sort(),
  };
}

/** The npm packages `specifiers` load ("npm:/name@version/sub"), with their dependencies. */
function npmClosure(info: InfoJson, specifiers: string[]): string[] {
  const seen = new Set<string>();
  const stack = specifiers.filter((s) => s.startsWith("npm:/")).map(packageOf);
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    // A package resolved with peers is keyed "name@version_peer@version".
    const key = Object.keys(info.npmPackages).find((k) => k === id || k.startsWith(`${id}_`));
    stack.push(...(key ? info.npmPackages[key]!.dependencies : []));
  }
  return [...seen].sort();
}

function packageOf(npmSpecifier: string): string {
  const parts = npmSpecifier.slice("npm:/".length).split("/");
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}
