// The operator's history pages: /runs (every run, filterable, with the hourly charts),
// /jobs/<id> (one job's settings, next fires, history strip, success rate, median duration
// and its runs) and /audit (the audit log, filterable). Pure functions of their props; the
// data comes from history_data.ts.

import type { Child, FC } from "hono/jsx";
import { AUDIT_CHANNELS } from "../../core/audit/audit.ts";
import { pinLabelOf } from "../../core/fleet/node_label.ts";
import { MODEL_SENTINEL } from "../../core/settings/knobs.ts";
import type { AuditRow, Job, UsageBucket } from "../../core/store/store.ts";
import { type ChartData, HistoryCharts } from "./charts.tsx";
import { durationText, msText, relativeTime, shortTime } from "./format.ts";
import { ScheduleText } from "./schedule_text.tsx";
import { CLASSES, type FieldError, hrefWith, RUN_STATUSES } from "./history_query.ts";
import { JobHoldNote } from "./jobs_card.tsx";
import { type AuditExtras, AuditTable } from "./audit_table.tsx";
import { Card } from "./layout.tsx";
import { HistoryStrip, RunsTable, type RunsTablePage } from "./runs_table.tsx";
import { DailyUsageTable, UsageTable, type UsageWindows } from "./usage.tsx";
import type { Run } from "../../core/store/store.ts";
import type { JobKeyNote } from "../../core/scheduler/job_key.ts";

const Errors: FC<{ errors: FieldError[] }> = ({ errors }) =>
  errors.length === 0 ? null : (
    <div class="form-errors" role="alert" data-testid="filter-errors">
      {errors.map((e) => (
        <p class="error-note" data-error-for={e.field}>
          <strong>{e.label}:</strong> {e.message}
        </p>
      ))}
    </div>
  );

const Field: FC<{ label: string; for: string; children?: Child }> = (p) => (
  <label class="filter-field" for={p.for}>
    <span>{p.label}</span>
    {p.children}
  </label>
);

/** One filter of a GET filter form: its query name (the input's id is f-<name>), as queried. */
interface FilterProps {
  label: string;
  name: string;
  raw: Record<string, string>;
}

/** A filter drop-down: "any" (the empty value) first, then each value, the queried one selected. */
const SelectFilter: FC<FilterProps & { any: string; values: readonly string[] }> = (p) => (
  <Field label={p.label} for={`f-${p.name}`}>
    <select id={`f-${p.name}`} name={p.name}>
      <option value="">{p.any}</option>
      {p.values.map((v) => <option key={v} value={v} selected={p.raw[p.name] === v}>{v}</option>)}
    </select>
  </Field>
);

/** A free-text filter box, showing back what the query held (valid or not). */
const TextFilter: FC<FilterProps & { placeholder: string }> = (p) => (
  <Field label={p.label} for={`f-${p.name}`}>
    <input
      id={`f-${p.name}`}
      name={p.name}
      type="text"
      placeholder={p.placeholder}
      value={p.raw[p.name] ?? ""}
    />
  </Field>
);

/**
 * A UTC date or date-and-time box. Its placeholder is the format, never a date, so an empty
 * box cannot be read as a filled one.
 */
const DateFilter: FC<FilterProps> = (p) => (
  <TextFilter {...p} placeholder="YYYY-MM-DD or YYYY-MM-DDTHH:MM" />
);

/** What /runs' table shows: a page of runs, and whether the query filters them. */
export interface RunsTableData {
  now: Date;
  page: RunsTablePage;
  filtered: boolean;
}

/** /runs' table, also its live region's partial (/partials/runs-table?<the same query>). */
export const RunsHistoryTable: FC<{ data: RunsTableData }> = ({ data }) => (
  <RunsTable
    page={data.page}
    now={data.now}
    showJob
    empty={data.filtered
      ? "No runs match these filters. Widen the dates or clear a filter."
      : "No runs yet. Create a job on the dashboard and press Run now."}
  />
);

/** /jobs/<id>'s table, also its live region's partial (/partials/job-runs/<id>). */
export const JobRunsTable: FC<{ page: RunsTablePage; now: Date }> = ({ page, now }) => (
  <RunsTable
    page={page}
    now={now}
    showJob={false}
    empty="No runs yet. Press Run now to start one."
  />
);

export interface RunsPageData extends RunsTableData {
  raw: Record<string, string>;
  errors: FieldError[];
  jobs: { id: number; name: string }[];
  charts: ChartData;
  /** The outpost's usage per UTC day, the last 30 days. */
  days: UsageBucket[];
  spanLinks: Record<"24h" | "7d", string>;
}

