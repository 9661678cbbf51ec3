// The Jobs card's live list: newest first, latest-run badge, enable switch, trigger, edit,
// delete, dead-letter reason. The create/edit form sits beside it (job_form.tsx).

import type { FC } from "hono/jsx";
import type { JobWithLatestRun } from "../../core/store/store.ts";
import { isInFlight, RunBadge } from "./badges.tsx";
import { relativeTime, scheduleText, shortTime } from "./format.ts";

/** The fields the edit form needs, carried on the Edit button as JSON (attribute-escaped). */
export function jobFormValues(job: JobWithLatestRun): Record<string, unknown> {
  return {
    id: job.id,
    name: job.name,
    prompt: job.prompt,
    schedule: job.schedule,
    workdir: job.workdir,
    mode: job.mode,
    timeout_s: job.timeout_s,
    max_retries: job.max_retries,
    token_budget: job.token_budget,
    priority: job.priority,
    output_surface: job.output_surface,
    recipe_id: job.recipe_id,
  };
}

export const JobRow: FC<{ job: JobWithLatestRun; now: Date }> = ({ job, now }) => {
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
          <span class="job-name">{job.name}</span>
          {latest
            ? (
              <a
                href={`/runs/${job.id}/${latest.id}`}
                class="badge-link"
                aria-label={`Latest run ${latest.id}`}
              >
                <RunBadge status={latest.status} />
              </a>
            )
            : <RunBadge status={null} />}
          {job.enabled ? null : <span class="badge badge-disabled">disabled</span>}
          {job.class === "api" ? <span class="badge badge-kind">one-shot</span> : null}
        </div>
        <div class="row-meta">
          <span class="mono">{scheduleText(job.schedule)}</span>
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
        {job.dead_letter_reason
          ? (
            <p class="dead-letter" role="note">
              <strong>Dead-letter:</strong> {job.dead_letter_reason}
            </p>
          )
          : !job.enabled && job.disabled_reason
          ? <p class="muted small">Disabled: {job.disabled_reason}</p>
          : null}
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
          data-job={JSON.stringify(jobFormValues(job))}
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

/** The live part of the Jobs card (re-fetched from /partials/jobs). */
export const JobsList: FC<{ jobs: JobWithLatestRun[]; now: Date }> = ({ jobs, now }) => {
  if (jobs.length === 0) {
    return <p class="empty">No jobs yet. Create one with the form below.</p>;
  }
  return (
    <ul class="rows" aria-label="Jobs">
      {jobs.map((job) => <JobRow key={job.id} job={job} now={now} />)}
    </ul>
  );
};
