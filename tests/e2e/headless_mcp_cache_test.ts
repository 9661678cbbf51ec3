// The MCP tool-list cache through the real `agent -p` (release flags, default sandbox): a run
// whose servers' tool lists are remembered sends its first model request before any server has
// answered initialize (tests/mcp/sleepy_server.mjs sleeps, then writes a marker file as it
// answers), a call of a remembered tool waits for its server, and a list that changed is
// offered from the next request on and remembered for the next run.

import assert from "node:assert/strict";
import { reply } from "../fakes/model_server.ts";
import { headlessSetup, runAgent } from "./agent_process.ts";
import type { HeadlessResult } from "../../core/agent/types.ts";
import { TEST_SERVERS_DIR } from "../mcp/everything.ts";

const SLEEPY = `${TEST_SERVERS_DIR}/sleepy_server.mjs`;

function sleepyToml(name: string, sleepMs: number, work: string): string {
  return `[mcp_servers.${name}]\ncommand = "node"\n` +
    `args = [${JSON.stringify(SLEEPY)}, "${sleepMs}", ${
      JSON.stringify(`${work}/${name}.tools`)
    }, ` +
    `${JSON.stringify(`${work}/${name}.up`)}]\n` +
    `read_paths = [${JSON.stringify(TEST_SERVERS_DIR)}]\n`;
}

async function setup(servers: Record<string, { sleepMs: number; tools: string[] }>) {
  const t = await headlessSetup();
  await Deno.mkdir(`${t.home}/.agent`);
  let toml = "";
  for (const [name, s] of Object.entries(servers)) {
    toml += sleepyToml(name, s.sleepMs, t.work);
    await Deno.writeTextFile(`${t.work}/${name}.tools`, s.tools.join("\n") + "\n");
  }
  await Deno.writeTextFile(`${t.home}/.agent/settings.toml`, toml);
  return Object.assign(t, {
    run: (prompt: string) =>
      runAgent(["-p", "--workdir", t.work, "--output-format", "json", "--", prompt], t.env),
    /** Whether server `name` has answered initialize (its marker is there). */
    up: async (name: string) => {
      try {
        await Deno.stat(`${t.work}/${name}.up`);
        return true;
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return false;
        throw err;
      }
    },
    forget: (name: string) => Deno.remove(`${t.work}/${name}.up`),
  });
}

function toolNames(body: unknown): string[] {
  return ((body as { tools?: { function: { name: string } }[] }).tools ?? [])
    .map((t) => t.function.name).filter((n) => n.startsWith("mcp__"));
}

function toolMessages(body: unknown): string[] {
  return (body as { messages: { role: string; content?: unknown }[] }).messages
    .filter((m) => m.role === "tool").map((m) => String(m.content));
}

Deno.test("a remembered tool list: the first request leaves before the server answers initialize; a call waits for it", async () => {
  await using t = await setup({ slow: { sleepMs: 2000, tools: ["alpha"] } });
  // First run: nothing remembered yet, so the request waits for the server's list.
  t.fake.enqueue(reply().text("first"));
  const first = await t.run("hi");
  assert.equal(first.code, 0, first.stderr);
  assert.deepEqual(toolNames(t.fake.requests[0]!.body), ["mcp__slow__alpha"]);
  assert.ok(await t.up("slow"));
  const remembered = JSON.parse(
    await Deno.readTextFile(`${t.home}/.agent/mcp/tool-lists/slow.json`),
  );
  assert.deepEqual(remembered.tools.map((x: { name: string }) => x.name), ["alpha"]);

  await t.forget("slow");
  t.fake.enqueue(reply().tool("mcp__slow__alpha", {}));
  t.fake.enqueue(reply().text("done"));
  const second = t.run("use it");
  await t.fake.waitForRequests(2);
  // The request went out with the remembered tool while the server was still asleep.
  assert.equal(await t.up("slow"), false, "the first request waited for initialize");
  assert.deepEqual(toolNames(t.fake.requests[1]!.body), ["mcp__slow__alpha"]);
  const r = await second;
  assert.equal(r.code, 0, r.stderr);
  // The call waited for the connection, then ran on the server.
  assert.deepEqual(toolMessages(t.fake.requests[2]!.body), ["alpha ran"]);
  const result = JSON.parse(r.stdout) as HeadlessResult;
  assert.equal(result.mcp_servers?.[0]?.state, "ready");
});

