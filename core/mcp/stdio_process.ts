// A stdio MCP server's process, started before the SDK is loaded: McpManager spawns it the
// moment settings say it may run (through the StdioLauncher), so the server boots while the
// SDK's modules load, and core/mcp/transport_stdio.ts later hands its pipes to the SDK.
//
// The server leads its own process group (Deno.Command `detached: true` calls setsid), so
// stopping it stops what it started too: a server run through `npx`, or one that starts
// helpers, leaves no grandchild behind even when those ignore the end of stdin.
// Deno.Command, not node:child_process (core/scheduler/process_spawner.ts): loading
// node:child_process costs 15–30 ms of the main thread on the way to the first model request.
// This module never imports the SDK.

import type { StdioLaunch } from "./launch.ts";

/** A running server; nothing reads its stdout until a transport does. */
export interface StdioServerProcess {
  readonly pid: number;
  readonly stdout: ReadableStream<Uint8Array>;
  /** Writes to its stdin; rejects once the server has gone. */
  write(bytes: Uint8Array): Promise<void>;
  /** Settles once the server (the group leader) has exited and its stderr is read. */
  readonly exited: Promise<void>;
  readonly hasExited: boolean;
  /** The last lines it wrote to stderr, as one line. */
  stderrTail(): string;
  /** The last few thousand characters it wrote to stderr, as written. */
  stderrText(): string;
  /**
   * The same, once the server has exited and its stderr is read, or as it stands after `ms`:
   * a server that dies at once says why on stderr, often after a write to it has failed.
   */
  stderrTailOnExit(ms: number): Promise<string>;
  /**
   * Ends its stdin (the MCP way to ask a stdio server to leave), gives it a moment, then
   * SIGTERM and finally SIGKILL to its whole process group. Safe to call more than once.
   */
  stop(): Promise<void>;
  /**
   * At exit: ends its stdin and sends SIGTERM to its process group, without waiting. A
   * sandboxed server dies with its bwrap (--die-with-parent); the agent does not stay for it.
   */
  terminate(): void;
}

/** How long a server has to leave after stdin ends, and what is left of its group after SIGTERM. */
export const STOP_GRACE_MS = 1_000;
/** How long stderr may stay open after the server exits (a grandchild may hold it). */
const DRAIN_MS = 200;
const GROUP_POLL_MS = 25;
const STDERR_KEEP_CHARS = 4_000;

/**
 * Spawns `launch` (already through the StdioLauncher) as the leader of a new process group.
 * Throws, with the command named, when it cannot start (not found, not executable, no cwd).
 */
export function spawnStdioServer(launch: StdioLaunch): StdioServerProcess {
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(launch.command, {
      args: launch.args,
      cwd: launch.cwd,
      env: launch.env,
      clearEnv: true,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
      detached: true,
    }).spawn();
  } catch (err) {
    throw spawnFailure(launch, err);
  }
  let stderr = "";
  const stderrRead = (async () => {
    for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) {
      stderr += chunk;
      if (stderr.length > STDERR_KEEP_CHARS * 2) stderr = stderr.slice(-STDERR_KEEP_CHARS);
    }
  })().catch(() => {}); // a stream cut by stop() ends the tail, nothing more
  let hasExited = false;
  const exited = child.status.then(() => within(stderrRead, DRAIN_MS)).then(() => {
    hasExited = true;
  });
  const stdin = child.stdin.getWriter();
  stdin.closed.catch(() => {}); // a server that left is reported through `exited`
  let stopping: Promise<void> | undefined;
  return {
    pid: child.pid,
    stdout: child.stdout,
    write: (bytes) => stdin.write(bytes),
    exited,
    get hasExited() {
      return hasExited;
    },
    stderrTail: () => tail(stderr),
    stderrText: () => stderr,
    stderrTailOnExit: async (ms) => {
      await within(exited, ms);
      return tail(stderr);
    },
    stop: () => stopping ??= stopGroup(child.pid, stdin, exited, () => hasExited),
    terminate: () => {
      void stdin.close().catch(() => {});
      if (!hasExited) terminateGroup(child.pid);
    },
  };
}

async function stopGroup(
  pgid: number,
  stdin: WritableStreamDefaultWriter<Uint8Array>,
  exited: Promise<void>,
  hasExited: () => boolean,
): Promise<void> {
  await stdin.close().catch(() => {});
  if (!hasExited()) await within(exited, STOP_GRACE_MS);
  // The leader has left (or will not): whatever is left of its group is asked, then made, to.
  if (!(await signalGroup(pgid, "SIGTERM"))) return;
  if (await groupGone(pgid)) return;
  await signalGroup(pgid, "SIGKILL");
  // Returns once the group is gone (or after the grace: a zombie waits for its reaper).
  await groupGone(pgid);
  await within(exited, STOP_GRACE_MS);
}

/** SIGTERM to process group `pgid`, now; a group already gone is not an error. */
function terminateGroup(pgid: number): void {
  if (!Number.isInteger(pgid) || pgid <= 1) return; // never -0 / -1
  try {
    Deno.kill(-pgid, "SIGTERM");
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound) && (err as { code?: string }).code !== "ESRCH") {
      throw err;
    }
  }
}

/** Polls until process group `pgid` is empty; false if it still is after STOP_GRACE_MS. */
async function groupGone(pgid: number): Promise<boolean> {
  const deadline = performance.now() + STOP_GRACE_MS;
  while (performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, GROUP_POLL_MS));
    if (!(await signalGroup(pgid, 0))) return true;
  }
  return false;
}

/** Signals process group `pgid`; false when no process of the group is left. */
async function signalGroup(pgid: number, signal: "SIGTERM" | "SIGKILL" | 0): Promise<boolean> {
  if (!Number.isInteger(pgid) || pgid <= 1) return false; // never -0 / -1
  try {
    if (signal === 0) {
      // Deno.kill has no signal 0 (the existence probe); node's process.kill has. Loaded only
      // here, when a group outlived its leader.
      const { kill } = await import("node:process");
      kill(-pgid, 0);
    } else {
      Deno.kill(-pgid, signal);
    }
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound || (err as { code?: string }).code === "ESRCH") {
      return false;
    }
    throw err;
  }
}

function within(promise: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<void>((resolve) => timer = setTimeout(resolve, ms)),
  ]).finally(() => clearTimeout(timer));
}

function spawnFailure(launch: StdioLaunch, err: unknown): Error {
  let why = err instanceof Error ? err.message : String(err);
  // Deno says NotFound both for a missing command and for a missing working directory.
  if (err instanceof Deno.errors.NotFound) {
    why = directoryMissing(launch.cwd)
      ? `its working directory ${launch.cwd} does not exist`
      : `${launch.command} is not found (PATH: ${launch.env.PATH ?? "unset"})`;
  }
  return new Error(`could not start ${JSON.stringify(launch.command)}: ${why}`);
}

function directoryMissing(path: string): boolean {
  try {
    return !Deno.statSync(path).isDirectory;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return true;
    throw err;
  }
}

/** The last few non-empty lines, joined with " | " so a failure stays one line. */
function tail(text: string): string {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== "");
  return lines.slice(-3).join(" | ").slice(-500);
}
