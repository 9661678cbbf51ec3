// The layering ARCHITECTURE.md describes, checked on the module graph Deno computes
// (`deno info --json`, type-only imports included): no import circles among the project's own
// modules, `core/` never imports `cli/`, `server/` or `scripts/`, and within `core/` the lower
// layers named below never import the ones above them. A rule broken names the importing
// module and what it imported.

import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url).href;
const ENTRY_POINTS = ["cli/main.ts", "server/main.ts"];

interface InfoModule {
  specifier: string;
  dependencies?: { code?: { specifier: string }; type?: { specifier: string } }[];
}

/** The project's modules reached from the programs' entry points, with the modules each imports. */
async function projectGraph(): Promise<Map<string, Set<string>>> {
  const graph = new Map<string, Set<string>>();
  for (const entry of ENTRY_POINTS) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", new URL(entry, ROOT).pathname],
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, `deno info ${entry}: ${new TextDecoder().decode(out.stderr)}`);
    const info = JSON.parse(new TextDecoder().decode(out.stdout)) as { modules: InfoModule[] };
    for (const m of info.modules) {
      if (!m.specifier.startsWith(ROOT)) continue;
      const deps = graph.get(rel(m.specifier)) ?? new Set<string>();
      for (const d of m.dependencies ?? []) {
        for (const target of [d.code?.specifier, d.type?.specifier]) {
          if (target?.startsWith(ROOT)) deps.add(rel(target));
        }
      }
      graph.set(rel(m.specifier), deps);
    }
  }
  return graph;
}

function rel(specifier: string): string {
  return specifier.slice(ROOT.length);
}

/** Strongly connected components with more than one module (Tarjan's algorithm). */
function circles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

/** [importer prefix, imported prefix]: modules under the first never import the second. */
const FORBIDDEN: readonly [string, string][] = [
  ["core/", "cli/"],
  ["core/", "server/"],
  ["core/", "scripts/"],
  ["server/", "scripts/"],
  ["cli/", "scripts/"],
  ["core/settings/", "core/wires/"],
  ["core/store/", "core/scheduler/"],
];

Deno.test("layering: no import circles among the programs' own modules", async () => {
  const graph = await projectGraph();
  assert.ok(graph.size > 100, `the graph looks empty (${graph.size} modules)`);
  assert.deepEqual(circles(graph), []);
});

Deno.test("layering: lower layers never import higher ones", async () => {
  const graph = await projectGraph();
  const broken: string[] = [];
  for (const [from, deps] of graph) {
    for (const to of deps) {
      for (const [lower, higher] of FORBIDDEN) {
        if (from.startsWith(lower) && to.startsWith(higher)) broken.push(`${from} -> ${to}`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

Deno.test("layering: the circle finder and the rules can fail (a known circle and import)", () => {
  const graph = new Map([
    ["core/a.ts", new Set(["core/b.ts"])],
    ["core/b.ts", new Set(["core/a.ts", "cli/c.ts"])],
    ["cli/c.ts", new Set<string>()],
  ]);
  assert.deepEqual(circles(graph), [["core/a.ts", "core/b.ts"]]);
});
