// McpManager against real MCP servers: @modelcontextprotocol/server-everything over stdio and
// Streamable HTTP (tests/mcp/everything.ts), a server that never answers initialize, one that
// exits mid-call, a project-file server that waits for approval, a tool that never answers
// (tool_timeout_s), and a server whose grandchild must die with it (process groups).

import { toolListPath } from "./tool_list_cache.ts";
import assert from "node:assert/strict";
import process from "node:process";
import { McpManager, type McpServerStatus } from "./manager.ts";
import { resolveSettings } from "../settings/resolve.ts";
import { envFrom, systemClock } from "../ports.ts";
import { makeLayout, writeFile } from "../../tests/fakes/settings_layout.ts";
import { peerTest } from "../../tests/peers.ts";
import {
  everythingProbe,
  everythingStdioToml,
  startEverythingHttp,
} from "../../tests/mcp/everything.ts";
import { FakeClock, flushMicrotasks } from "../../tests/fakes/clock.ts";
import { approvalEntry } from "../settings/mcp_servers.ts";
import type { Tool } from "../tools/types.ts";

const RAW_SERVER = new URL("../../tests/mcp/raw_server.mjs", import.meta.url).pathname;

async function managerFor(globalToml: string, options: {
  projectToml?: string;
  env?: Record<string, string>;
  clock?: FakeClock;
  onChange?: (s: McpServerStatus) => void;
  /** Keep remembered tool lists under the layout's agent home. */
  cache?: boolean;
} = {}) {
  const layout = await makeLayout();
  await writeFile(layout.globalFile, globalToml);
  if (options.projectToml) await writeFile(layout.projectFile, options.projectToml);
  const env = envFrom({ PATH: Deno.env.get("PATH"), HOME: layout.root, ...options.env });
  const settings = resolveSettings({ flags: {}, env, cwd: layout.cwd, home: layout.home });
  const manager = new McpManager(settings, {
    env,
    fetch: globalThis.fetch,
    clock: options.clock ?? systemClock,
    workdir: layout.cwd,
    clientVersion: "test",
    ...(options.onChange ? { onChange: options.onChange } : {}),
    ...(options.cache ? { home: layout.home } : {}),
  });
  return {
    manager,
    layout,
    settings,
    async [Symbol.asyncDispose]() {
      await manager.close();
      await layout.cleanup();
    },
  };
}

const ctx = () => ({ workdir: "/", signal: new AbortController().signal });

function tool(tools: Tool[], name: string): Tool {
  const found = tools.find((t) => t.name === name);
  assert.ok(found, `${name} in ${tools.map((t) => t.name).join(", ")}`);
  return found;
}

peerTest(
  "stdio server-everything: tools listed with kinds, echo, structured, image, tool error",
  everythingProbe,
  async () => {
    await using t = await managerFor(everythingStdioToml());
    await t.manager.start();
    const [status] = t.manager.statuses();
    assert.equal(status?.state, "ready", status?.error);
    const tools = t.manager.tools();
    const echo = tool(tools, "mcp__everything__echo");
    assert.equal(echo.kind, "read", "readOnlyHint maps to read");
    assert.equal(tool(tools, "mcp__everything__toggle-simulated-logging").kind, "edit");
    assert.equal(
      (echo.input_schema.properties as Record<string, unknown>).message !== undefined,
      true,
    );

    const echoed = await echo.execute({ message: "hello mcp" }, ctx());
    assert.deepEqual(echoed, { type: "result", content: "Echo: hello mcp" });

    const weather = await tool(tools, "mcp__everything__get-structured-content")
      .execute({ location: "Chicago" }, ctx());
    assert.equal(weather.type, "result");
    assert.match(weather.content, /"temperature":36/);
    assert.equal((weather as { is_error?: boolean }).is_error, undefined);

    const image = await tool(tools, "mcp__everything__get-tiny-image").execute({}, ctx());
    assert.ok(image.type === "result" && image.images?.length === 1);
    assert.equal(image.images[0]!.media_type, "image/png");
    assert.match(image.content, /\[image 1: image\/png, \d+ bytes\]/);

    const bad = await tool(tools, "mcp__everything__get-sum").execute({ a: "x" }, ctx());
    assert.ok(bad.type === "result" && bad.is_error === true, JSON.stringify(bad));
    assert.match(bad.content, /expected number/);
  },
);

