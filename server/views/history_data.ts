// Loads what the history pages show (/runs, /jobs/<id>, /audit) from the store into the
// plain props of history_pages.tsx. Every list is one page read through the store's
// indexed history queries, plus one row past the page to know whether an older one exists.

import { AUDIT } from "../../core/audit/audit.ts";
import { errorText } from "../../core/logger.ts";
import { previewFires } from "../../core/scheduler/schedule.ts";
import type { AuditRow, InboxItem, Job, Run, RunFilter, Store } from "../../core/store/store.ts";
import type { AuditExtras } from "./audit_table.tsx";
import { spanHours, spanStart } from "./charts.tsx";
import type { AuditPageData, JobPageData, RunsPageData } from "./history_pages.tsx";
import { type AuditQuery, hrefWith, type RunsQuery } from "./history_query.ts";
import { RUNS_PER_PAGE, type RunsTablePage } from "./runs_table.tsx";
import { type UsageWindows, windowStarts } from "./usage.tsx";

/** A job's (or, without `jobId`, the outpost's) totals today, in 7 days and in 30 days. */
export function usageWindows(store: Store, now: Date, jobId?: number): UsageWindows {
  const w = windowStarts(now);
  return {
    today: store.usageSince(w.today, jobId),
    week: store.usageSince(w.week, jobId),
    month: store.usageSince(w.month, jobId),
  };
}

/** Runs in a job's history strip (and its success rate and median). */
export const STRIP_RUNS = 50;
const NEXT_FIRES = 5;
const AUDIT_PER_PAGE = 50;

function jobNameMap(store: Store): Map<number, string> {
  return new Map(store.listJobs().map((j) => [j.id, j.name]));
}

function runsPage(
  store: Store,
  filter: RunFilter,
  before: number | null,
  path: string,
  raw: Record<string, string>,
  jobNames: Map<number, string>,
): RunsTablePage {
  const rows = store.listRunHistory(filter, {
    limit: RUNS_PER_PAGE + 1,
    ...(before === null ? {} : { before_id: before }),
  });
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

export function runsPageData(store: Store, now: Date, q: RunsQuery): RunsPageData {
  const jobNames = jobNameMap(store);
  const since = spanStart(now, q.span);
  const filterRaw = { ...q.raw };
  delete filterRaw.span;
  const empty: RunsTablePage = { runs: [], jobNames, older: null, newest: null };
  return {
    now,
    page: q.errors.length ? empty : runsPage(store, q.filter, q.before, "/runs", q.raw, jobNames),
    raw: q.raw,
    errors: q.errors,
    jobs: [...jobNames].map(([id, name]) => ({ id, name })).sort((a, b) =>
      a.name.localeCompare(b.name)
    ),
    charts: {
      span: q.span,
      hours: spanHours(now, q.span),
      runs: store.runsPerHour(since),
      tokens: store.tokensPerHour(since),
      usage: store.usageBuckets("hour", since),
    },
    days: store.usageBuckets("day", `${windowStarts(now).month}T00:00:00Z`),
    spanLinks: {
      "24h": hrefWith("/runs", q.raw, { span: undefined, before: undefined }),
      "7d": hrefWith("/runs", q.raw, { span: "7d", before: undefined }),
    },
    filtered: Object.keys(filterRaw).some((k) => k !== "before"),
  };
}

export function jobPageData(store: Store, now: Date, job: Job, q: RunsQuery): JobPageData {
  let nextFires: Date[] = [];
  let nextFiresError: string | null = null;
  if (job.enabled) {
    try {
      // The stored next fire is the first; the rest follow the schedule from there.
      const first = job.next_run_at ? new Date(job.next_run_at) : null;
      nextFires = first ? [first, ...previewFires(job.schedule, first, NEXT_FIRES - 1)] : [];
    } catch (err) {
      nextFiresError = `The schedule cannot be previewed: ${errorText(err)}`;
    }
  }
  const recent: Run[] = store.listRunHistory({ job_id: job.id }, { limit: STRIP_RUNS });
  const names = new Map([[job.id, job.name]]);
  const empty: RunsTablePage = { runs: [], jobNames: names, older: null, newest: null };
  return {
    now,
    job,
    nextFires,
    nextFiresError,
    recent,
    usage: usageWindows(store, now, job.id),
    page: q.errors.length
      ? empty
      : runsPage(store, q.filter, q.before, `/jobs/${job.id}`, q.raw, names),
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

export function auditPageData(store: Store, now: Date, q: AuditQuery): AuditPageData {
  const rows = q.errors.length ? [] : store.listAudit({
    ...q.filter,
    limit: AUDIT_PER_PAGE + 1,
    ...(q.before === null ? {} : { before_id: q.before }),
  });
  const shown = rows.slice(0, AUDIT_PER_PAGE);
  return {
    now,
    rows: shown,
    extras: auditExtras(store, shown),
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
