// Loads what the history pages show (/runs, /jobs/<id>, /audit) from the store into the
// plain props of history_pages.tsx. Every list is one page read through the store's
// indexed history queries, plus one row past the page to know whether an older one exists.
// Reads that only the store changes are kept until it commits (commit_cache.ts).

import { AUDIT } from "../../core/audit/audit.ts";
import { errorText } from "../../core/logger.ts";
import { previewFires } from "../../core/scheduler/schedule.ts";
import type { AuditRow, InboxItem, Job, Run, RunFilter, Store } from "../../core/store/store.ts";
import type { AuditExtras } from "./audit_table.tsx";
import { type ChartData, spanHours } from "./charts.tsx";
import { untilCommit } from "./commit_cache.ts";
import type { AuditPageData, JobPageData, RunsPageData, RunsTableData } from "./history_pages.tsx";
import { type AuditQuery, type ChartSpan, hrefWith, type RunsQuery } from "./history_query.ts";
import { jobNames, type StoreDeps } from "./page_data.ts";
import { RUNS_PER_PAGE, type RunsTablePage } from "./runs_table.tsx";
import { type UsageWindows, windowStarts } from "./usage.tsx";

/**
 * A job's (or, without `jobId`, the outpost's) totals today, in 7 days and in 30 days, read
 * once per commit and UTC day.
 */
export function usageWindows(deps: StoreDeps, now: Date, jobId?: number): UsageWindows {
  const w = windowStarts(now);
  const store = deps.store;
  return untilCommit(store, deps.dataVersion, `usage-windows ${jobId} ${w.today}`, () => ({
    today: store.usageSince(w.today, jobId),
    week: store.usageSince(w.week, jobId),
    month: store.usageSince(w.month, jobId),
  }));
}

/** Runs in a job's history strip (and its success rate and median). */
export const STRIP_RUNS = 50;
const NEXT_FIRES = 5;
const AUDIT_PER_PAGE = 50;

/**
 * One page of a run filter's rows and the one past it, read once per commit: the live
 * region of /runs and /jobs/<id> re-reads its page on every run event and every few seconds
 * while a row is running.
 */
function runRows(deps: StoreDeps, filter: RunFilter, before: number | null): Run[] {
  const key = `run-rows ${JSON.stringify(filter)} ${before}`;
  return untilCommit(deps.store, deps.dataVersion, key, () =>
    deps.store.listRunHistory(filter, {
      limit: RUNS_PER_PAGE + 1,
      ...(before === null ? {} : { before_id: before }),
    }));
}

function runsPage(
  rows: Run[],
  before: number | null,
  path: string,
  raw: Record<string, string>,
  jobNames: Map<number, string>,
): RunsTablePage {
  const runs = rows.slice(0, RUNS_PER_PAGE);
  return {
    runs,
    jobNames,
    older: rows.length > RUNS_PER_PAGE
      ? hrefWith(path, raw, { before: String(runs.at(-1)!.id) })
      : null,
    newest: before === null ? null : hrefWith(path, raw, { before: undefined }),
  };
}

/** /runs' table alone (its live region's partial): the page of runs the query asks for. */
export function runsTableData(deps: StoreDeps, now: Date, q: RunsQuery): RunsTableData {
  const names = jobNames(deps);
  const filterRaw = { ...q.raw };
  delete filterRaw.span;
  return {
    now,
    page: q.errors.length
      ? { runs: [], jobNames: names, older: null, newest: null }
      : runsPage(runRows(deps, q.filter, q.before), q.before, "/runs", q.raw, names),
    filtered: Object.keys(filterRaw).some((k) => k !== "before"),
  };
}

/**
 * The charts' hourly rows over a span, read once per commit and hour (its key is the span's
 * first hour): the same object while it stands, so the view renders it once (charts.tsx).
 */
function chartData(deps: StoreDeps, now: Date, span: ChartSpan): ChartData {
  const hours = spanHours(now, span);
  const since = `${hours[0]}:00:00Z`;
  const store = deps.store;
  return untilCommit(store, deps.dataVersion, `charts ${span} ${hours[0]}`, () => ({
    span,
    hours,
    runs: store.runsPerHour(since),
    tokens: store.tokensPerHour(since),
    usage: store.usageBuckets("hour", since),
  }));
}

/** The job filter's choices, by name. */
function jobOptions(deps: StoreDeps): { id: number; name: string }[] {
  return untilCommit(
    deps.store,
    deps.dataVersion,
    "job-options",
    () =>
      [...jobNames(deps)].map(([id, name]) => ({ id, name })).sort((a, b) =>
        a.name.localeCompare(b.name)
      ),
  );
}

export function runsPageData(deps: StoreDeps, now: Date, q: RunsQuery): RunsPageData {
  const month = windowStarts(now).month;
  return {
    ...runsTableData(deps, now, q),
    raw: q.raw,
    errors: q.errors,
    jobs: jobOptions(deps),
    charts: chartData(deps, now, q.span),
    days: untilCommit(
      deps.store,
      deps.dataVersion,
      `usage-days ${month}`,
      () => deps.store.usageBuckets("day", `${month}T00:00:00Z`),
    ),
    spanLinks: {
      "24h": hrefWith("/runs", q.raw, { span: undefined, before: undefined }),
      "7d": hrefWith("/runs", q.raw, { span: "7d", before: undefined }),
    },
  };
}