peerTest("a stdio server never sees the agent's provider keys", everythingProbe, async () => {
  await using t = await managerFor(everythingStdioToml("everything", 'env = { OWN = "mine" }\n'), {
    env: {
      ANTHROPIC_API_KEY: "sk-ant-secret",
      OPENAI_API_KEY: "sk-oai-secret",
      AGENT_API_KEY: "sk-agent-secret",
    },
  });
  await t.manager.start();
  const env = await tool(t.manager.tools(), "mcp__everything__get-env").execute({}, ctx());
  assert.equal(env.type, "result");
  assert.doesNotMatch(env.content, /secret/);
  assert.match(env.content, /"OWN": ?"mine"/);
});

peerTest("Streamable HTTP server-everything: echo and an allow list", everythingProbe, async () => {
  await using peer = await startEverythingHttp();
  await using t = await managerFor(
    `[mcp_servers.web]\nurl = "${peer.url}"\nenabled_tools = ["echo", "get-sum"]\n`,
  );
  await t.manager.start();
  assert.equal(t.manager.statuses()[0]?.state, "ready", t.manager.statuses()[0]?.error);
  assert.deepEqual(t.manager.tools().map((x) => x.name).sort(), [
    "mcp__web__echo",
    "mcp__web__get-sum",
  ]);
  const sum = await tool(t.manager.tools(), "mcp__web__get-sum").execute({ a: 2, b: 3 }, ctx());
  assert.equal(sum.type, "result");
  assert.match(sum.content, /5/);
});

Deno.test("disabled_tools hides those tools; a server with enabled = false is never spawned", async () => {
  const marker = await Deno.makeTempFile();
  await Deno.remove(marker);
  await using t = await managerFor(
    `[mcp_servers.raw]\ncommand = "node"\nargs = [${JSON.stringify(RAW_SERVER)}]\n` +
      `disabled_tools = ["crash", "hang"]\n` +
      `[mcp_servers.off]\ncommand = "sh"\nargs = ["-c", "touch ${marker}; exec node ${RAW_SERVER}"]\n` +
      `enabled = false\n`,
  );
  await t.manager.start();
  const [raw, off] = t.manager.statuses();
  assert.equal(raw?.state, "ready", raw?.error);
  assert.deepEqual(raw?.tools, ["mcp__raw__bad_structured"]);
  assert.deepEqual(t.manager.tools().map((x) => x.name), ["mcp__raw__bad_structured"]);
  assert.deepEqual(off, {
    name: "off",
    transport: "stdio",
    scope: "global",
    state: "disabled",
    tools: [],
  });
  await assert.rejects(Deno.stat(marker), Deno.errors.NotFound, "the disabled server never ran");
});

Deno.test("close() settles the tool list being remembered: the cache file is whole when it returns", async () => {
  await using t = await managerFor(
    `[mcp_servers.raw]\ncommand = "node"\nargs = [${JSON.stringify(RAW_SERVER)}]\n`,
    { cache: true },
  );
  await t.manager.start();
  assert.equal(t.manager.statuses()[0]?.state, "ready");
  await t.manager.close();
  // A caller may remove the home right after (the conformance client did, and lost the race).
  const cached = JSON.parse(await Deno.readTextFile(toolListPath(t.layout.home, "raw")));
  assert.ok(Array.isArray(cached.tools) && cached.tools.length > 0);
});

Deno.test("a server that never answers initialize fails after its startup_timeout_s, with no tools", async () => {
  const clock = new FakeClock();
  await using t = await managerFor(
    `[mcp_servers.mute]\ncommand = "node"\nargs = ["-e", "process.stdin.resume()"]\nstartup_timeout_s = 5\n`,
    { clock },
  );
  const started = t.manager.start();
  while (clock.pending === 0) await flushMicrotasks(1);
  await clock.advance(5_000);
  await started;
  const [status] = t.manager.statuses();
  assert.equal(status?.state, "failed");
  assert.match(status?.error ?? "", /no answer within startup_timeout_s = 5/);
  assert.deepEqual(t.manager.tools(), []);
});

Deno.test("a server that exits mid-call: the call is a tool error with its stderr, the server failed", async () => {
  await using t = await managerFor(
    `[mcp_servers.flaky]\ncommand = "node"\nargs = [${JSON.stringify(RAW_SERVER)}]\n`,
  );
  await t.manager.start();
  assert.equal(t.manager.statuses()[0]?.state, "ready", t.manager.statuses()[0]?.error);
  const crash = tool(t.manager.tools(), "mcp__flaky__crash");
  const result = await crash.execute({}, ctx());
  assert.ok(result.type === "result" && result.is_error === true);
  assert.match(result.content, /server went away/);
  assert.match(result.content, /crashing on purpose/);
  assert.equal(t.manager.statuses()[0]?.state, "failed");
  const again = await crash.execute({}, ctx());
  assert.ok(again.type === "result" && again.is_error === true);
  assert.match(again.content, /not connected/);
  // /mcp reconnect brings it back.
  assert.equal((await t.manager.reconnect("flaky")).state, "ready");
});

