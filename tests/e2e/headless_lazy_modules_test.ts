// What a plain `agent -p` (no MCP servers, no --resume, no report file) loads: the modules
// only some runs need stay out of start-up, where each costs module loading on the way to the
// first model request (issue 16, scripts/bench_processes.ts --marks). The agent runs as its
// launcher runs it, from the bundle (scripts/bundle.ts), with the release flags. The modules
// every run needs are the control, so an empty list proves nothing.
// 1. Held at its first request, V8's inspector lists the scripts it has parsed.
// 2. Deno reads every module a string-literal `import("…")` names when the importing module
//    loads, unless deno.json asks for lazy-dynamic-imports (see cli/main.ts): the inspector
//    cannot see a read, so strace lists every file the whole run opens.
// 3. Deno's own lazily loaded modules count too: Node's timers, behind the global setTimeout,
//    and fetch with its web streams, behind the first fetch().

import assert from "node:assert/strict";
import { commandOnPath, peerTest } from "../peers.ts";
import { BUNDLE_DIR } from "../../scripts/bundle.ts";
import { agentArgs, childEnv, headlessSetup, ROOT } from "./agent_process.ts";
import { bundleModules, scriptsAtFirstRequest } from "./inspector_kit.ts";
import { reply } from "../fakes/model_server.ts";

/** Loaded only by the runs that need them; see the import sites for which. */
const LAZY = [
  "cli/interactive.ts",
  "cli/terminal/markdown.ts",
  "cli/adoption.ts",
  "cli/mcp_command.ts",
  "core/mcp/connection.ts",
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
  const modules = await bundleModules(await scriptsAtFirstRequest(t));
  for (const path of CONTROL) assert.ok(modules.includes(path), `${path} not listed`);
  assert.deepEqual(LAZY.filter((path) => modules.includes(path)), []);
});

Deno.test("a plain headless run reaches its first model request without Node's timers", async () => {
  // Deno 2.9.6 loads the global setTimeout from its Node layer on first use: 6–13 ms, more
  // than any module of ours (measured). Sleeps and timeouts go through core/ports.ts's clock,
  // which uses AbortSignal.timeout instead.
  await using t = await headlessSetup();
  const urls = await scriptsAtFirstRequest(t);
  assert.ok(urls.includes("node:sqlite"), "the control, node:sqlite, not listed");
  assert.deepEqual(urls.filter((url) => url === "node:timers" || url.includes("/timers.")), []);
});

Deno.test("a headless run against an http server reaches its first request without fetch", async () => {
  // Deno 2.9.6 loads fetch, Request, Response, Headers and web streams on the first fetch():
  // ~10 ms of a turn (measured). Model servers on http go over core/wires/plain_http.ts.
  await using t = await headlessSetup();
  const urls = await scriptsAtFirstRequest(t);
  assert.ok(urls.includes("node:sqlite"), "the control, node:sqlite, not listed");
  const fetchModules = ["ext:deno_fetch/26_fetch.js", "ext:deno_web/06_streams.js"];
  assert.deepEqual(fetchModules.filter((url) => urls.includes(url)), []);
});

peerTest(
  "a plain headless run never even opens the chunks of the modules only some runs need",
  () => commandOnPath("strace") ? null : "strace not installed (apt-get install strace)",
  async () => {
    await using t = await headlessSetup();
    t.fake.enqueue(reply().text("ok"));
    const log = `${t.home}/openat.log`;
    const run = await new Deno.Command("strace", {
      args: ["-f", "-qq", "-e", "trace=openat", "-o", log, Deno.execPath(), ...await agentArgs()]
        .concat(["-p", "--workdir", t.work, "--", "hi"]),
      env: childEnv(t.env),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    const dir = `${ROOT}/${BUNDLE_DIR}/`;
    const opened = [...(await Deno.readTextFile(log)).matchAll(/openat\([^"]*"([^"]+)"/g)]
      .map((m) => m[1]!).filter((path) => path.startsWith(dir));
    const modules = await bundleModules([...new Set(opened)].map((path) => `file://${path}`));
    for (const path of CONTROL) assert.ok(modules.includes(path), `${path} not opened`);
    assert.deepEqual(LAZY.filter((path) => modules.includes(path)), []);
  },
);
