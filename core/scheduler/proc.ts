// What the outpost asks the OS about a child it may have lost track of (startup recovery,
// cancel after a restart): is that PID still the same process, and kill its group.
//
// /proc is read through a `cat` subprocess, not Deno.readTextFile: Deno 2.9.6 refuses every
// /proc/<pid>/… read short of --allow-all (`NotCapable: Requires all access`), even with
// --allow-read, and the programs never get --allow-all (scripts/permissions.ts). They do get
// --allow-run. A read that fails for any reason other than "no such process" throws: a refusal
// read as "gone" once made recovery leave live children running and start second ones.

import { killProcessGroup } from "./process_spawner.ts";

export interface ProcessTable {
  /**
   * A stable identity of the live process `pid` (boot id + kernel start time), or null when
   * there is no such live process. A reused PID has a different identity. Throws when the
   * table cannot be read (never answers null for that).
   */
  identity(pid: number): string | null;
  /** SIGKILL process group `pgid`; missing groups are ignored. */
  killGroup(pgid: number): void;
  /** Throws, saying why, unless this process can read the table (checked at start-up). */
  probe(): void;
}

export class ProcessTableError extends Error {
  override readonly name = "ProcessTableError";
}

/** Parses /proc/<pid>/stat: [state, starttime] (comm may contain spaces and parens). */
export function parseProcStat(text: string): { state: string; starttime: string } | null {
  const close = text.lastIndexOf(")");
  if (close < 0) return null;
  const fields = text.slice(close + 2).trim().split(/\s+/);
  // After "pid (comm) ", field 3 (state) is index 0 and field 22 (starttime) is index 19.
  const state = fields[0];
  const starttime = fields[19];
  return state && starttime ? { state, starttime } : null;
}

/** strerror texts (LC_ALL=C) that mean the process is not there: the file or the task. */
const ABSENT = /No such file or directory|No such process/;

export function linuxProcessTable(root = "/proc"): ProcessTable {
  const bootIdPath = `${root}/sys/kernel/random/boot_id`;
  const decoder = new TextDecoder();

  /** `cat bootIdPath statPath`: [boot id, stat text or null when the pid is absent]. */
  function readProc(statPath: string): [string, string | null] {
    let out: Deno.CommandOutput;
    try {
      out = new Deno.Command("cat", {
        args: [bootIdPath, statPath],
        env: { LC_ALL: "C" }, // stable strerror wording to tell "absent" from "refused"
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).outputSync();
    } catch (err) {
      throw new ProcessTableError(
        `cannot read the process table: running cat failed: ${firstLine(String(err))}`,
      );
    }
    const stdout = decoder.decode(out.stdout);
    const nl = stdout.indexOf("\n");
    const bootId = nl < 0 ? "" : stdout.slice(0, nl).trim();
    const stderr = decoder.decode(out.stderr).trim();
    if (out.success && bootId) return [bootId, stdout.slice(nl + 1)];
    // Only the stat file may be missing: the boot id always exists on a readable /proc.
    const absent = bootId !== "" && stderr !== "" &&
      stderr.split("\n").every((line) => line.includes(statPath) && ABSENT.test(line));
    if (absent) return [bootId, null];
    throw new ProcessTableError(
      `cannot read the process table (${statPath}): ${
        firstLine(stderr) || `cat exited ${out.code}`
      }`,
    );
  }

  function identity(pid: number): string | null {
    if (!Number.isInteger(pid) || pid <= 0) return null;
    const [bootId, stat] = readProc(`${root}/${pid}/stat`);
    if (stat === null) return null;
    const parsed = parseProcStat(stat);
    if (!parsed) {
      throw new ProcessTableError(`cannot read the process table: unexpected ${root}/${pid}/stat`);
    }
    if (parsed.state === "Z" || parsed.state === "X") return null; // dead, not yet reaped
    return `${bootId}:${parsed.starttime}`;
  }

  return {
    identity,
    killGroup: killProcessGroup,
    probe() {
      if (identity(Deno.pid) === null) {
        throw new ProcessTableError(
          `cannot read the process table: this process (pid ${Deno.pid}) is not in ${root}`,
        );
      }
    },
  };
}

function firstLine(text: string): string {
  return text.split("\n")[0]!.trim();
}
