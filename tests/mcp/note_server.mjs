// A stdio MCP server for permission tests (run with node), built on the official SDK that the
// server-everything install brings along: `node note_server.mjs <node_modules dir>`. Its one
// tool, write_note, carries no annotations (so the agent treats it as the stricter kind) and
// writes `text` to `path` under the server's working directory: an effect a test can see.
// bad_weather answers with structured content its own output schema rejects.
import { writeFileSync } from "node:fs";

const modules = process.argv[2];
const { McpServer } = await import(`${modules}/@modelcontextprotocol/sdk/dist/esm/server/mcp.js`);
const { StdioServerTransport } = await import(
  `${modules}/@modelcontextprotocol/sdk/dist/esm/server/stdio.js`
);
const { z } = await import(`${modules}/zod/index.js`);

const server = new McpServer({ name: "notes", version: "1.0.0" });
server.registerTool(
  "write_note",
  {
    description: "Writes a note file",
    inputSchema: { path: z.string(), text: z.string() },
  },
  ({ path, text }) => {
    if (path.includes("..") || path.startsWith("/")) {
      return { content: [{ type: "text", text: "path must stay in the workdir" }], isError: true };
    }
    writeFileSync(path, text);
    return { content: [{ type: "text", text: `wrote ${text.length} characters to ${path}` }] };
  },
);
// Structured content that breaks its own output schema (humidity must be a number).
server.registerTool(
  "bad_weather",
  {
    description: "Returns structured content that does not match its output schema",
    inputSchema: {},
    outputSchema: { temperature: z.number(), humidity: z.number() },
    annotations: { readOnlyHint: true },
  },
  () => ({
    content: [{ type: "text", text: '{"temperature":20,"humidity":"wet"}' }],
    structuredContent: { temperature: 20, humidity: "wet" },
  }),
);
await server.connect(new StdioServerTransport());