Deno.test("a changed tool list is offered from the next request on and remembered; a vanished tool is a clear tool error", async () => {
  await using t = await setup({ srv: { sleepMs: 300, tools: ["alpha"] } });
  t.fake.enqueue(reply().text("first"));
  assert.equal((await t.run("hi")).code, 0);

  // Same settings, new list (the server was upgraded in place).
  await Deno.writeTextFile(`${t.work}/srv.tools`, "alpha\nbeta\n");
  t.fake.enqueue(reply().tool("mcp__srv__alpha", {}));
  t.fake.enqueue(reply().text("second"));
  const second = await t.run("go");
  assert.equal(second.code, 0, second.stderr);
  assert.deepEqual(toolNames(t.fake.requests[1]!.body), ["mcp__srv__alpha"], "remembered list");
  assert.deepEqual(toolNames(t.fake.requests[2]!.body), ["mcp__srv__alpha", "mcp__srv__beta"]);
  assert.deepEqual(toolMessages(t.fake.requests[2]!.body), ["alpha ran"]);
  const remembered = JSON.parse(
    await Deno.readTextFile(`${t.home}/.agent/mcp/tool-lists/srv.json`),
  );
  assert.deepEqual(remembered.tools.map((x: { name: string }) => x.name), ["alpha", "beta"]);

  // Now alpha is gone: the model, offered the remembered list, calls it.
  await Deno.writeTextFile(`${t.work}/srv.tools`, "gamma\n");
  t.fake.enqueue(reply().tool("mcp__srv__alpha", {}));
  t.fake.enqueue(reply().text("third"));
  const third = await t.run("again");
  assert.equal(third.code, 0, third.stderr);
  assert.deepEqual(toolMessages(t.fake.requests[4]!.body), [
    "MCP server srv no longer offers a tool alpha; its tools are now: gamma",
  ]);
  assert.deepEqual(toolNames(t.fake.requests[4]!.body), ["mcp__srv__gamma"]);
});

Deno.test("ten slow servers with remembered lists: the first request leaves before any has answered", async () => {
  const servers: Record<string, { sleepMs: number; tools: string[] }> = {};
  for (let i = 0; i < 10; i++) {
    servers[`s${i}`] = { sleepMs: 1000 + i * 222, tools: [`t${i}`] };
  }
  await using t = await setup(servers);
  t.fake.enqueue(reply().text("first"));
  const first = await t.run("hi");
  assert.equal(first.code, 0, first.stderr);
  assert.equal(toolNames(t.fake.requests[0]!.body).length, 10);
  for (const name of Object.keys(servers)) await t.forget(name);

  t.fake.enqueue(reply().text("second"));
  const second = t.run("hi again");
  await t.fake.waitForRequests(2);
  const upAlready = [];
  for (const name of Object.keys(servers)) if (await t.up(name)) upAlready.push(name);
  // Paced by none of them (the slowest sleeps 3 s), not by the slowest.
  assert.deepEqual(upAlready, []);
  assert.deepEqual(
    toolNames(t.fake.requests[1]!.body),
    Object.keys(servers).map((name, i) => `mcp__${name}__t${i}`),
  );
  const r = await second;
  assert.equal(r.code, 0, r.stderr);
  // No tool of theirs was called: none was needed, so none was started.
  const states = (JSON.parse(r.stdout) as HeadlessResult).mcp_servers?.map((s) => s.state);
  assert.deepEqual(states, Object.keys(servers).map(() => "remembered"));
});
