// Gathers what the pages show from AppDeps into plain values, so the views stay pure
// functions of their props (and the partial routes render exactly what the pages do).

import { errorText } from "../../core/logger.ts";
import { confineRunFile, cutNote, readReport } from "../../core/scheduler/report_reader.ts";
import { readRunLog } from "../../core/scheduler/run_log.ts";
import { count } from "./format.ts";
import type { InboxView } from "../../core/inbox/service.ts";
import type { Job, Run } from "../../core/store/store.ts";
import type { AppDeps } from "../deps.ts";
import type { RunPlace } from "../../core/fleet/pg_run_files.ts";
import { JOBS_PER_PAGE, type JobsPage } from "./jobs_card.tsx";
import type { MemoryPaneData } from "./memory_pane.tsx";
import type { RecentRun } from "./runs_card.tsx";
import type { StatusBarData } from "./status_bar.tsx";
import type { SummaryData } from "./summary_line.tsx";
import { type UsageWindows, windowStarts } from "./usage.tsx";
import { untilCommit } from "./commit_cache.ts";

export const RECENT_RUNS = 15;
export const INBOX_SHOWN = 50;
/** Report bytes read for the run page; the renderer cuts at its own (smaller) cap. */
const REPORT_READ_MAX = 1024 * 1024;

/** What the page readers need of AppDeps: the store and its change counter. */
export type StoreDeps = Pick<AppDeps, "store" | "dataVersion">;

/**
 * One page of the job list (newest first), below job id `before` when given. The rows are
 * read once per commit (commit_cache.ts): the landing page, /jobs and the live partial read
 * them on every load.
 */
export function jobsPage(deps: StoreDeps, now: Date, before: number | null = null): JobsPage {
  const rows = untilCommit(
    deps.store,
    deps.dataVersion,
    `jobs-page ${before}`,
    () =>
      deps.store.listJobs({
        limit: JOBS_PER_PAGE + 1,
        ...(before === null ? {} : { before_id: before }),
      }),
  );
  const jobs = rows.slice(0, JOBS_PER_PAGE);
  return {
    jobs,
    older: rows.length > JOBS_PER_PAGE ? jobs[jobs.length - 1]!.id : null,
    before,
    usage: usageByJobWindows(deps, now, jobs.map((j) => j.id)),
  };
}

/**
 * The totals of a page of jobs today, in 7 days and in 30 days: one read of the rollup, kept
 * until the store commits or the day turns (commit_cache.ts).
 */
function usageByJobWindows(
  deps: StoreDeps,
  now: Date,
  ids: number[],
): Map<number, UsageWindows> {
  const w = windowStarts(now);
  return untilCommit(deps.store, deps.dataVersion, `usage ${w.today} ${ids.join(",")}`, () => {
    const out = new Map<number, UsageWindows>();
    const days = [w.today, w.week, w.month];
    for (const [id, [today, week, month]] of deps.store.usageByJob(days, ids)) {
      out.set(id, { today: today!, week: week!, month: month! });
    }
    return out;
  });
}

/**
 * The newest runs over every job, newest first: one page of the run history (it used to
 * read `limit` runs of every job and merge them, 100 queries for 100 jobs), read once per
 * commit, with the job names of the cached name map.
 */
export function recentRuns(deps: StoreDeps, limit = RECENT_RUNS): RecentRun[] {
  return untilCommit(deps.store, deps.dataVersion, `recent-runs ${limit}`, () => {
    const names = jobNames(deps);
    return deps.store.listRunHistory({}, { limit }).map((run) => ({
      run,
      job_name: names.get(run.job_id) ?? `job ${run.job_id}`,
    }));
  });
}

/**
 * Every job's name by id (the inbox, /runs' rows and its job filter), read once per commit.
 * It was read through the job list, whose latest-run join was a quarter of /runs' time.
 */
export function jobNames(deps: StoreDeps): Map<number, string> {
  return untilCommit(deps.store, deps.dataVersion, "job-names", () => deps.store.jobNames());
}

export function openInbox(deps: AppDeps): InboxView[] {
  return deps.inbox.list({ state: "open", limit: INBOX_SHOWN });
}

/** The landing page's summary line: counts from the scheduler, the inbox and the rollup. */
export function summaryData(deps: AppDeps, now: Date): SummaryData {
  const w = windowStarts(now);
  const today = untilCommit(
    deps.store,
    deps.dataVersion,
    `usage-since ${w.today}`,
    () => deps.store.usageSince(w.today),
  );
  return {
    running: deps.scheduler.activeRuns().length,
    failedToday: today.failed,
    openInbox: deps.store.countInbox("open"),
    today,
    day: w.today,
  };
}

export function statusBarData(deps: AppDeps): StatusBarData {
  return {
    messenger: deps.messengerStatus(),
    push: deps.pushStatus(),
    openInbox: deps.store.countInbox("open"),
  };
}

export async function memoryPaneData(deps: AppDeps): Promise<MemoryPaneData> {
  try {
    const memory = await deps.memory();
    return { ok: true, list: memory.list() };
  } catch (err) {
    deps.logger.log("warn", "memory pane could not list the memory root", {
      error: errorText(err),
    });
    return { ok: false, error: errorText(err) };
  }
}

