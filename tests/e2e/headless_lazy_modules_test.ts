// What a plain `agent -p` (no MCP servers, no --resume, no report file) has loaded when its
// first model request arrives: the modules only some runs need stay out of start-up, where each
// costs module loading on the way to that request (issue 16, scripts/bench_processes.ts
// --marks). The real program, with the permission flags of scripts/permissions.ts plus
// --inspect, is held at its first request while V8's inspector lists the scripts it has
// parsed; the modules every run needs are the control, so an empty list proves nothing.
// Deno also reads (without running) every module a string-literal `import("…")` names when the
// importing module loads (see cli/main.ts), which the inspector cannot see, so the second test
// walks the module graph that loading cli/run.ts brings in, as `deno info` reports it.

import assert from "node:assert/strict";
import { headlessSetup, ROOT } from "./agent_process.ts";
import { scriptsAtFirstRequest } from "./inspector_kit.ts";

/** Loaded only by the runs that need them; see the import sites for which. */
const LAZY = [
  "core/mcp/manager.ts",
  "core/mcp/launch.ts",
  "cli/config_main.ts",
  "cli/sessions.ts",
  "cli/resume_workdir.ts",
  "core/agent/resume.ts",
  "core/agent/report.ts",
  "core/memory/reflection.ts",
  "core/tools/file_change.ts",
];

/** Every run needs these before its first request. */
const CONTROL = ["cli/headless.ts", "cli/setup.ts", "core/agent/loop.ts"];

Deno.test("a plain headless run reaches its first model request without the modules only some runs need", async () => {
  await using t = await headlessSetup();
  const urls = await scriptsAtFirstRequest(t);
  const loaded = (path: string) => urls.some((u) => u === `file://${ROOT}/${path}`);
  for (const path of CONTROL) assert.ok(loaded(path), `${path} not listed`);
  assert.deepEqual(LAZY.filter(loaded), []);
});

Deno.test("loading cli/run.ts does not bring in the modules only some runs need", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", "--config", `${ROOT}/deno.json`, `${ROOT}/cli/run.ts`],
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    modules: { specifier: string; dependencies?: { code?: { specifier: string } }[] }[];
  };
  const bySpecifier = new Map(info.modules.map((m) => [m.specifier, m]));
  // Code dependencies only (static imports and string-literal imports): a `typeof import(…)`
  // type is never loaded at run time.
  const reached = new Set<string>();
  const stack = [`file://${ROOT}/cli/run.ts`];
  while (stack.length > 0) {
    const s = stack.pop()!;
    if (reached.has(s)) continue;
    reached.add(s);
    for (const d of bySpecifier.get(s)?.dependencies ?? []) {
      if (d.code) stack.push(d.code.specifier);
    }
  }
  const inGraph = (path: string) => reached.has(`file://${ROOT}/${path}`);
  for (const path of CONTROL) assert.ok(inGraph(path), `${path} not in the graph`);
  assert.deepEqual(LAZY.filter(inGraph), []);
});
