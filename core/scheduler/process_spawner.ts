// The real Spawner: node:child_process with `detached: true`, so each child leads a new
// process group (pgid = pid) and one SIGKILL to -pgid takes its whole tree down.

import { spawn as nodeSpawn } from "node:child_process";
import { closeSync, openSync, statSync } from "node:fs";
import { constants } from "node:os";
import { concatBytes } from "../bytes.ts";
import type { SpawnedProcess, Spawner, SpawnRequest } from "../ports.ts";

export class SpawnError extends Error {
  override readonly name = "SpawnError";
  readonly command: string;
  constructor(command: string, detail: string) {
    super(`could not start ${JSON.stringify(command)}: ${detail}`);
    this.command = command;
  }
}

/** SIGKILLs process group `pgid`; a group that is already gone is not an error. */
export function killProcessGroup(pgid: number): void {
  if (!Number.isInteger(pgid) || pgid <= 1) return; // never -0 / -1 (caller's group, everything)
  try {
    Deno.kill(-pgid, "SIGKILL");
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound) && !/ESRCH/.test(String(err))) throw err;
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function exitCode(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const n = signal ? (constants.signals as Record<string, number>)[signal] : undefined;
  return 128 + (n ?? 0);
}

export const processSpawner: Spawner = {
  spawn(req: SpawnRequest): SpawnedProcess {
    if (req.cwd !== undefined) {
      let isDir = false;
      try {
        isDir = statSync(req.cwd).isDirectory();
      } catch (err) {
        // Only a missing directory is "does not exist"; a refusal says what it is.
        const code = (err as { code?: string }).code; // node:fs reports by code
        if (code !== "ENOENT" && code !== "ENOTDIR") {
          throw new SpawnError(req.command, `working directory ${req.cwd}: ${errorMessage(err)}`);
        }
      }
      if (!isDir) throw new SpawnError(req.command, `working directory ${req.cwd} does not exist`);
    }
    const logFd = req.logPath === undefined ? undefined : openSync(req.logPath, "a", 0o600);
    const out = req.captureStdout !== undefined ? "pipe" : logFd ?? "ignore";
    let child;
    try {
      child = nodeSpawn(req.command, req.args, {
        detached: true,
        cwd: req.cwd,
        env: req.env,
        stdio: ["ignore", out, logFd ?? "ignore"],
      });
    } catch (err) {
      throw new SpawnError(req.command, errorMessage(err));
    } finally {
      if (logFd !== undefined) closeSync(logFd); // the child holds its own copy
    }
    const pid = child.pid;
    if (pid === undefined) {
      child.on("error", () => {}); // the async ENOENT/EACCES; already reported here
      throw new SpawnError(req.command, "not found or not executable");
    }
    const exited = new Promise<number>((resolve) => {
      child.on("exit", (code, signal) => resolve(exitCode(code, signal)));
      child.on("error", () => resolve(127));
    });
    let stdout: Promise<string> | undefined;
    const limit = req.captureStdout;
    if (limit !== undefined && child.stdout) {
      const stream = child.stdout;
      stdout = new Promise<string>((resolve) => {
        const chunks: Uint8Array[] = [];
        let size = 0;
        stream.on("data", (chunk: Uint8Array) => {
          chunks.push(chunk);
          size += chunk.length;
          while (size > limit && chunks.length > 1) size -= chunks.shift()!.length;
        });
        stream.on("close", () => {
          let bytes = concatBytes(chunks);
          if (bytes.length > limit) bytes = bytes.subarray(bytes.length - limit);
          resolve(new TextDecoder().decode(bytes));
        });
        stream.on("error", () => resolve(new TextDecoder().decode(concatBytes(chunks))));
      });
    }
    return {
      pid,
      exited,
      ...(stdout ? { stdout } : {}),
      killGroup: () => killProcessGroup(pid),
    };
  },
};