export interface RunPageData {
  job: Job;
  run: Run;
  /** The inbox item this run opened (a needs_human halt), if any. */
  item: InboxView | null;
  /** The report file's text; null when not written (yet) or not shown. */
  report: string | null;
  /** Why the report is cut or not shown (refused, unreadable); null when nothing to say. */
  reportNote: string | null;
  /** Other runs of the same job, newest first. */
  siblings: Run[];
  /** The end of the process log (stderr) of a run that did not end ok; null otherwise. */
  log: { text: string; note: string | null } | null;
  /**
   * The fleet node that ran it, when not this one (its files are there; the report and log
   * above are the copy it stored: server/fleet_run_files.ts); null when it ran here.
   */
  ranOn: { node_id: string; url: string; runUrl: string | null } | null;
}

/** Everything the run page shows; null when the job or run does not exist (or mismatch). */
export async function runPageData(
  deps: AppDeps,
  jobId: number,
  runId: number,
): Promise<RunPageData | null> {
  const job = deps.store.getJob(jobId);
  const run = deps.store.getRun(runId);
  if (!job || !run || run.job_id !== job.id) return null;
  const place = deps.fleet.runPlace?.(run.id) ?? null;
  return {
    job,
    run,
    item: inboxItemOfRun(deps, run.id),
    ...(place ? storedFiles(place, run) : {
      ...(await pageReport(deps, run)),
      log: await pageLog(deps, run),
    }),
    siblings: deps.store.listRuns(job.id, { limit: 10 }).filter((r) => r.id !== run.id),
    ranOn: place ? { node_id: place.node_id, url: place.url, runUrl: runUrlOn(place, run) } : null,
  };
}

/** The run's page on the node that ran it (its dashboard URL plus the run's path). */
function runUrlOn(place: RunPlace, run: Run): string | null {
  if (place.url === "") return null;
  let url: URL;
  try {
    url = new URL(`/runs/${run.job_id}/${run.id}`, place.url);
  } catch {
    return null; // a node that registered an unparsable URL: named, not linked
  }
  return url.protocol === "http:" || url.protocol === "https:" ? url.href : null;
}

/**
 * A run another fleet node ran: the report and log tail that node copied to the database
 * when the run finished (the files stay on its disk), or a note saying where they are.
 */
function storedFiles(
  place: RunPlace,
  run: Run,
): Pick<RunPageData, "report" | "reportNote" | "log"> {
  const copy = place.copy;
  if (copy === null) {
    const live = run.status === "queued" || run.status === "running";
    return {
      report: null,
      reportNote: live ? null : `This run ran on node ${place.node_id}; its report is there ` +
        "(no copy of it is in the shared database).",
      log: null,
    };
  }
  return {
    report: copy.report,
    reportNote: copy.report_note,
    log: copy.log !== null || copy.log_note !== null
      ? { text: copy.log ?? "", note: copy.log_note }
      : null,
  };
}

/** Bytes of a run's process log shown on its page (the end of it: where a failure says why). */
export const LOG_SHOWN_BYTES = 16 * 1024;
const LOGGED_STATUSES = new Set(["error", "killed", "lost", "cancelled", "needs_human"]);

/**
 * The end of a finished, not-ok run's .log (the child's stderr), confined to the runs folder
 * like the report. A log that cannot be read says why; an empty or absent one shows nothing.
 */
export async function pageLog(
  deps: Pick<AppDeps, "home" | "logger">,
  run: Run,
): Promise<RunPageData["log"]> {
  if (!run.report_path || !LOGGED_STATUSES.has(run.status)) return null;
  try {
    const confined = await confineRunFile(
      deps.home,
      run.report_path.replace(/\.md$/, ".log"),
      ".log",
    );
    if (confined.kind === "absent") return null;
    if (confined.kind !== "ok") {
      return { text: "", note: `The log is not shown: ${confined.why}` };
    }
    const read = await readRunLog(confined.path, LOG_SHOWN_BYTES, "tail");
    if (!read || read.text.trim() === "") return null;
    const note = read.cut
      ? `The last ${count(LOG_SHOWN_BYTES)} of ${count(read.size)} bytes.`
      : null;
    return { text: read.text, note };
  } catch (err) {
    deps.logger.log("warn", "run log could not be read", { run_id: run.id, error: errorText(err) });
    return { text: "", note: `The log could not be read: ${errorText(err)}` };
  }
}

function inboxItemOfRun(deps: AppDeps, runId: number): InboxView | null {
  const open = deps.inbox.list({ state: "open", limit: 500 }).find((i) => i.run_id === runId);
  if (open) return open;
  return deps.inbox.list({ limit: 200 }).find((i) => i.run_id === runId) ?? null;
}

/**
 * The report as the run page shows it, read through core's guarded reader: the text (cut at
 * REPORT_READ_MAX with a note) or null, and a note saying why nothing or only part is shown.
 * A read error (a refused permission, an I/O error) is shown as such, never as "no report".
 */
export async function pageReport(
  deps: Pick<AppDeps, "home" | "logger">,
  run: Run,
): Promise<{ report: string | null; reportNote: string | null }> {
  let read;
  try {
    read = await readReport({ home: deps.home, path: run.report_path, maxBytes: REPORT_READ_MAX });
  } catch (err) {
    deps.logger.log("warn", "run report could not be read", {
      run_id: run.id,
      error: errorText(err),
    });
    return { report: null, reportNote: `The report could not be read: ${errorText(err)}` };
  }
  switch (read.kind) {
    case "text":
      return { report: read.text, reportNote: read.cut ? cutNote(read, REPORT_READ_MAX) : null };
    case "absent":
      return { report: null, reportNote: null };
    case "refused":
      deps.logger.log("warn", "run report refused", { run_id: run.id, why: read.why });
      return { report: null, reportNote: `The report is not shown: ${read.why}.` };
    case "too_large": // not asked for (oversize defaults to cut)
      return { report: null, reportNote: cutNote(read, REPORT_READ_MAX) };
  }
}
