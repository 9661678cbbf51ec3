// Retention of the outpost's history (issue 10, "caps that hold for every door"): runs and
// audit rows older than AGENT_OUTPOST_RETENTION_DAYS (default 30) and finished one-shot jobs
// older than AGENT_OUTPOST_ONESHOT_RETENTION_DAYS (default 7) are deleted; 0 keeps them.
// The store decides which rows may go (see the prune* methods: never a queued or running run,
// a job's latest run, a run with an open inbox item or one a live resume continues); this
// file runs those deletes in short chunks, yielding between them, and removes the deleted
// runs' report and log files — only regular files inside <home>/outpost/runs, never through
// a symlink. server/retention_sweeper.ts runs it at open and then daily.

import { resolve, sep } from "../path.ts";
import { confineRunFile, runsRoot } from "./report_reader.ts";
import { errorText } from "../logger.ts";
import type { Env } from "../ports.ts";
import type { Pruned, Store } from "../store/store.ts";
import { isoZ } from "../time.ts";

export const RETENTION_DAYS_ENV = "AGENT_OUTPOST_RETENTION_DAYS";
export const ONESHOT_RETENTION_DAYS_ENV = "AGENT_OUTPOST_ONESHOT_RETENTION_DAYS";
export const RETENTION_DAYS_DEFAULT = 30;
export const ONESHOT_RETENTION_DAYS_DEFAULT = 7;
const DAYS_MAX = 36_500;
const DAY_MS = 86_400_000;
/** Rows per transaction: each chunk holds the write lock for a few milliseconds at most. */
export const RETENTION_CHUNK = 200;

/** How long history is kept, in days; 0 keeps it forever. */
export interface RetentionPolicy {
  /** Runs and audit rows. */
  days: number;
  /** Finished one-shot jobs (schedule kind `at`: machine-door and chat one-shots, fired ats). */
  oneShotDays: number;
}

export class RetentionConfigError extends Error {
  override readonly name = "RetentionConfigError";
  readonly variable: string;
  constructor(variable: string, detail: string) {
    super(`${variable}: ${detail}`);
    this.variable = variable;
  }
}

/** Reads the two retention variables. Throws RetentionConfigError naming a bad one. */
export function retentionPolicyFrom(env: Env): RetentionPolicy {
  return {
    days: daysFrom(env, RETENTION_DAYS_ENV, RETENTION_DAYS_DEFAULT),
    oneShotDays: daysFrom(env, ONESHOT_RETENTION_DAYS_ENV, ONESHOT_RETENTION_DAYS_DEFAULT),
  };
}

function daysFrom(env: Env, name: string, fallback: number): number {
  const raw = env.get(name);
  if (raw === undefined || raw.trim() === "") return fallback;
  const text = raw.trim();
  const n = /^\d{1,6}$/.test(text) ? Number(text) : NaN;
  if (!(n >= 0 && n <= DAYS_MAX)) {
    throw new RetentionConfigError(
      name,
      `${JSON.stringify(raw)} is not a whole number of days in 0..${DAYS_MAX} (0 keeps ` +
        `everything); unset it for the default ${fallback}`,
    );
  }
  return n;
}

export interface RetentionReport {
  /** Finished one-shot jobs deleted whole, and the runs that went with them. */
  oneShotJobs: number;
  oneShotRuns: number;
  /** Old runs of the remaining jobs. */
  runs: number;
  auditRows: number;
  /** Report and log files removed. */
  filesRemoved: number;
  /** Files left on disk, each with why (outside the runs directory, a symlink, an error). */
  filesKept: string[];
}

export interface SweepHistoryOptions {
  store: Pick<Store, "pruneRuns" | "pruneOneShots" | "pruneAudit">;
  /** The outpost home; report files are only removed under <home>/outpost/runs. */
  home: string;
  now: Date;
  policy: RetentionPolicy;
  chunk?: number;
  /** Called between chunks so other work runs; defaults to one macrotask turn. */
  pause?: () => Promise<void>;
}

/** Deletes what the policy says has expired. Never throws for a file it cannot remove. */
export async function sweepHistory(o: SweepHistoryOptions): Promise<RetentionReport> {
  const chunk = o.chunk ?? RETENTION_CHUNK;
  const pause = o.pause ?? nextTurn;
  const report: RetentionReport = {
    oneShotJobs: 0,
    oneShotRuns: 0,
    runs: 0,
    auditRows: 0,
    filesRemoved: 0,
    filesKept: [],
  };
  const files = new RunFiles(o.home);
  const cutoff = (days: number) => isoZ(new Date(o.now.getTime() - days * DAY_MS));
  const drain = async (prune: () => Pruned, add: (p: Pruned) => void) => {
    for (;;) {
      const pruned = prune();
      add(pruned);
      for (const path of pruned.reports) await files.remove(path, report);
      if (pruned.runs + pruned.jobs < chunk) return;
      await pause();
    }
  };
  if (o.policy.oneShotDays > 0) {
    const before = cutoff(o.policy.oneShotDays);
    await drain(() => o.store.pruneOneShots(before, chunk), (p) => {
      report.oneShotJobs += p.jobs;
      report.oneShotRuns += p.runs;
    });
  }
  if (o.policy.days > 0) {
    const before = cutoff(o.policy.days);
    await drain(() => o.store.pruneRuns(before, chunk), (p) => (report.runs += p.runs));
    for (;;) {
      const n = o.store.pruneAudit(before, chunk);
      report.auditRows += n;
      if (n < chunk) break;
      await pause();
    }
  }
  return report;
}

/** One line for the audit row and the log. */
export function retentionSummary(r: RetentionReport): string {
  return `deleted ${r.oneShotJobs} finished one-shot jobs (with ${r.oneShotRuns} runs), ` +
    `${r.runs} old runs, ${r.auditRows} audit rows; removed ${r.filesRemoved} report files, ` +
    `kept ${r.filesKept.length}`;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Removes a deleted run's report (`….md`) and its child log (`….log`). The path comes from
 * the store, so it is confined exactly as the report reader confines it (confineRunFile), and
 * only a regular file is removed (lstat: a symlink is never followed).
 */
class RunFiles {
  readonly #home: string;

  constructor(home: string) {
    this.#home = home;
  }

  async remove(reportPath: string, report: RetentionReport): Promise<void> {
    const md = resolve(reportPath);
    if (!md.startsWith(runsRoot(this.#home) + sep) || !md.endsWith(".md")) {
      report.filesKept.push(`${reportPath} (outside ${runsRoot(this.#home)})`);
      return;
    }
    const log = md.replace(/\.md$/, ".log");
    for (const [file, ext] of [[md, ".md"], [log, ".log"]] as const) {
      try {
        const confined = await confineRunFile(this.#home, file, ext);
        if (confined.kind === "refused") throw new Error(confined.why);
        if (confined.kind === "ok" && await removeRegularFile(confined.path)) {
          report.filesRemoved++;
        }
      } catch (err) {
        report.filesKept.push(`${file} (${errorText(err)})`);
      }
    }
  }
}

/** True when removed, false when already gone. Throws for anything but a regular file. */
async function removeRegularFile(file: string): Promise<boolean> {
  let info: Deno.FileInfo;
  try {
    info = await Deno.lstat(file);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
  if (!info.isFile) throw new Error("not a regular file");
  await Deno.remove(file);
  return true;
}
