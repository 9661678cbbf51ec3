// The SDK's stdio framing over a server process that is already running (core/mcp/
// stdio_process.ts spawned it while the SDK loaded). The SDK's StdioClientTransport spawns its
// own child (through cross-spawn, in the caller's process group), so this is a Transport of
// our own (the SDK's documented extension point), with the SDK's own line framing and message
// validation (ReadBuffer, serializeMessage). In its own module so a run with only Streamable
// HTTP servers never loads it; reached from connection.ts through a dynamic import.

import { Buffer } from "node:buffer";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { StdioServerProcess } from "./stdio_process.ts";

/** How long stdout may stay open after the server exits (a grandchild may hold it). */
const DRAIN_MS = 200;

export function stdioTransport(server: StdioServerProcess): Transport {
  return new ProcessTransport(server);
}

class ProcessTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  readonly #server: StdioServerProcess;
  readonly #buffer = new ReadBuffer();
  readonly #encoder = new TextEncoder();
  #reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
  #closed = false;

  constructor(server: StdioServerProcess) {
    this.#server = server;
  }

  start(): Promise<void> {
    if (this.#reader) return Promise.reject(new Error("the stdio transport is already started"));
    // Messages the server wrote before the SDK was ready have waited in the pipe until now.
    const reader = this.#reader = this.#server.stdout.getReader();
    const reading = this.#read(reader);
    // A server that exits is gone once its last output is read, or a moment later if
    // something it started still holds stdout open.
    void this.#server.exited
      .then(() => Promise.race([reading, new Promise((r) => setTimeout(r, DRAIN_MS))]))
      .then(() => this.#gone());
    return Promise.resolve();
  }

  async #read(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) return;
        this.#buffer.append(Buffer.from(value.buffer, value.byteOffset, value.byteLength));
        this.#drain();
      }
    } catch (err) {
      if (this.#closed) return;
      this.onerror?.(err instanceof Error ? err : new Error(String(err)));
      void this.close();
    }
  }

  #drain(): void {
    while (true) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (err) {
        // One line that is not a JSON-RPC message: reported, the rest still read.
        this.onerror?.(err instanceof Error ? err : new Error(String(err)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed || this.#server.hasExited) return Promise.reject(new Error("Not connected"));
    return this.#server.write(this.#encoder.encode(serializeMessage(message)));
  }

  async close(): Promise<void> {
    await this.#server.stop();
    this.#gone();
  }

  #gone(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#reader?.cancel().catch(() => {});
    this.#buffer.clear();
    this.onclose?.();
  }
}
