// `agent -p` with MCP servers, as a real child process with the release permission flags,
// against the scripted fake model and real MCP servers (server-everything over stdio and
// Streamable HTTP, plus the small fixtures in tests/mcp/).

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { peerTest, probes } from "../peers.ts";
import {
  everythingProbe,
  everythingStdioToml,
  noteServerToml,
  probeServerToml,
  startEverythingHttp,
  TEST_SERVERS_DIR,
} from "../mcp/everything.ts";
import { startHttpTap } from "../mcp/http_tap.ts";
import { PLAN_DENIAL } from "../../core/agent/permissions.ts";

async function setup(
  globalToml: string,
  provider = "chat_completions",
  extraEnv: Record<string, string> = {},
) {
  const t = await headlessSetup({
    provider,
    // The key must never reach an MCP server.
    env: { AGENT_API_KEY: "sk-agent-secret-key", ...extraEnv },
  });
  await Deno.mkdir(`${t.home}/.agent`);
  await Deno.writeTextFile(`${t.home}/.agent/settings.toml`, globalToml);
  return Object.assign(t, {
    run: (args: string[]) =>
      runAgent(["-p", "--workdir", t.work, "--output-format", "json", ...args], t.env),
  });
}

type ChatBody = {
  tools?: Array<{ function: { name: string } }>;
  messages: Array<{ role: string; content?: unknown }>;
};

function toolNames(body: unknown): string[] {
  return ((body as ChatBody).tools ?? []).map((t) => t.function.name);
}

function toolMessages(body: unknown): string[] {
  return (body as ChatBody).messages.filter((m) => m.role === "tool").map((m) => String(m.content));
}

peerTest(
  "stdio server-everything: tools offered, echo, structured, image and a tool error reach the model",
  everythingProbe,
  async () => {
    await using t = await setup(everythingStdioToml());
    t.fake.enqueue(
      reply()
        .tool("mcp__everything__echo", { message: "hello from the model" })
        .tool("mcp__everything__get-structured-content", { location: "New York" })
        .tool("mcp__everything__get-tiny-image", {})
        .tool("mcp__everything__get-sum", { a: "not a number" }),
    );
    t.fake.enqueue(reply().text("done"));
    const r = await t.run(["--output", `${t.home}/report.md`, "--", "use the tools"]);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as HeadlessResult;
    assert.equal(result.final_text, "done");
    const names = toolNames(t.fake.requests[0]!.body);
    assert.ok(names.includes("view") && names.includes("mcp__everything__echo"), names.join());
    const [echo, weather, image, sum] = toolMessages(t.fake.requests[1]!.body);
    assert.equal(echo, "Echo: hello from the model");
    assert.match(String(weather), /"temperature":33/);
    assert.match(String(image), /\[image 1: image\/png, \d+ bytes\]/);
    assert.match(String(sum), /Input validation error/);
    // The JSON result and the report say which servers and tools the run had.
    const server = result.mcp_servers?.[0];
    assert.equal(server?.name, "everything");
    assert.equal(server?.state, "ready");
    assert.ok(server?.tools.includes("mcp__everything__echo"));
    const report = await Deno.readTextFile(`${t.home}/report.md`);
    assert.match(
      report,
      /## MCP servers\n\n- \*\*everything\*\* \(ready\): .*`mcp__everything__echo`/,
    );
    t.fake.assertNoViolations();
  },
);

peerTest(
  "on the Messages wire an MCP image goes to the model as an image block",
  everythingProbe,
  async () => {
    await using t = await setup(everythingStdioToml(), "messages");
    t.fake.enqueue(reply().tool("mcp__everything__get-tiny-image", {}));
    t.fake.enqueue(reply().text("seen"));
    const r = await t.run(["--", "look"]);
    assert.equal(r.code, 0, r.stderr);
    const body = t.fake.requests[1]!.body as {
      messages: Array<{ role: string; content: Array<Record<string, unknown>> | string }>;
    };
    const last = body.messages.at(-1)!;
    const block = (last.content as Array<Record<string, unknown>>).find((b) =>
      b.type === "tool_result"
    )!;
    const parts = block.content as Array<Record<string, unknown>>;
    assert.equal(parts[1]?.type, "image");
    assert.equal((parts[1]?.source as { media_type: string }).media_type, "image/png");
  },
);

