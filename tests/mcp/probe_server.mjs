// A stdio MCP server that reports what it can reach, for the sandbox tests (run with node, no
// dependencies, so only this file needs to be visible inside the sandbox): `read` returns a
// file's text or the error code, `list` a directory's entries, `connect` whether a TCP
// connection to 127.0.0.1:<port> opens, `whoami` its pid, parent pid and the pids /proc lists.
import { createInterface } from "node:readline";
import { readdirSync, readFileSync } from "node:fs";
import { connect } from "node:net";

const send = (msg) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...msg }) + "\n");
const text = (id, value) => send({ id, result: { content: [{ type: "text", text: value }] } });
const tool = (name, properties) => ({
  name,
  description: name,
  inputSchema: { type: "object", properties },
  annotations: { readOnlyHint: true },
});
const attempt = (fn) => {
  try {
    return fn();
  } catch (err) {
    return `error: ${err.code ?? err.message}`;
  }
};

createInterface({ input: process.stdin }).on("line", (line) => {
  const msg = JSON.parse(line);
  const args = msg.params?.arguments ?? {};
  if (msg.method === "initialize") {
    send({
      id: msg.id,
      result: {
        protocolVersion: msg.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "probe-server", version: "1.0.0" },
      },
    });
  } else if (msg.method === "tools/list") {
    send({
      id: msg.id,
      result: {
        tools: [
          tool("read", { path: { type: "string" } }),
          tool("list", { path: { type: "string" } }),
          tool("connect", { port: { type: "number" } }),
          tool("whoami", {}),
        ],
      },
    });
  } else if (msg.method === "tools/call" && msg.params.name === "read") {
    text(msg.id, attempt(() => readFileSync(args.path, "utf8")));
  } else if (msg.method === "tools/call" && msg.params.name === "list") {
    text(msg.id, attempt(() => readdirSync(args.path).join("\n")));
  } else if (msg.method === "tools/call" && msg.params.name === "connect") {
    const socket = connect({ host: "127.0.0.1", port: args.port });
    socket.once("connect", () => {
      socket.destroy();
      text(msg.id, "connected");
    });
    socket.once("error", (err) => text(msg.id, `error: ${err.code ?? err.message}`));
  } else if (msg.method === "tools/call" && msg.params.name === "whoami") {
    const pids = readdirSync("/proc").filter((e) => /^\d+$/.test(e));
    text(msg.id, JSON.stringify({ pid: process.pid, ppid: process.ppid, proc: pids }));
  } else if (msg.id !== undefined) {
    send({ id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } });
  }
});
