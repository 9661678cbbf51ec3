// A stdio MCP server that asks the client to fill a form (elicitation, form mode), for the
// elicitation tests (run with node, no dependencies). Its tool `book` sends elicitation/create
// with a date (required), seats (integer 1-10, default 2) and an optional note, waits for the
// answer and returns what came back: "booked DATE for SEATS (note: …)", "declined" or
// "cancelled". A client that did not declare elicitation gets a tool error saying so.
import { createInterface } from "node:readline";

const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
const text = (id, value, isError = false) =>
  send({ id, result: { content: [{ type: "text", text: value }], isError } });
let canElicit = false;
let nextId = 0;
const waiting = new Map();

createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  if (msg.method === "initialize") {
    canElicit = msg.params.capabilities?.elicitation !== undefined;
    send({
      id: msg.id,
      result: {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "form-server", version: "1.0.0" },
      },
    });
  } else if (msg.method === "tools/list") {
    send({
      id: msg.id,
      result: {
        tools: [{
          name: "book",
          description: "Books a table, asking the user for the details",
          inputSchema: { type: "object", properties: {} },
          annotations: { readOnlyHint: true },
        }],
      },
    });
  } else if (msg.method === "tools/call") {
    if (!canElicit) return text(msg.id, "this client cannot fill forms", true);
    const id = `form-${++nextId}`;
    waiting.set(id, msg.id);
    send({
      id,
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "Which day, and for how many?",
        requestedSchema: {
          type: "object",
          properties: {
            date: { type: "string", format: "date", description: "the day" },
            seats: { type: "integer", minimum: 1, maximum: 10, default: 2 },
            note: { type: "string" },
          },
          required: ["date"],
        },
      },
    });
  } else if (msg.id !== undefined && waiting.has(msg.id)) {
    const callId = waiting.get(msg.id);
    waiting.delete(msg.id);
    if (msg.error) return text(callId, `form failed: ${msg.error.message}`, true);
    const { action, content } = msg.result;
    if (action === "accept") {
      text(
        callId,
        `booked ${content.date} for ${content.seats}${
          content.note ? ` (note: ${content.note})` : ""
        }`,
      );
    } else text(callId, action === "decline" ? "declined" : "cancelled");
  } else if (msg.method === "ping") {
    send({ id: msg.id, result: {} });
  }
});