peerTest(
  "Streamable HTTP server-everything: echo, structured, image and a tool error reach the model, with the stored key",
  everythingProbe,
  async () => {
    await using peer = await startEverythingHttp();
    await using tap = startHttpTap(peer.url);
    await using t = await setup(
      `[mcp_servers.web]\nurl = "${tap.url}"\nbearer_key = "web"\n[mcp_keys]\nweb = "sk-web-5e1d"\n`,
    );
    t.fake.enqueue(
      reply()
        .tool("mcp__web__echo", { message: "over http" })
        .tool("mcp__web__get-structured-content", { location: "Chicago" })
        .tool("mcp__web__get-tiny-image", {})
        .tool("mcp__web__get-sum", { a: "not a number" }),
    );
    t.fake.enqueue(reply().text("ok"));
    const r = await t.run(["--", "use the tools"]);
    assert.equal(r.code, 0, r.stderr);
    const [echo, weather, image, sum] = toolMessages(t.fake.requests[1]!.body);
    assert.equal(echo, "Echo: over http");
    assert.match(String(weather), /"temperature":36/);
    assert.match(String(image), /\[image 1: image\/png, \d+ bytes\]/);
    assert.match(String(sum), /Input validation error/);
    // Every request of the run carried the stored key; the four calls went over this server.
    assert.deepEqual(
      tap.requests.filter((q) => q.tool).map((q) => q.tool),
      ["echo", "get-structured-content", "get-tiny-image", "get-sum"],
    );
    for (const q of tap.requests) {
      assert.equal(q.headers.get("authorization"), "Bearer sk-web-5e1d");
    }
    assert.ok(!(r.stdout + r.stderr).includes("sk-web-5e1d"));
  },
);

peerTest(
  "a Streamable HTTP server that exits mid-call is a tool error for the model; the run finishes",
  everythingProbe,
  async () => {
    await using peer = await startEverythingHttp();
    // The server is killed the moment the call reaches it (the tap sees it pass).
    await using tap = startHttpTap(peer.url, () => void peer[Symbol.asyncDispose]());
    await using t = await setup(`[mcp_servers.web]\nurl = "${tap.url}"\ntool_timeout_s = 20\n`);
    t.fake.enqueue(
      reply().tool("mcp__web__trigger-long-running-operation", { duration: 30, steps: 3 }),
    );
    t.fake.enqueue(reply().text("coped"));
    const r = await t.run(["--", "run it"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as HeadlessResult).final_text, "coped");
    const [content] = toolMessages(t.fake.requests[1]!.body);
    // Seen as gone at once (a ping after the broken stream), not waited out to tool_timeout_s.
    assert.match(
      String(content),
      /^MCP server web, tool trigger-long-running-operation: .*; the server went away$/,
    );
  },
);

Deno.test("a server that never answers initialize: the run goes on without it after startup_timeout_s", async () => {
  await using t = await setup(
    `[mcp_servers.mute]\ncommand = "node"\nargs = ["-e", "process.stdin.resume()"]\nstartup_timeout_s = 1\n`,
  );
  t.fake.enqueue(reply().text("answered anyway"));
  const r = await t.run(["--", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /MCP server mute failed: no answer within startup_timeout_s = 1/);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.final_text, "answered anyway");
  assert.deepEqual(result.mcp_servers, [{
    name: "mute",
    state: "failed",
    tools: [],
    error: "no answer within startup_timeout_s = 1 (it wrote nothing to stderr)",
  }]);
  // The workspace tools were offered (the list is not empty), and no tool of the mute server.
  const offered = toolNames(t.fake.requests[0]!.body);
  assert.ok(offered.includes("view"), offered.join(", "));
  assert.ok(!offered.some((n) => n.startsWith("mcp__")), offered.join(", "));
});

