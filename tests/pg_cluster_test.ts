// The throwaway cluster of tests/pg_cluster.ts dies with its test process: a child process
// that made one is killed with -9 (no unload handler runs), and its postmaster must exit and
// its folder be removed within a bounded wait, by the watchdog started with the cluster.

import assert from "node:assert/strict";
import { peerTest, probes } from "./peers.ts";

const CHILD = new URL("./pg_cluster_child.ts", import.meta.url).pathname;

function alive(pid: number): boolean {
  try {
    Deno.statSync(`/proc/${pid}`);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

/** Polls `done` every 100 ms for up to `ms`; true once it holds. */
async function within(ms: number, done: () => boolean): Promise<boolean> {
  const until = Date.now() + ms;
  while (!done()) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

peerTest(
  "a test process killed with -9 takes its PostgreSQL cluster with it",
  probes.postgres,
  async () => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", CHILD],
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let line = "";
    while (!line.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the child exited before its cluster ran:\n${await stderr}`);
      line += value;
    }
    const { dir, pid } = JSON.parse(line) as { dir: string; pid: number };
    try {
      assert.ok(alive(pid), "the postmaster runs while its test process does");
      child.kill("SIGKILL");
      assert.equal((await child.status).signal, "SIGKILL");
      assert.ok(await within(20_000, () => !alive(pid)), `postmaster ${pid} still runs`);
      assert.ok(await within(20_000, () => !exists(dir)), `${dir} was not removed`);
    } finally {
      await reader.cancel();
      await stderr;
      // Whatever the outcome, leave no server behind (its pid is the postmaster's own).
      if (alive(pid)) {
        Deno.kill(pid, "SIGQUIT");
        await within(10_000, () => !alive(pid));
      }
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    }
  },
);
