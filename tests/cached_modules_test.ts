// Nothing a run loads may be missing from the module cache that `deno task install` (and the
// test task's `deno cache` line) fills: the programs run with --cached-only, so a module or npm
// package outside that graph fails on a fresh install, and without --cached-only it would be
// fetched from a registry at run time (issue: fast and offline). `deno cache` follows static
// imports and string-literal `import("…")`, and so do `deno compile` and `deno bundle`; none of
// them can see a computed specifier. So: every product module must be in the graph of
// scripts/permissions.ts' cachedModules, and no product module imports a computed specifier.

import assert from "node:assert/strict";
import { cachedModules } from "../scripts/permissions.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

async function* productFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}/${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* productFiles(path);
    else if (/\.tsx?$/.test(entry.name) && !/_(test|bench)\.tsx?$/.test(entry.name)) yield path;
  }
}

async function allProductFiles(): Promise<string[]> {
  const files: string[] = [];
  for (const dir of ["cli", "core", "server"]) {
    for await (const file of productFiles(dir)) files.push(file);
  }
  return files.sort();
}

/** The local files `deno cache` would fetch for these roots, as `deno info --json` lists them. */
async function graphFiles(roots: string[]): Promise<Set<string>> {
  const files = new Set<string>();
  await Promise.all(roots.map(async (root) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["info", "--json", "--config", `${ROOT}/deno.json`, root],
      env: { DENO_NO_UPDATE_CHECK: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    assert.ok(out.success, `deno info ${root}: ${dec.decode(out.stderr)}`);
    const info = JSON.parse(dec.decode(out.stdout)) as { modules: { specifier: string }[] };
    for (const { specifier } of info.modules) {
      if (specifier.startsWith(`file://${ROOT}/`)) {
        files.add(specifier.slice(`file://${ROOT}/`.length));
      }
    }
  }));
  return files;
}

/**
 * Each `import(` whose argument is not a string literal, with what it names: `new URL("x")`
 * for a relative module, the string a same-file constant holds, or null when it cannot tell.
 */
export function computedImports(source: string): { arg: string; names: string | null }[] {
  const found: { arg: string; names: string | null }[] = [];
  for (const m of source.matchAll(/(?<![\w.])import\(\s*([^)"'`\s][^)]*)\)/g)) {
    const arg = m[1]!.trim();
    const url = /^new URL\(\s*"([^"]+)"/.exec(arg);
    if (url) {
      found.push({ arg, names: url[1]! });
      continue;
    }
    const constant = /^[A-Za-z_$][\w$]*$/.test(arg)
      ? new RegExp(`\\bconst ${arg}\\s*=\\s*"([^"]+)"`).exec(source)
      : null;
    found.push({ arg, names: constant ? constant[1]! : null });
  }
  return found;
}

Deno.test("computedImports finds computed specifiers and what they name", () => {
  const src = [
    `const a = await import("./literal.ts");`,
    `type T = typeof import("node:readline");`,
    `const run = await import(new URL("./run.ts", import.meta.url).href);`,
    `const childProcess = "node:child_process";`,
    `const { spawn } = await import(childProcess);`,
    `const sdk = "matrix-js-sdk"; await import(sdk);`,
    `await import(someFunction());`,
  ].join("\n");
  assert.deepEqual(computedImports(src).map((i) => i.names), [
    "./run.ts",
    "node:child_process",
    "matrix-js-sdk",
    null,
  ]);
});

Deno.test("no product module imports a computed specifier", async () => {
  for (const file of await allProductFiles()) {
    for (const { arg, names } of computedImports(await Deno.readTextFile(`${ROOT}/${file}`))) {
      assert.fail(
        `${file}: import(${arg}) names ${names ?? "something computed"}; deno cache, compile ` +
          `and bundle cannot see it, so it is missing from a fresh install under --cached-only ` +
          `and from the agent's bundle. Use a string literal: deno.json's lazy-dynamic-imports ` +
          `still loads it only when the import runs.`,
      );
    }
  }
});

Deno.test("every product module is in the module graph install and the test task cache", async () => {
  const graph = await graphFiles(cachedModules(ROOT));
  // Test kits and fakes live under tests/, so every other module of cli/, core/ and server/ ships.
  const missing = (await allProductFiles()).filter((f) => !graph.has(f));
  assert.deepEqual(
    missing,
    [],
    "reached by no import deno cache can follow from scripts/permissions.ts' cachedModules",
  );
});

Deno.test("the test task caches exactly the modules install caches", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const cacheLine = /deno cache --frozen ([^&]+)&&/.exec(config.tasks.test)?.[1]?.trim();
  assert.ok(cacheLine, "the test task starts with a deno cache --frozen line");
  assert.deepEqual(
    cacheLine.split(/\s+/).sort(),
    cachedModules(ROOT).map((p) => p.slice(ROOT.length + 1)).sort(),
  );
});

Deno.test("no product module imports from scripts/ (product code never depends on a script)", async () => {
  const offenders: string[] = [];
  for (const file of await allProductFiles()) {
    const source = await Deno.readTextFile(`${ROOT}/${file}`);
    for (const m of source.matchAll(/(?:from|import)\s*\(?\s*["']([^"']+)["']/g)) {
      const spec = m[1]!;
      if (!spec.startsWith(".")) continue;
      const target = new URL(spec, `file://${ROOT}/${file}`).pathname;
      if (target.startsWith(`${ROOT}/scripts/`)) offenders.push(`${file} imports ${spec}`);
    }
  }
  assert.deepEqual(offenders, []);
});
