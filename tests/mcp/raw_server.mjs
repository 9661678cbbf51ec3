// A misbehaving stdio MCP server for tests (run with node), hand-written so it can break the
// rules a real SDK server enforces on itself. It answers initialize and tools/list like a real
// one; a call of `crash` exits the process (code 3, after one stderr line), so the client sees
// a server that goes away mid-call; `bad_structured` answers with structured content that its
// declared output schema rejects, which only the client can catch; `hang` never answers (for
// tool_timeout_s), and the server stays usable for the next call.
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
        serverInfo: { name: "raw-server", version: "1.0.0" },
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
        }, {
          name: "hang",
          description: "Never answers",
          inputSchema: { type: "object", properties: {} },
          annotations: { readOnlyHint: true },
        }, {
          name: "bad_structured",
          description: "Structured content that breaks its output schema",
          inputSchema: { type: "object", properties: {} },
          outputSchema: {
            type: "object",
            properties: { humidity: { type: "number" } },
            required: ["humidity"],
          },
          annotations: { readOnlyHint: true },
        }],
      },
    });
  } else if (msg.method === "tools/call" && msg.params.name === "bad_structured") {
    send({
      id: msg.id,
      result: {
        content: [{ type: "text", text: '{"humidity":"wet"}' }],
        structuredContent: { humidity: "wet" },
      },
    });
  } else if (msg.method === "tools/call" && msg.params.name === "hang") {
    // No answer, ever.
  } else if (msg.method === "tools/call") {
    process.stderr.write("raw-server: crashing on purpose\n");
    process.exit(3);
  }
});
