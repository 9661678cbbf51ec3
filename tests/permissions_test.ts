// The permission flags live in scripts/permissions.ts; deno.json's tasks must use exactly
// those, so `deno task agent|outpost` confines the programs like the compiled binaries.

import assert from "node:assert/strict";
import {
  AGENT_ENGINE_FLAGS,
  AGENT_PERMISSIONS,
  ENTRY_POINTS,
  OUTPOST_ENGINE_FLAGS,
  OUTPOST_PERMISSIONS,
  RUN_ENV,
  RUN_FLAGS,
} from "../scripts/permissions.ts";

const envPrefix = Object.entries(RUN_ENV).map(([k, v]) => `${k}=${v} `).join("");
import { compileArgs } from "../scripts/compile.ts";

const config = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));

/** The step both tasks run first: fill the module cache once (scripts/module_cache.ts). */
const CACHE_STEP =
  "deno run --cached-only --allow-read --allow-write --allow-env --allow-run scripts/module_cache.ts";

Deno.test("deno.json's agent and outpost tasks use the permission flags of scripts/permissions.ts", () => {
  assert.equal(
    config.tasks.agent,
    `${CACHE_STEP} && ${envPrefix}deno run ${RUN_FLAGS.join(" ")} ${AGENT_ENGINE_FLAGS.join(" ")} ${
      AGENT_PERMISSIONS.join(" ")
    } ${ENTRY_POINTS.agent.entry}`,
  );
  assert.equal(
    config.tasks.outpost,
    `${CACHE_STEP} && ${envPrefix}deno run ${RUN_FLAGS.join(" ")} ${
      OUTPOST_ENGINE_FLAGS.join(" ")
    } ${OUTPOST_PERMISSIONS.join(" ")} ${ENTRY_POINTS["agent-outpost"].entry}`,
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
      ...AGENT_ENGINE_FLAGS,
      ...AGENT_PERMISSIONS,
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
  assert.deepEqual(outpost.slice(1, 1 + OUTPOST_ENGINE_FLAGS.length + OUTPOST_PERMISSIONS.length), [
    ...OUTPOST_ENGINE_FLAGS,
    ...OUTPOST_PERMISSIONS,
  ]);
  assert.ok(outpost.includes("--target"));
  assert.equal(outpost.at(-1), "/r/server/main.ts");
});

// Whole-process tests must start the programs the way users get them: through the kits (agentArgs
// runs the agent as its launcher does, denoRunArgs the sources), never under -A, or a refused read
// or spawn that the release flags cause goes unseen (issue 10: recovery read /proc directly and
// only the -A harness passed). The in-process kits (outpost_process_test.ts,
// dashboard_browser_kit.ts) run outpost code inside the test runner and start fake_agent.ts with
// -A: neither starts a program entry point, so the rule below is about starting cli/main.ts or
// server/main.ts.

/** Where a file starts a program entry point with -A or a hand-written permission flag. */
function entryPointsStartedWithBroadFlags(text: string): string[] {
  const code = text.split("\n").map((line) => /^\s*(\/\/|\*|\/\*)/.test(line) ? "" : line)
    .join("\n");
  const names = [
    "(?:cli|server)\\/main\\.ts\\b",
    "\\bENTRY_POINTS\\b",
    "\\bdenoRunArgs\\(",
    "\\bagentArgs\\(",
    "\\bBUNDLE_DIR\\b",
  ];
  // A name bound to an entry point's path counts as the entry point too.
  for (const m of code.matchAll(/\b(?:const|let|var)\s+(\w+)\s*=\s*([^;\n]*)/g)) {
    if (/(?:cli|server)\/main\.ts\b/.test(m[2]!)) names.push(`\\b${m[1]}\\b`);
  }
  const broad = /["'`]-A["'`]|["'`]--allow-all\b|["'`]--allow-[a-z]+|(?:^|\s)-A\s|--allow-all/;
  const found: string[] = [];
  for (const m of code.matchAll(new RegExp(names.join("|"), "g"))) {
    const at = m.index!;
    const lineStart = code.lastIndexOf("\n", at) + 1;
    const lineEnd = code.indexOf("\n", at) === -1 ? code.length : code.indexOf("\n", at);
    const around = [code.slice(lineStart, lineEnd), enclosingArray(code, at)];
    const bad = around.find((part) => broad.test(part));
    if (bad !== undefined) {
      const line = code.slice(0, at).split("\n").length;
      const hit = `line ${line}: ${bad.trim().replace(/\s+/g, " ").slice(0, 160)}`;
      if (!found.includes(hit)) found.push(hit);
    }
  }
  return found;
}

/** The text of the innermost array literal around `at`, or "" when it is in none. */
function enclosingArray(code: string, at: number): string {
  let depth = 0;
  let start = -1;
  for (let i = at; i >= 0; i--) {
    const c = code[i];
    if (c === "]") depth++;
    else if (c === "[" && depth-- === 0) {
      start = i;
      break;
    }
  }
  if (start === -1) return "";
  depth = 0;
  for (let i = start; i < code.length; i++) {
    if (code[i] === "[") depth++;
    else if (code[i] === "]" && --depth === 0) return code.slice(start, i + 1);
  }
  return code.slice(start);
}

Deno.test("the guard's scan flags a program entry point started with -A, and only that", () => {
  const flagged = [
    'args: ["run", "-A", `${ROOT}/cli/main.ts`, "-p"],',
    'args: ["run", "--allow-all", new URL("../../server/main.ts", import.meta.url).pathname],',
    'const ENTRY = `${ROOT}/server/main.ts`;\nconst cmd = new Deno.Command(deno, {\n  args: [\n    "run",\n    "-A",\n    ENTRY,\n  ],\n});',
    'args: ["run", "--allow-read", "--allow-net", `${ROOT}/cli/main.ts`],',
    "const line = `deno run -A ${ROOT}/cli/main.ts -p hi`;",
    'args: [...denoRunArgs("agent", ROOT), "-A"],',
    'args: [...await agentArgs(), "--allow-all"],',
  ];
  for (const text of flagged) {
    assert.equal(entryPointsStartedWithBroadFlags(text).length, 1, text);
  }
  const allowed = [
    'args: [...denoRunArgs("agent", ROOT), "-p", "--", "hi"],',
    'args: [...await agentArgs(), "-p", "--", "hi"],',
    "args: [...run.slice(0, -1), ...denyFlags, ...run.slice(-1), ...args],",
    // The in-process kits' fake agent is not an entry point.
    'agentCommand: { command: Deno.execPath(), args: ["run", "-A", "--quiet", FAKE_AGENT] },',
    // A driver script run with -A that starts the programs through the kits.
    'const SCENARIO = ["run", "--cached-only", "-A", `${ROOT}/tests/e2e/offline_scenario.ts`];',
    "// an old note: deno run -A cli/main.ts",
  ];
  for (const text of allowed) {
    assert.deepEqual(entryPointsStartedWithBroadFlags(text), [], text);
  }
});

Deno.test("no whole-process test starts cli/main.ts or server/main.ts with -A", async () => {
  const dir = new URL("e2e/", import.meta.url);
  const offenders: string[] = [];
  let starters = 0;
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, dir));
    if (/\b(?:denoRunArgs|agentArgs)\(/.test(text)) starters++;
    for (const hit of entryPointsStartedWithBroadFlags(text)) {
      offenders.push(`${entry.name} ${hit}`);
    }
  }
  // The scan is not vacuous: the kits and several tests start the programs.
  assert.ok(starters >= 5, `only ${starters} e2e files start a program through the kits`);
  assert.deepEqual(offenders, [], "start the programs with agentArgs or denoRunArgs");
});