/** /jobs/<id>'s table alone (its live region's partial). */
export function jobRunsPage(deps: StoreDeps, job: Job, q: RunsQuery): RunsTablePage {
  const names = new Map([[job.id, job.name]]);
  return q.errors.length
    ? { runs: [], jobNames: names, older: null, newest: null }
    : runsPage(runRows(deps, q.filter, q.before), q.before, `/jobs/${job.id}`, q.raw, names);
}

/**
 * A job's next fires: the stored next fire, then the schedule's from there. A function of the
 * job's row alone, so kept until the store commits (croner's walk was 6% of /jobs/<id>).
 */
function nextFiresOf(
  deps: StoreDeps,
  job: Job,
): { nextFires: Date[]; nextFiresError: string | null } {
  if (!job.enabled) return { nextFires: [], nextFiresError: null };
  return untilCommit(deps.store, deps.dataVersion, `next-fires ${job.id}`, () => {
    try {
      const first = job.next_run_at ? new Date(job.next_run_at) : null;
      const nextFires = first ? [first, ...previewFires(job.schedule, first, NEXT_FIRES - 1)] : [];
      return { nextFires, nextFiresError: null };
    } catch (err) {
      return {
        nextFires: [],
        nextFiresError: `The schedule cannot be previewed: ${errorText(err)}`,
      };
    }
  });
}

export function jobPageData(deps: StoreDeps, now: Date, job: Job, q: RunsQuery): JobPageData {
  const { nextFires, nextFiresError } = nextFiresOf(deps, job);
  const page = jobRunsPage(deps, job, q);
  // The newest page of the job's runs begins with the strip's runs: one read serves both.
  const recent: Run[] = q.before === null && !q.errors.length && STRIP_RUNS <= RUNS_PER_PAGE
    ? page.runs.slice(0, STRIP_RUNS)
    : deps.store.listRunHistory({ job_id: job.id }, { limit: STRIP_RUNS });
  return {
    now,
    job,
    nextFires,
    nextFiresError,
    recent,
    usage: usageWindows(deps, now, job.id),
    page,
    raw: q.raw,
    errors: q.errors,
  };
}

/** Actions that close an inbox item without an answer (no answer text is shown on them). */
const NOT_ANSWERING = new Set(["dismiss", "push_dismiss", "chat_dismiss", "high_risk_hold"]);

/**
 * Each row's target as a link to its page (job:N, run:N, inbox:N), and the answer text of the
 * rows that answered an inbox item (read from the item: the audit row does not copy it). One
 * store read per distinct run or item on the page.
 */
function auditExtras(store: Store, rows: AuditRow[]): AuditExtras {
  const links = new Map<number, string>();
  const answers = new Map<number, string>();
  const runs = new Map<number, Run | null>();
  const items = new Map<number, InboxItem | null>();
  for (const r of rows) {
    const m = /^(job|run|inbox):([1-9][0-9]{0,14})$/.exec(r.target);
    if (!m) continue;
    const id = Number(m[2]);
    if (m[1] === "job") links.set(r.id, `/jobs/${id}`);
    else if (m[1] === "run") {
      if (!runs.has(id)) runs.set(id, store.getRun(id));
      const run = runs.get(id);
      if (run) links.set(r.id, `/runs/${run.job_id}/${run.id}`);
    } else {
      links.set(r.id, `/inbox/${id}`);
      if (!items.has(id)) items.set(id, store.getInboxItem(id));
      const item = items.get(id);
      if (item?.state === "answered" && item.answer !== null && !NOT_ANSWERING.has(r.action)) {
        answers.set(r.id, item.answer.length > 300 ? `${item.answer.slice(0, 299)}…` : item.answer);
      }
    }
  }
  return { links, answers };
}

export function auditPageData(deps: StoreDeps, now: Date, q: AuditQuery): AuditPageData {
  const store = deps.store;
  const key = `audit ${JSON.stringify(q.filter)} ${q.before}`;
  const { rows, extras } = q.errors.length
    ? { rows: [], extras: auditExtras(store, []) }
    : untilCommit(store, deps.dataVersion, key, () => {
      const rows = store.listAudit({
        ...q.filter,
        limit: AUDIT_PER_PAGE + 1,
        ...(q.before === null ? {} : { before_id: q.before }),
      });
      return { rows, extras: auditExtras(store, rows.slice(0, AUDIT_PER_PAGE)) };
    });
  const shown = rows.slice(0, AUDIT_PER_PAGE);
  return {
    now,
    rows: shown,
    extras,
    raw: q.raw,
    errors: q.errors,
    actions: [...Object.values(AUDIT)].sort(),
    older: rows.length > AUDIT_PER_PAGE
      ? hrefWith("/audit", q.raw, { before: String(shown.at(-1)!.id) })
      : null,
    newest: q.before === null ? null : hrefWith("/audit", q.raw, { before: undefined }),
    filtered: Object.keys(q.raw).some((k) => k !== "before"),
  };
}
