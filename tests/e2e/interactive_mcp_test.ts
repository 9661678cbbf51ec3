// /mcp in a real pseudo-terminal: the session's servers with their state and tools, a failed
// server's stderr line and reconnect hint, and `/mcp reconnect NAME` bringing it up, its tools
// then offered to the model on the next reply.

import assert from "node:assert/strict";
import { peerTest, probes } from "../peers.ts";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { TmuxAgent } from "./interactive_tmux.ts";
import { TEST_SERVERS_DIR } from "../mcp/everything.ts";

const RAW_SERVER = new URL("../mcp/raw_server.mjs", import.meta.url).pathname;

peerTest(
  "/mcp lists servers and tools; /mcp reconnect brings a failed server up",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer({ models: [{ id: "served", max_model_len: 65536 }] });
    const markerDir = await Deno.makeTempDir({ prefix: "mcp-marker-" });
    const marker = `${markerDir}/ready`;
    // `later` fails until the marker exists (as a server missing its config would).
    const later = `if [ -f ${marker} ]; then exec node ${RAW_SERVER}; ` +
      `else echo "later: ${marker} is missing" >&2; exit 1; fi`;
    const settings = [
      `[mcp_servers.good]`,
      `command = "node"`,
      `args = [${JSON.stringify(RAW_SERVER)}]`,
      `read_paths = [${JSON.stringify(TEST_SERVERS_DIR)}]`,
      `[mcp_servers.later]`,
      `command = "sh"`,
      `args = ["-c", ${JSON.stringify(later)}]`,
      // The sandbox's /tmp is its own: the marker's directory is bound in to be seen.
      `read_paths = [${JSON.stringify(TEST_SERVERS_DIR)}, ${JSON.stringify(markerDir)}]`,
      "",
    ].join("\n");
    const agent = await TmuxAgent.start({
      settings,
      width: 160,
      env: {
        AGENT_MEMORY_REFLECT: "0",
        AGENT_BASE_URL: fake.url,
        AGENT_PROVIDER: "chat_completions",
      },
    });
    try {
      await agent.idle();
      await agent.submit("/mcp");
      let screen = await agent.waitFor(/\/mcp reconnect later/);
      assert.match(screen, /good \(stdio, global\): ready, 3 tools/);
      assert.match(screen, /mcp__good__crash, mcp__good__hang, mcp__good__bad_structured/);
      assert.match(screen, /later \(stdio, global\): failed/);
      assert.match(screen, /later: .* is missing/);

      await Deno.writeTextFile(marker, "");
      await agent.submit("/mcp reconnect later");
      screen = await agent.waitFor(/later \(stdio, global\): ready, 3 tools/);
      assert.match(screen, /mcp__later__crash, mcp__later__hang, mcp__later__bad_structured/);
      await agent.idle();

      // The reconnected server's tools reach the model with the next reply.
      fake.enqueue(reply().text("seen"));
      await agent.submit("which tools?");
      await agent.waitFor(/seen/);
      const tools = ((fake.requests[0]!.body as { tools?: Array<{ function: { name: string } }> })
        .tools ?? []).map((t) => t.function.name);
      assert.ok(tools.includes("mcp__good__hang"), tools.join());
      assert.ok(tools.includes("mcp__later__hang"), tools.join());

      await agent.submit("/exit");
      assert.equal(await agent.waitForExit(), 0);
    } finally {
      await agent.close();
      await fake.close();
      await Deno.remove(marker.replace(/\/ready$/, ""), { recursive: true });
    }
  },
);

peerTest(
  "the prompt opens while a slow server connects behind it; the status line says so",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer({ models: [{ id: "served", max_model_len: 65536 }] });
    const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "mcp-slow-" }));
    await Deno.writeTextFile(`${dir}/slow.tools`, "alpha\n");
    // tests/mcp/sleepy_server.mjs answers initialize after 3 s, writing `slow.up` as it does.
    const settings = [
      `[mcp_servers.slow]`,
      `command = "node"`,
      `args = [${JSON.stringify(`${TEST_SERVERS_DIR}/sleepy_server.mjs`)}, "3000", ` +
      `${JSON.stringify(`${dir}/slow.tools`)}, "slow.up"]`,
      `read_paths = [${JSON.stringify(TEST_SERVERS_DIR)}, ${JSON.stringify(dir)}]`,
      "",
    ].join("\n");
    const agent = await TmuxAgent.start({
      settings,
      width: 160,
      env: {
        AGENT_MEMORY_REFLECT: "0",
        AGENT_BASE_URL: fake.url,
        AGENT_PROVIDER: "chat_completions",
      },
    });
    try {
      const screen = await agent.idle();
      assert.match(screen, /mcp connecting 1\/1/);
      // The server writes its marker into the workdir as it answers: not there yet.
      await assert.rejects(Deno.stat(`${agent.workdir}/slow.up`), Deno.errors.NotFound);
      // A turn needs the server's tools (never seen before): it waits for them.
      fake.enqueue(reply().text("seen"));
      await agent.submit("which tools?");
      await agent.waitFor(/seen/);
      const tools = ((fake.requests[0]!.body as { tools?: Array<{ function: { name: string } }> })
        .tools ?? []).map((t) => t.function.name);
      assert.ok(tools.includes("mcp__slow__alpha"), tools.join());
      await agent.submit("/exit");
      assert.equal(await agent.waitForExit(), 0);
    } finally {
      await agent.close();
      await fake.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

peerTest(
  "an MCP server's form is asked field by field in the session, each answer checked",
  probes.tmux,
  async () => {
    const fake = await startFakeModelServer({ models: [{ id: "served", max_model_len: 65536 }] });
    const agent = await TmuxAgent.start({
      settings: [
        `[mcp_servers.tables]`,
        `command = "node"`,
        `args = [${JSON.stringify(`${TEST_SERVERS_DIR}/form_server.mjs`)}]`,
        `read_paths = [${JSON.stringify(TEST_SERVERS_DIR)}]`,
        "",
      ].join("\n"),
      width: 160,
      env: {
        AGENT_MEMORY_REFLECT: "0",
        AGENT_BASE_URL: fake.url,
        AGENT_PROVIDER: "chat_completions",
      },
    });
    try {
      await agent.idle();
      fake.enqueue(reply().tool("mcp__tables__book", {}));
      fake.enqueue(reply().text("table booked"));
      await agent.submit("book a table");
      await agent.waitFor(/MCP server tables asks: Which day, and for how many\?/);
      await agent.waitFor(/Fill it in/);
      await agent.keys("Enter");
      await agent.waitFor(/date \(the day\)/);
      await agent.submit("tomorrow"); // not a date: asked again
      await agent.waitFor(/date: expected a date YYYY-MM-DD/);
      await agent.submit("2026-12-01");
      await agent.waitFor(/seats.*\[enter: 2\]/);
      await agent.keys("Enter");
      await agent.waitFor(/note.*\[enter: leave out\]/);
      await agent.keys("Enter");
      await agent.waitFor(/table booked/);
      const body = fake.requests[1]!.body as { messages: { role: string; content?: unknown }[] };
      const results = body.messages.filter((m) => m.role === "tool").map((m) => m.content);
      assert.deepEqual(results, ["booked 2026-12-01 for 2"]);
      await agent.submit("/exit");
      assert.equal(await agent.waitForExit(), 0);
    } finally {
      await agent.close();
      await fake.close();
    }
  },
);
