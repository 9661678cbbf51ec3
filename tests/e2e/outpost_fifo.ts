// FIFOs as signals between a test and fake_agent.ts children (word `fifo:PATH`): the child
// writes "<pid> <grandchild pid>" and keeps its end open, so the reader learns the pids
// without polling and sees end-of-file exactly when the child's descriptors close (it died).

import assert from "node:assert/strict";

export async function mkfifo(path: string): Promise<string> {
  const out = await new Deno.Command("mkfifo", { args: [path] }).output();
  assert.ok(out.success, `mkfifo ${path}`);
  return path;
}

export interface FifoReading {
  pid: number;
  grandchild: number;
  /** Resolves when the writer's end closes. */
  closed: Promise<void>;
}

/** Opens the FIFO for reading and resolves once the first line has arrived. */
export async function readFifo(path: string): Promise<FifoReading> {
  const file = await Deno.open(path, { read: true });
  const reader = file.readable.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const closed = (async () => {
    while (!(await reader.read()).done) { /* drain until the writer is gone */ }
  })();
  const [pid = 0, grandchild = 0] = text.trim().split(" ").map(Number);
  return { pid, grandchild, closed };
}
