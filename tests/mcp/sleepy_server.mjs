// A stdio MCP server that is slow to start, for the tool-list cache tests (run with node, no
// dependencies): `node sleepy_server.mjs SLEEP_MS TOOLS_FILE MARKER`. It waits SLEEP_MS before
// answering initialize, and just before answering writes MARKER (so a test can tell whether a
// model request left before the server was up). Its tools are the names listed, one a line, in
// TOOLS_FILE, read at start: a test changes the file between runs to change the list without
// changing the server's settings. Each tool answers "<tool> ran".
import { createInterface } from "node:readline";
import { readFileSync, writeFileSync } from "node:fs";

const [sleepMs, toolsFile, marker] = process.argv.slice(2);
const names = readFileSync(toolsFile, "utf8").split("\n").map((l) => l.trim()).filter(Boolean);
const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
const started = new Promise((resolve) => setTimeout(resolve, Number(sleepMs)));

createInterface({ input: process.stdin }).on("line", async (line) => {
  const msg = JSON.parse(line);
  if (msg.method === "initialize") {
    await started;
    writeFileSync(marker, `${Date.now()}\n`);
    send({
      id: msg.id,
      result: {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "sleepy-server", version: "1.0.0" },
      },
    });
  } else if (msg.method === "tools/list") {
    send({
      id: msg.id,
      result: {
        tools: names.map((name) => ({
          name,
          description: `the ${name} tool`,
          inputSchema: { type: "object", properties: {} },
          annotations: { readOnlyHint: true },
        })),
      },
    });
  } else if (msg.method === "tools/call") {
    send({ id: msg.id, result: { content: [{ type: "text", text: `${msg.params.name} ran` }] } });
  } else if (msg.method === "ping") {
    send({ id: msg.id, result: {} });
  }
});
