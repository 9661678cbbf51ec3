// A misbehaving stdio MCP server for tests (run with node): it answers initialize and
// tools/list like a real one, then exits (code 3, after one stderr line) on the first
// tools/call, so the client sees a server that goes away mid-call.
import { createInterface } from "node:readline";

const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.method === "initialize") {
    send({
      id: msg.id,
      result: {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "exit-on-call", version: "1.0.0" },
      },
    });
  } else if (msg.method === "tools/list") {
    send({
      id: msg.id,
      result: {
        tools: [{
          name: "crash",
          description: "Exits the server mid-call",
          inputSchema: { type: "object", properties: {} },
          annotations: { readOnlyHint: true },
        }],
      },
    });
  } else if (msg.method === "tools/call") {
    process.stderr.write("exit-on-call: crashing on purpose\n");
    process.exit(3);
  }
});