export const RunsPage: FC<{ data: RunsPageData }> = ({ data }) => (
  <div class="stack">
    <h1 class="page-title">Runs</h1>
    <Card id="card-activity" title="Activity" wide>
      <HistoryCharts data={data.charts} spanLinks={data.spanLinks} />
    </Card>
    <Card id="card-history" title="Runs" wide>
      <form class="filters" method="get" action="/runs" id="runs-filter">
        <Field label="Job" for="f-job">
          <select id="f-job" name="job">
            <option value="">All jobs</option>
            {data.jobs.map((j) => (
              <option value={String(j.id)} selected={data.raw.job === String(j.id)}>
                {j.name}
              </option>
            ))}
          </select>
        </Field>
        <SelectFilter
          label="Status"
          name="status"
          any="Any status"
          values={RUN_STATUSES}
          raw={data.raw}
        />
        <SelectFilter label="Class" name="class" any="Any class" values={CLASSES} raw={data.raw} />
        <DateFilter label="From (UTC)" name="from" raw={data.raw} />
        <DateFilter label="To (UTC)" name="to" raw={data.raw} />
        {data.raw.span ? <input type="hidden" name="span" value={data.raw.span} /> : null}
        <div class="filter-actions">
          <button type="submit" class="btn btn-primary">Filter</button>
          {data.filtered ? <a class="btn btn-quiet" href="/runs">Clear</a> : null}
        </div>
      </form>
      <Errors errors={data.errors} />
      <div data-live="history" data-src={hrefWith("/partials/runs-table", data.raw, {})}>
        <RunsHistoryTable data={data} />
      </div>
    </Card>
    <Card id="card-usage" title="Cost and tokens per day" wide>
      <DailyUsageTable days={data.days} />
    </Card>
  </div>
);

export interface JobPageData {
  now: Date;
  job: Job;
  nextFires: Date[];
  /** Why next fires could not be computed (a broken schedule), else null. */
  nextFiresError: string | null;
  /** The last 50 runs, newest first (the strip and the stats). */
  recent: Run[];
  /** The job's totals today, in 7 days and in 30 days (the usage rollup). */
  usage: UsageWindows;
  page: RunsTablePage;
  /** The query as typed (only `before` applies here), for the live region's link. */
  raw: Record<string, string>;
  errors: FieldError[];
  /** Which stored key the job's runs send, and where (core/scheduler/job_key.ts). */
  keyNote?: JobKeyNote;
}

/** ok / every finished run that was an attempt (skips, queued and running left out). */
export function successRate(runs: Run[]): { ok: number; of: number } {
  const finished = runs.filter((r) =>
    !["queued", "running", "skipped", "skipped_drift", "cancelled"].includes(r.status)
  );
  return { ok: finished.filter((r) => r.status === "ok").length, of: finished.length };
}

/** Median of the finished runs' durations (ms), or null when none reported one. */
export function medianDurationMs(runs: Run[]): number | null {
  const ms = runs.flatMap((r) => {
    if (r.duration_ms !== null) return [r.duration_ms];
    if (!r.started_at || !r.finished_at) return [];
    const d = Date.parse(r.finished_at) - Date.parse(r.started_at);
    return Number.isFinite(d) && d >= 0 ? [d] : [];
  }).sort((a, b) => a - b);
  if (ms.length === 0) return null;
  const mid = Math.floor(ms.length / 2);
  return ms.length % 2 ? ms[mid]! : Math.round((ms[mid - 1]! + ms[mid]!) / 2);
}

const Setting: FC<{ label: string; children?: Child; id?: string }> = (p) => (
  <div class="fact">
    <dt>{p.label}</dt>
    <dd data-setting={p.id}>{p.children}</dd>
  </div>
);

