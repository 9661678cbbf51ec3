// The permission flags live in scripts/permissions.ts; deno.json's tasks must use exactly
// those, so `deno task agent|outpost` confines the programs like the compiled binaries.

import assert from "node:assert/strict";
import {
  AGENT_PERMISSIONS,
  ENTRY_POINTS,
  OUTPOST_PERMISSIONS,
  RUN_ENV,
  RUN_FLAGS,
} from "../scripts/permissions.ts";

const envPrefix = Object.entries(RUN_ENV).map(([k, v]) => `${k}=${v} `).join("");
import { compileArgs } from "../scripts/compile.ts";

const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));

Deno.test("deno.json's agent and outpost tasks use the permission flags of scripts/permissions.ts", () => {
  assert.equal(
    config.tasks.agent,
    `${envPrefix}deno run ${RUN_FLAGS.join(" ")} ${
      AGENT_PERMISSIONS.join(" ")
    } ${ENTRY_POINTS.agent.entry}`,
  );
  assert.equal(
    config.tasks.outpost,
    `${envPrefix}deno run ${RUN_FLAGS.join(" ")} ${OUTPOST_PERMISSIONS.join(" ")} ${
      ENTRY_POINTS["agent-outpost"].entry
    }`,
  );
});

Deno.test("neither program is granted FFI or an interactive permission prompt", () => {
  for (const flags of [AGENT_PERMISSIONS, OUTPOST_PERMISSIONS]) {
    assert.ok(flags.includes("--deny-ffi"));
    assert.ok(flags.includes("--no-prompt"));
    assert.ok(!flags.includes("--allow-all") && !flags.includes("-A"));
    assert.ok(!flags.some((f) => f.startsWith("--allow-ffi")));
  }
});

Deno.test("the confined agent refuses what its flags do not grant", async () => {
  // Run a probe through the agent's exact flags: FFI is denied, so dlopen fails.
  const probe = await Deno.makeTempFile({ suffix: ".ts" });
  await Deno.writeTextFile(
    probe,
    `try { Deno.dlopen("libc.so.6", {}); console.log("ffi allowed"); } catch (e) { console.log(e.name); }`,
  );
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...AGENT_PERMISSIONS, probe],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(new TextDecoder().decode(out.stdout).trim(), "NotCapable");
  await Deno.remove(probe);
});

Deno.test("the compile script bakes in the same flags for both programs", () => {
  assert.deepEqual(
    compileArgs("agent", { out: "dist", root: "/r" }),
    [
      "compile",
      ...AGENT_PERMISSIONS,
      "--include",
      "/r/cli/run.ts",
      "--include",
      "/r/cli/interactive.ts",
      "--include",
      "/r/cli/terminal/markdown.ts",
      "--include",
      "/r/cli/adoption.ts",
      "--include",
      "/r/cli/mcp_command.ts",
      "--include",
      "/r/core/mcp/connection.ts",
      "--include",
      "/r/core/mcp/transport_stdio.ts",
      "--include",
      "/r/core/mcp/transport_http.ts",
      "--include",
      "/r/recipes",
      "--include",
      "/r/schemas",
      "--output",
      "dist/agent",
      "/r/cli/main.ts",
    ],
  );
  const outpost = compileArgs("agent-outpost", {
    out: "o",
    target: "x86_64-unknown-linux-gnu",
    root: "/r",
  });
  assert.deepEqual(outpost.slice(1, 1 + OUTPOST_PERMISSIONS.length), [...OUTPOST_PERMISSIONS]);
  assert.ok(outpost.includes("--target"));
  assert.equal(outpost.at(-1), "/r/server/main.ts");
});

// A module reached only through a computed `import(new URL("./x.ts", import.meta.url).href)`
// is invisible to `deno cache` and `deno compile`: under --cached-only it would fail at run
// time on a fresh install. Every such import must be listed in ENTRY_POINTS' lazy modules,
// and the test task must cache them.
Deno.test("every module behind a computed import is cached by install, the test task and compile", async () => {
  const root = new URL("..", import.meta.url).pathname;
  const listed = new Set<string>(Object.values(ENTRY_POINTS).flatMap((p) => [...p.lazy]));
  const found: string[] = [];
  for (const dir of ["cli", "server", "core"]) {
    for await (const file of walkTs(`${root}${dir}`)) {
      const text = await Deno.readTextFile(file);
      for (const m of text.matchAll(/import\(\s*new URL\("([^"]+)", import\.meta\.url\)/g)) {
        const target = new URL(m[1]!, `file://${file}`).pathname.slice(root.length);
        found.push(target);
        assert.ok(listed.has(target), `${target} (imported from ${file}) is not in ENTRY_POINTS`);
      }
    }
  }
  assert.deepEqual(found.sort(), [...listed].sort());
  for (const path of listed) {
    assert.ok(config.tasks.test.includes(path), `test task caches ${path}`);
  }
});

async function* walkTs(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walkTs(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) yield path;
  }
}
