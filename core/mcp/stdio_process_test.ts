// A stdio server's process: a server that dies at once is reported by what it wrote to stderr,
// even when that arrives after our first write to it has already failed.

import assert from "node:assert/strict";
import { spawnStdioServer } from "./stdio_process.ts";

/** A "server" that is a shell script, spawned as McpManager spawns one. */
const spawnScript = (script: string) =>
  spawnStdioServer({
    command: "sh",
    args: ["-c", script],
    cwd: Deno.cwd(),
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
  });

Deno.test("a server that closed stdin and died: the write fails first, its stderr comes with its exit", async () => {
  const server = spawnScript("exec 0<&-; sleep 0.2; echo 'boom: no config' >&2; exit 2");
  try {
    // Once stdin is closed a write is a broken pipe; stderr has nothing yet.
    let refused = false;
    for (let i = 0; i < 40 && !refused; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      refused = await server.write(new TextEncoder().encode("{}\n")).then(() => false, () => true);
    }
    assert.ok(refused, "the write to a closed stdin was refused");
    assert.equal(server.stderrTail(), "");
    assert.equal(await server.stderrTailOnExit(5_000), "boom: no config");
    assert.ok(server.hasExited);
  } finally {
    await server.stop();
  }
});

Deno.test("stderrTailOnExit gives up after its time on a server that stays", async () => {
  const server = spawnScript("echo 'still here' >&2; exec sleep 30");
  try {
    const started = performance.now();
    let tail = "";
    while (tail === "" && performance.now() - started < 5_000) {
      tail = await server.stderrTailOnExit(50);
    }
    assert.equal(tail, "still here");
    assert.equal(server.hasExited, false);
  } finally {
    await server.stop();
  }
});
