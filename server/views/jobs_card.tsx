// The Jobs card's live list: newest first, latest-run badge, enable switch, trigger, edit,
// delete, dead-letter reason, one page of JOBS_PER_PAGE at a time with a link to the older
// ones. The create/edit form sits beside it (job_form.tsx); Edit fetches the job from
// GET /api/jobs/<id> when clicked, so no prompt (up to 32,000 chars) is carried in the page.

import type { FC } from "hono/jsx";
import type { Job, JobWithLatestRun } from "../../core/store/store.ts";
import { isInFlight, RunBadge } from "./badges.tsx";
import { relativeTime, shortTime } from "./format.ts";
import { ScheduleText } from "./schedule_text.tsx";
import { UsageLine, type UsageWindows } from "./usage.tsx";

/** Jobs shown per page of the Jobs card (the landing page shows the newest page). */
export const JOBS_PER_PAGE = 50;

/** One page of the job list: newest first, below `before` (a job id) when given. */
export interface JobsPage {
  jobs: JobWithLatestRun[];
  /** The id the next (older) page starts below, or null when this page is the last. */
  older: number | null;
  /** Where this page starts (null: the newest page). */
  before: number | null;
  /** Totals of the jobs with runs in the last 30 days (the usage rollup), by job id. */
  usage: Map<number, UsageWindows>;
}

type HoldFields = Pick<Job, "dead_letter_reason" | "enabled" | "disabled_reason">;

/**
 * Why a job is not firing, under its name on the jobs list and on its own page: the
 * dead-letter reason first, else the reason a disabled job was switched off; nothing otherwise.
 */
export const JobHoldNote: FC<{ job: HoldFields }> = ({ job }) =>
  job.dead_letter_reason
    ? (
      <p class="dead-letter" role="note">
        <strong>Dead-letter:</strong> {job.dead_letter_reason}
      </p>
    )
    : !job.enabled && job.disabled_reason
    ? <p class="muted small">Disabled: {job.disabled_reason}</p>
    : null;

export const JobRow: FC<{ job: JobWithLatestRun; now: Date; usage?: UsageWindows | undefined }> = (
  { job, now, usage },
) => {
  const latest = job.latest_run;
  const busy = isInFlight(latest?.status);
  return (
    <li
      class="row job"
      id={`job-${job.id}`}
      data-job-id={job.id}
      data-enabled={String(job.enabled)}
    >
      <div class="row-main">
        <div class="row-title">
          <span class="job-name">
            <a href={`/jobs/${job.id}`}>{job.name}</a>
          </span>
          {latest
            ? (
              <a
                href={`/runs/${job.id}/${latest.id}`}
                class="badge-link"
                title={`Latest run ${latest.id}`}
              >
                <RunBadge status={latest.status} />
                <span class="sr-only">latest run {latest.id}</span>
              </a>
            )
            : <RunBadge status={null} />}
          {job.enabled ? null : <span class="badge badge-disabled">disabled</span>}
          {job.class === "api" ? <span class="badge badge-kind">one-shot</span> : null}
        </div>
        <div class="row-meta">
          <span class="mono">
            <ScheduleText schedule={job.schedule} />
          </span>
          {job.enabled && job.next_run_at
            ? (
              <span>
                next <time datetime={job.next_run_at}>{shortTime(job.next_run_at)}</time>{" "}
                <span class="muted">({relativeTime(job.next_run_at, now)})</span>
              </span>
            )
            : null}
          <span>{job.mode}</span>
          <span>#{job.id}</span>
        </div>
        {usage ? <UsageLine usage={usage} /> : null}
        <JobHoldNote job={job} />
      </div>
      <div class="row-actions">
        <label class="switch" title={job.enabled ? "Disable" : "Enable"}>
          <input
            type="checkbox"
            role="switch"
            data-action="toggle-job"
            data-id={job.id}
            checked={job.enabled}
            aria-label={`Enabled: ${job.name}`}
          />
          <span class="slider" aria-hidden="true"></span>
        </label>
        <button
          type="button"
          class="btn"
          data-action="trigger-job"
          data-id={job.id}
          disabled={busy}
        >
          Run now
        </button>
        <button
          type="button"
          class="btn btn-quiet"
          data-action="edit-job"
          data-id={job.id}
        >
          Edit
        </button>
        <button
          type="button"
          class="btn btn-quiet btn-danger"
          data-action="delete-job"
          data-id={job.id}
          data-name={job.name}
        >
          Delete
        </button>
      </div>
    </li>
  );
};

/** The address of the job list page that starts below job id `before`. */
export function jobsPageHref(before: number): string {
  return `/jobs?before=${before}`;
}

/** The live part of the Jobs card (re-fetched from /partials/jobs, with ?before= when paged). */
export const JobsList: FC<{ page: JobsPage; now: Date }> = ({ page, now }) => {
  const nav = page.older === null && page.before === null
    ? null
    : (
      <nav class="row-meta paging" aria-label="Job pages">
        {page.before !== null ? <a href="/#card-jobs">Newest jobs</a> : null}
        {page.older !== null ? <a href={jobsPageHref(page.older)} rel="next">Older jobs</a> : null}
      </nav>
    );
  if (page.jobs.length === 0) {
    return page.before === null
      ? <p class="empty">No jobs yet. Create one with the form below.</p>
      : (
        <>
          <p class="empty">No older jobs. Go back to the newest ones.</p>
          {nav}
        </>
      );
  }
  return (
    <>
      <ul class="rows" aria-label="Jobs">
        {page.jobs.map((job) => (
          <JobRow key={job.id} job={job} now={now} usage={page.usage.get(job.id)} />
        ))}
      </ul>
      {nav}
    </>
  );
};