Deno.test("a server that fails to start is one line naming its stderr tail", async () => {
  await using t = await managerFor(
    `[mcp_servers.broken]\ncommand = "node"\nargs = ["-e", "console.error('boom: no config'); process.exit(2)"]\n`,
  );
  await t.manager.start();
  const [status] = t.manager.statuses();
  assert.equal(status?.state, "failed");
  assert.match(status?.error ?? "", /boom: no config/);
  assert.doesNotMatch(status?.error ?? "", /\n/);
});

Deno.test("a project-file server is not started until approved for that project", async () => {
  const changes: McpServerStatus[] = [];
  const marker = await Deno.makeTempFile();
  await Deno.remove(marker);
  const projectToml =
    `[mcp_servers.proj]\ncommand = "sh"\nargs = ["-c", "touch ${marker}; exec node -e 'process.stdin.resume()'"]\nstartup_timeout_s = 0.5\n`;
  {
    await using t = await managerFor("", { projectToml, onChange: (s) => changes.push(s) });
    await t.manager.start();
    const [status] = t.manager.statuses();
    assert.equal(status?.state, "needs_approval");
    assert.match(status?.error ?? "", /agent mcp approve proj/);
    await assert.rejects(Deno.stat(marker), Deno.errors.NotFound, "the command never ran");
  }
  // Approved (recorded in the global file under the project file's path): it runs.
  await using t = await managerFor("", { projectToml });
  const server = t.settings.mcp_servers[0]!;
  const entry = await approvalEntry(server);
  await writeFile(
    t.layout.globalFile,
    `[mcp_approvals]\n${JSON.stringify(server.file)} = [${JSON.stringify(entry)}]\n`,
  );
  const { resolveSettings: again } = await import("../settings/resolve.ts");
  const env = envFrom({ PATH: Deno.env.get("PATH"), HOME: t.layout.root });
  const approved = new McpManager(
    again({ flags: {}, env, cwd: t.layout.cwd, home: t.layout.home }),
    {
      env,
      fetch: globalThis.fetch,
      clock: systemClock,
      workdir: t.layout.cwd,
      clientVersion: "test",
    },
  );
  await approved.start();
  await approved.close();
  await Deno.stat(marker); // the command ran
  await Deno.remove(marker);
  assert.ok(changes.some((c) => c.state === "needs_approval"));
});