peerTest(
  "plan mode denies a non-read-only MCP tool; the server never runs it",
  everythingProbe,
  async () => {
    await using t = await setup(noteServerToml());
    t.fake.enqueue(reply().tool("mcp__notes__write_note", { path: "n.txt", text: "x" }));
    t.fake.enqueue(reply().text("planned"));
    const r = await t.run(["--mode", "plan", "--", "write a note"]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(toolMessages(t.fake.requests[1]!.body), [PLAN_DENIAL]);
    await assert.rejects(Deno.stat(`${t.work}/n.txt`), Deno.errors.NotFound);
  },
);

peerTest(
  "strict mode: an MCP write needs approval (exit 2, call recorded) and resume applies it exactly",
  everythingProbe,
  async () => {
    await using t = await setup(noteServerToml());
    t.fake.enqueue(
      reply().tool("mcp__notes__write_note", { path: "n.txt", text: "exact text\nline 2" }),
    );
    const r = await t.run(["--mode", "strict", "--", "write a note"]);
    assert.equal(r.code, 2, r.stderr);
    const result = JSON.parse(r.stdout) as HeadlessResult;
    assert.equal(result.questions[0]?.kind, "approval");
    assert.match(result.questions[0]?.detail ?? "", /MCP server notes .*tool write_note/);
    assert.match(result.questions[0]?.detail ?? "", /"text": "exact text\\nline 2"/);
    await assert.rejects(Deno.stat(`${t.work}/n.txt`), Deno.errors.NotFound);

    t.fake.enqueue(reply().text("written"));
    const resumed = await t.run([
      "--mode",
      "strict",
      "--resume",
      result.session_id!,
      "--",
      "approved",
    ]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(await Deno.readTextFile(`${t.work}/n.txt`), "exact text\nline 2");
    assert.match(
      toolMessages(t.fake.requests[1]!.body)[0]!,
      /Approved by the operator and run\. wrote 17/,
    );
  },
);

peerTest(
  "auto mode applies a non-read-only MCP tool without asking",
  everythingProbe,
  async () => {
    await using t = await setup(noteServerToml());
    t.fake.enqueue(reply().tool("mcp__notes__write_note", { path: "n.txt", text: "auto text" }));
    t.fake.enqueue(reply().text("written"));
    const r = await t.run(["--mode", "auto", "--", "write a note"]);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as HeadlessResult;
    assert.deepEqual(result.questions, []);
    assert.equal(await Deno.readTextFile(`${t.work}/n.txt`), "auto text");
    assert.deepEqual(toolMessages(t.fake.requests[1]!.body), [
      "wrote 9 characters to n.txt",
    ]);
  },
);

type StrictTool = { function: { name: string; strict?: boolean; parameters: unknown } };

peerTest(
  "--strict-tools normalizes an MCP tool's schema like a built-in's and leaves an open one as the server wrote it",
  everythingProbe,
  async () => {
    await using t = await setup(everythingStdioToml());
    // count is optional, so strict mode makes it nullable: a null the model sends must reach
    // the server as "absent" (the server's zod schema rejects null).
    t.fake.enqueue(reply().tool("mcp__everything__get-resource-links", { count: null }));
    t.fake.enqueue(reply().text("ok"));
    const r = await t.run(["--strict-tools", "--", "links"]);
    assert.equal(r.code, 0, r.stderr);
    const tools = (t.fake.requests[0]!.body as { tools: StrictTool[] }).tools;
    const fn = (name: string) => tools.find((x) => x.function.name === name)!.function;
    assert.equal(fn("view").strict, true, "the built-ins are strict in this run");
    const echo = fn("mcp__everything__echo");
    assert.equal(echo.strict, true);
    assert.deepEqual(echo.parameters, {
      type: "object",
      properties: { message: { type: "string", description: "Message to echo" } },
      required: ["message"],
      additionalProperties: false,
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    const links = fn("mcp__everything__get-resource-links");
    assert.equal(links.strict, true);
    assert.deepEqual(
      (links.parameters as { properties: { count: { type: unknown } } }).properties.count.type,
      ["number", "null"],
    );
    // An open object (no properties) cannot be normalized: sent unchanged, without strict.
    const image = fn("mcp__everything__get-tiny-image");
    assert.equal(image.strict, undefined);
    assert.deepEqual(image.parameters, {
      type: "object",
      properties: {},
      $schema: "http://json-schema.org/draft-07/schema#",
    });
    assert.match(toolMessages(t.fake.requests[1]!.body)[0]!, /^Here are 3 resource links/);
  },
);

Deno.test("a server that exits mid-call is a tool error for the model; the run finishes", async () => {
  const fixture = new URL("../mcp/raw_server.mjs", import.meta.url).pathname;
  await using t = await setup(
    `[mcp_servers.flaky]\ncommand = "node"\nargs = ["${fixture}"]\n` +
      `read_paths = [${JSON.stringify(TEST_SERVERS_DIR)}]\n`,
  );
  t.fake.enqueue(reply().tool("mcp__flaky__crash", {}));
  t.fake.enqueue(reply().text("coped"));
  const r = await t.run(["--", "crash it"]);
  assert.equal(r.code, 0, r.stderr);
  const [content] = toolMessages(t.fake.requests[1]!.body);
  assert.match(
    String(content),
    /the server went away \(stderr: raw-server: crashing on purpose\)/,
  );
});

Deno.test("a project-file server does not start until `agent mcp approve` records it", async () => {
  await using t = await setup("");
  const marker = `${t.work}/started`; // the workdir: the one place a sandboxed server can write
  await Deno.mkdir(`${t.work}/.git`);
  await Deno.mkdir(`${t.work}/.agent`);
  await Deno.writeTextFile(
    `${t.work}/.agent/settings.toml`,
    `[mcp_servers.proj]\ncommand = "sh"\nargs = ["-c", "touch ${marker}; exec node -e 'process.stdin.resume()'"]\nstartup_timeout_s = 1\n`,
  );
  t.fake.enqueue(reply().text("one"));
  const first = await t.run(["--", "hi"]);
  assert.equal(first.code, 0, first.stderr);
  assert.equal(
    (JSON.parse(first.stdout) as HeadlessResult).mcp_servers?.[0]?.state,
    "needs_approval",
  );
  assert.match(first.stderr, /agent mcp approve proj/);
  await assert.rejects(Deno.stat(marker), Deno.errors.NotFound, "not started before approval");

  const approve = await runAgent(["mcp", "approve", "proj"], t.env, t.work);
  assert.equal(approve.code, 0, approve.stderr);
  const global = await Deno.readTextFile(`${t.home}/.agent/settings.toml`);
  assert.match(global, /\[mcp_approvals\]/);

  t.fake.enqueue(reply().text("two"));
  const second = await t.run(["--", "hi"]);
  assert.equal(second.code, 0, second.stderr);
  await Deno.stat(marker); // started this time
});

Deno.test("a tool that never answers becomes a tool error after tool_timeout_s and the run goes on", async () => {
  const raw = new URL("../mcp/raw_server.mjs", import.meta.url).pathname;
  await using t = await setup(
    `[mcp_servers.slow]\ncommand = "node"\nargs = [${
      JSON.stringify(raw)
    }]\ntool_timeout_s = 0.5\n` +
      `read_paths = [${JSON.stringify(TEST_SERVERS_DIR)}]\n`,
  );
  t.fake.enqueue(reply().tool("mcp__slow__hang", {}));
  t.fake.enqueue(reply().text("went on without it"));
  const r = await t.run(["--", "call the slow tool"]);
  assert.equal(r.code, 0, r.stderr);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.final_text, "went on without it");
  const [hang] = toolMessages(t.fake.requests[1]!.body);
  assert.match(String(hang), /MCP server slow, tool hang: no answer within tool_timeout_s = 0\.5/);
});

/** What probe_server.mjs reports, one tool call per question, for the checks below. */
async function probeRun(globalToml: string, extraEnv: Record<string, string> = {}) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const accepting = (async () => {
    for await (const conn of listener) conn.close();
  })().catch(() => {});
  await using t = await setup(globalToml, "chat_completions", extraEnv);
  await Deno.writeTextFile(`${t.home}/private.txt`, "operator's own file");
  t.fake.enqueue(
    reply()
      .tool("mcp__probe__read", { path: `${t.home}/.agent/settings.toml` })
      .tool("mcp__probe__read", { path: `${t.home}/private.txt` })
      .tool("mcp__probe__whoami", {})
      .tool("mcp__probe__connect", { port }),
  );
  t.fake.enqueue(reply().text("probed"));
  const r = await t.run(["--", "probe"]);
  listener.close();
  await accepting;
  const result = JSON.parse(r.stdout || "{}") as HeadlessResult;
  const [settings, home, whoami, connect] = t.fake.requests.length > 1
    ? toolMessages(t.fake.requests[1]!.body)
    : [];
  return { r, result, settings, home, whoami, connect };
}

peerTest(
  "a sandboxed stdio server cannot read the agent home or the real HOME, see the agent's process or reach the network",
  probes.bubblewrap,
  async () => {
    const p = await probeRun(probeServerToml());
    assert.equal(p.r.code, 0, p.r.stderr);
    assert.equal(p.result.mcp_servers?.[0]?.state, "ready", p.r.stderr);
    assert.equal(p.settings, "error: ENOENT");
    assert.equal(p.home, "error: ENOENT");
    // Its own PID namespace: bwrap's pid 1, the server, nothing of the agent's.
    const who = JSON.parse(p.whoami!) as { pid: number; proc: string[] };
    assert.ok(who.pid < 10, p.whoami);
    assert.ok(who.proc.includes(String(who.pid)), p.whoami);
    assert.ok(who.proc.every((pid) => Number(pid) < 10), p.whoami);
    assert.equal(p.connect, "error: ECONNREFUSED", "sandbox_network off: its own loopback only");
  },
);

peerTest(
  "network = true in the global file lets a sandboxed server reach the host's network",
  probes.bubblewrap,
  async () => {
    const p = await probeRun(probeServerToml("probe", "network = true\n"));
    assert.equal(p.r.code, 0, p.r.stderr);
    assert.equal(p.connect, "connected");
    assert.equal(p.settings, "error: ENOENT", "the files stay hidden");
  },
);

Deno.test('with sandbox = "off" a stdio server runs unsandboxed, as the agent\'s user', async () => {
  const p = await probeRun(`sandbox = "off"\n${probeServerToml()}`);
  assert.equal(p.r.code, 0, p.r.stderr);
  assert.match(p.settings ?? "", /sandbox = "off"/);
  assert.equal(p.home, "operator's own file");
  assert.equal(p.connect, "connected");
});

Deno.test("auto without bwrap on PATH: the server is not started, with the hint, and the run goes on", async () => {
  const bin = await Deno.makeTempDir({ prefix: "no-bwrap-" });
  try {
    for (const tool of ["node", "sh"]) {
      const found = new Deno.Command("sh", { args: ["-c", `command -v ${tool}`] }).outputSync();
      await Deno.symlink(new TextDecoder().decode(found.stdout).trim(), `${bin}/${tool}`);
    }
    await using t = await setup(probeServerToml(), "chat_completions", { PATH: bin });
    t.fake.enqueue(reply().text("went on"));
    const r = await t.run(["--", "hi"]);
    assert.equal(r.code, 0, r.stderr);
    const result = JSON.parse(r.stdout) as HeadlessResult;
    assert.equal(result.final_text, "went on");
    assert.equal(result.mcp_servers?.[0]?.state, "failed");
    assert.match(
      result.mcp_servers?.[0]?.error ?? "",
      /^not started: sandbox: bubblewrap is not installed \(no bwrap on PATH\): install it .*sandbox = "off"/,
    );
    assert.match(r.stderr, /MCP server probe failed: not started: sandbox: bubblewrap/);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});

Deno.test("a project-file server asking for network = true is refused with one line", async () => {
  await using t = await setup("");
  await Deno.mkdir(`${t.work}/.git`);
  await Deno.mkdir(`${t.work}/.agent`);
  await Deno.writeTextFile(
    `${t.work}/.agent/settings.toml`,
    probeServerToml("proj", "network = true\n"),
  );
  const approve = await runAgent(["mcp", "approve", "proj"], t.env, t.work);
  assert.equal(approve.code, 0, approve.stderr);
  t.fake.enqueue(reply().text("ok"));
  const r = await t.run(["--", "hi"]);
  assert.equal(r.code, 0, r.stderr);
  const server = (JSON.parse(r.stdout) as HeadlessResult).mcp_servers?.[0];
  assert.equal(server?.state, "failed");
  assert.match(server?.error ?? "", /^network = true is ignored for a server from a project/);
});
