// What the outpost asks the OS about a child it may have lost track of (startup recovery,
// cancel after a restart): is that PID still the same process, and kill its group.

import { killProcessGroup } from "./process_spawner.ts";

export interface ProcessTable {
  /**
   * A stable identity of the live process `pid` (boot id + kernel start time), or null when
   * there is no such live process. A reused PID has a different identity.
   */
  identity(pid: number): string | null;
  /** SIGKILL process group `pgid`; missing groups are ignored. */
  killGroup(pgid: number): void;
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

export function linuxProcessTable(root = "/proc"): ProcessTable {
  let bootId: string | undefined;
  return {
    identity(pid) {
      if (!Number.isInteger(pid) || pid <= 0) return null;
      let stat: string;
      try {
        stat = Deno.readTextFileSync(`${root}/${pid}/stat`);
      } catch {
        return null;
      }
      const parsed = parseProcStat(stat);
      if (!parsed || parsed.state === "Z" || parsed.state === "X") return null; // dead
      if (bootId === undefined) {
        try {
          bootId = Deno.readTextFileSync(`${root}/sys/kernel/random/boot_id`).trim();
        } catch {
          bootId = "";
        }
      }
      return `${bootId}:${parsed.starttime}`;
    },
    killGroup: killProcessGroup,
  };
}