export const JobPage: FC<{ data: JobPageData }> = ({ data }) => {
  const { job, now } = data;
  const rate = successRate(data.recent);
  const median = medianDurationMs(data.recent);
  return (
    <div class="stack">
      <nav class="crumbs" aria-label="Breadcrumb">
        <a href="/">Dashboard</a> <span aria-hidden="true">/</span> <a href="/runs">Runs</a>{" "}
        <span aria-hidden="true">/</span> <span>{job.name}</span>
      </nav>
      <section class="card card-wide" aria-labelledby="job-title">
        <header class="card-head">
          <h1 id="job-title">
            {job.name} <span class="muted">· job {job.id}</span>
          </h1>
          {job.enabled ? null : <span class="badge badge-disabled">disabled</span>}
          <button type="button" class="btn" data-action="trigger-job" data-id={job.id}>
            Run now
          </button>
        </header>
        <dl class="facts">
          <Setting label="Schedule" id="schedule">
            <ScheduleText schedule={job.schedule} />
          </Setting>
          <Setting label="Class">{job.class}</Setting>
          <Setting label="Mode · timeout">{`${job.mode} · ${durationText(job.timeout_s)}`}</Setting>
          <Setting label="Retries">{String(job.max_retries)}</Setting>
          <Setting label="Token budget">
            {job.token_budget === null ? "none" : String(job.token_budget)}
          </Setting>
          <Setting label="Priority">
            {job.priority === null ? "class default" : String(job.priority)}
          </Setting>
          <Setting label="Base URL" id="base_url">
            {job.base_url || "the outpost's default"}
          </Setting>
          <Setting label="Model" id="model">
            {/* Jobs made before the form left it empty may hold the "default" sentinel. */}
            {job.model && job.model !== MODEL_SENTINEL ? job.model : "the endpoint's default"}
          </Setting>
          <Setting label="Provider preset" id="provider_preset">
            {job.provider_preset || "the outpost's settings"}
          </Setting>
          {data.keyNote
            ? <Setting label="Stored key" id="stored_key">{data.keyNote.note}</Setting>
            : null}
          <Setting label="Workdir">
            <span class="mono">{job.workdir}</span>
          </Setting>
          {pinLabelOf(job.meta) === null ? null : (
            <Setting label="Pinned to" id="pin_label">
              nodes labelled <span class="mono">{pinLabelOf(job.meta)}</span>
            </Setting>
          )}
          <Setting label="Output">{job.output_surface || "report only"}</Setting>
          <Setting label="Success rate" id="success-rate">
            {rate.of === 0
              ? "—"
              : `${Math.round((rate.ok / rate.of) * 100)}% (${rate.ok} of ${rate.of})`}
          </Setting>
          <Setting label="Median duration" id="median-duration">
            {median === null ? "—" : msText(median)}
          </Setting>
        </dl>
        <JobHoldNote job={job} />
        <h2 class="sub-head">Cost and tokens</h2>
        <UsageTable usage={data.usage} label="What this job's runs cost" />
        <h2 class="sub-head">Next fires</h2>
        {data.nextFiresError
          ? <p class="error-note">{data.nextFiresError}</p>
          : !job.enabled
          ? <p class="empty">The job is disabled: it does not fire. Enable it on the dashboard.</p>
          : data.nextFires.length === 0
          ? <p class="empty">Nothing left to fire.</p>
          : (
            <ol class="fires" data-testid="next-fires">
              {data.nextFires.map((d) => {
                const iso = d.toISOString();
                return (
                  <li>
                    <time datetime={iso}>{shortTime(iso)}</time>{" "}
                    <span class="muted">({relativeTime(iso, now)})</span>
                  </li>
                );
              })}
            </ol>
          )}
        <h2 class="sub-head">Last {data.recent.length} runs</h2>
        <HistoryStrip runs={data.recent} jobId={job.id} />
      </section>
      <Card id="card-history" title="Runs" wide>
        <div
          data-live="history"
          data-src={hrefWith(`/partials/job-runs/${job.id}`, data.raw, {})}
        >
          <JobRunsTable page={data.page} now={now} />
        </div>
      </Card>
    </div>
  );
};

export interface AuditPageData {
  now: Date;
  rows: AuditRow[];
  extras: AuditExtras;
  raw: Record<string, string>;
  errors: FieldError[];
  actions: string[];
  older: string | null;
  newest: string | null;
  filtered: boolean;
}

export const AuditPage: FC<{ data: AuditPageData }> = ({ data }) => (
  <div class="stack">
    <Card id="card-audit" title="Audit log" wide level={1}>
      <form class="filters" method="get" action="/audit" id="audit-filter">
        <SelectFilter
          label="Action"
          name="action"
          any="Any action"
          values={data.actions}
          raw={data.raw}
        />
        <SelectFilter
          label="Channel"
          name="channel"
          any="Any channel"
          values={AUDIT_CHANNELS}
          raw={data.raw}
        />
        <TextFilter label="Actor" name="actor" placeholder="e.g. dashboard" raw={data.raw} />
        <TextFilter label="Target" name="target" placeholder="e.g. job:3" raw={data.raw} />
        <DateFilter label="From (UTC)" name="from" raw={data.raw} />
        <DateFilter label="To (UTC)" name="to" raw={data.raw} />
        <div class="filter-actions">
          <button type="submit" class="btn btn-primary">Filter</button>
          {data.filtered ? <a class="btn btn-quiet" href="/audit">Clear</a> : null}
        </div>
      </form>
      <Errors errors={data.errors} />
      {data.rows.length === 0
        ? (
          <p class="empty" data-testid="audit-empty">
            {data.filtered
              ? "No audit rows match. Filters are exact: check the spelling, or clear them."
              : "Nothing audited yet. Changes to jobs, answers, memory reads and governor edits appear here."}
          </p>
        )
        : <AuditTable rows={data.rows} extras={data.extras} />}
      {data.older === null && data.newest === null
        ? null
        : (
          <nav class="row-meta paging" aria-label="Audit pages">
            {data.newest !== null ? <a href={data.newest}>Newest rows</a> : null}
            {data.older !== null
              ? <a href={data.older} rel="next" data-testid="older-audit">Older rows</a>
              : null}
          </nav>
        )}
    </Card>
  </div>
);