Deno.test("structured content that breaks the tool's output schema is a tool error (checked by the client)", async () => {
  await using t = await managerFor(
    `[mcp_servers.raw]\ncommand = "node"\nargs = [${JSON.stringify(RAW_SERVER)}]\n`,
  );
  await t.manager.start();
  assert.equal(t.manager.statuses()[0]?.state, "ready", t.manager.statuses()[0]?.error);
  const result = await tool(t.manager.tools(), "mcp__raw__bad_structured").execute({}, ctx());
  assert.ok(result.type === "result" && result.is_error === true, JSON.stringify(result));
  assert.match(result.content, /does not match the tool's output schema/);
  assert.match(result.content, /humidity/);
});

Deno.test("a tool that never answers is a tool error after tool_timeout_s; the server stays usable", async () => {
  await using t = await managerFor(
    `[mcp_servers.slow]\ncommand = "node"\nargs = [${
      JSON.stringify(RAW_SERVER)
    }]\ntool_timeout_s = 0.3\n`,
  );
  await t.manager.start();
  assert.equal(t.manager.statuses()[0]?.state, "ready", t.manager.statuses()[0]?.error);
  const hang = await tool(t.manager.tools(), "mcp__slow__hang").execute({}, ctx());
  assert.ok(hang.type === "result" && hang.is_error === true);
  assert.match(hang.content, /tool hang: no answer within tool_timeout_s = 0\.3/);
  // The run goes on: the same server answers the next call.
  assert.equal(t.manager.statuses()[0]?.state, "ready");
  const next = await tool(t.manager.tools(), "mcp__slow__bad_structured").execute({}, ctx());
  assert.ok(next.type === "result");
  assert.match(next.content, /humidity/);
});

Deno.test("closing an MCP server kills its whole process group, a grandchild ignoring EOF and SIGTERM too", async () => {
  await using dir = await tempDir();
  const pidFile = `${dir.path}/grandchild.pid`;
  // The server starts a grandchild that ignores stdin's end and SIGTERM, then becomes the
  // raw server itself (exec keeps the process, so the group leader is the MCP server).
  const script =
    `(trap '' TERM; exec sleep 300) </dev/null >/dev/null 2>&1 & echo $! > ${pidFile}; ` +
    `exec node ${RAW_SERVER}`;
  await using t = await managerFor(
    `[mcp_servers.parent]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\n`,
  );
  await t.manager.start();
  assert.equal(t.manager.statuses()[0]?.state, "ready", t.manager.statuses()[0]?.error);
  const grandchild = Number((await Deno.readTextFile(pidFile)).trim());
  assert.equal(alive(grandchild), true, "the grandchild runs while the server does");
  await t.manager.close();
  assert.equal(alive(grandchild), false, `grandchild ${grandchild} outlived the server's close`);
});

Deno.test("abandon() at exit returns at once and SIGTERMs each server's process group", async () => {
  await using dir = await tempDir();
  const pidFile = `${dir.path}/grandchild.pid`;
  // A grandchild that ignores stdin's end (a graceful stop would wait for it), not SIGTERM.
  const script = `(exec sleep 300) </dev/null >/dev/null 2>&1 & echo $! > ${pidFile}; ` +
    `exec node ${RAW_SERVER}`;
  await using t = await managerFor(
    `[mcp_servers.parent]\ncommand = "sh"\nargs = ["-c", ${JSON.stringify(script)}]\n`,
  );
  await t.manager.start();
  const grandchild = Number((await Deno.readTextFile(pidFile)).trim());
  assert.equal(alive(grandchild), true);
  // Nothing to await: the process exits right after.
  assert.equal(t.manager.abandon(), undefined);
  for (let i = 0; i < 200 && alive(grandchild); i++) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  assert.equal(alive(grandchild), false, `grandchild ${grandchild} was not signalled`);
});

/** Whether process `pid` runs: it exists (signal 0) and is not a zombie awaiting its reaper. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0); // node:process: Deno.kill has no probe signal
  } catch (err) {
    if ((err as { code?: string }).code === "ESRCH") return false;
    throw err;
  }
  try {
    // /proc/PID/stat: "pid (comm) STATE ..."; Z is a zombie (dead, not yet reaped).
    return !/\) Z /.test(Deno.readTextFileSync(`/proc/${pid}/stat`));
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false; // reaped between the two looks
    throw err;
  }
}

async function tempDir() {
  const path = await Deno.makeTempDir({ prefix: "mcp-group-" });
  return { path, [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }) };
}

Deno.test("a stdio command that is not there, or a cwd that is not, is one line saying which", async () => {
  await using t = await managerFor(
    `[mcp_servers.nocmd]\ncommand = "no-such-command-for-mcp"\n` +
      `[mcp_servers.nodir]\ncommand = "node"\ncwd = "missing-dir"\n`,
  );
  await t.manager.start();
  const [nocmd, nodir] = t.manager.statuses();
  assert.equal(nocmd?.state, "failed");
  assert.match(nocmd?.error ?? "", /could not start "no-such-command-for-mcp": .* is not found/);
  assert.equal(nodir?.state, "failed");
  assert.match(nodir?.error ?? "", /working directory .*missing-dir does not exist/);
});

Deno.test("a server that timed out and ignores EOF and SIGTERM is gone once close() returns", async () => {
  await using dir = await tempDir();
  const pidFile = `${dir.path}/server.pid`;
  const stubborn =
    `require("fs").writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); ` +
    `process.on("SIGTERM", () => {}); process.stdin.on("end", () => {}); setInterval(() => {}, 1e6);`;
  await using t = await managerFor(
    `[mcp_servers.stubborn]\ncommand = "node"\nargs = ["-e", ${
      JSON.stringify(stubborn)
    }]\nstartup_timeout_s = 0.5\n`,
  );
  await t.manager.start();
  const [status] = t.manager.statuses();
  assert.equal(status?.state, "failed");
  assert.match(status?.error ?? "", /no answer within startup_timeout_s = 0.5/);
  const pid = Number((await Deno.readTextFile(pidFile)).trim());
  await t.manager.close();
  assert.equal(alive(pid), false, `server ${pid} outlived close()`);
});
