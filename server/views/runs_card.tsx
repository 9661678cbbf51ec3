// The Recent runs card: the newest runs over every job, each linking to its run page.

import type { FC } from "hono/jsx";
import type { Run } from "../../core/store/store.ts";
import { RunBadge } from "./badges.tsx";
import { relativeTime } from "./format.ts";
import { runDuration } from "./runs_table.tsx";

export interface RecentRun {
  run: Run;
  job_name: string;
}

export const RunsList: FC<{ runs: RecentRun[]; now: Date }> = ({ runs, now }) => {
  if (runs.length === 0) {
    return <p class="empty">No runs yet. Create a job below, then press Run now to try it.</p>;
  }
  return (
    <>
      <ul class="rows compact" aria-label="Recent runs">
        {runs.map(({ run, job_name }) => {
          const when = run.finished_at ?? run.started_at ?? run.queued_at;
          const took = runDuration(run);
          return (
            <li class="row run" id={`run-${run.id}`} data-run-id={run.id} data-job-id={run.job_id}>
              <a class="row-link" href={`/runs/${run.job_id}/${run.id}`}>
                <RunBadge status={run.status} />
                <span class="row-text">
                  <span class="run-job">{job_name}</span>
                  <span class="muted small">
                    run {run.id}
                    {run.attempt > 1 ? ` · attempt ${run.attempt}` : ""}
                    {run.resume_of_run !== null ? ` · resumes ${run.resume_of_run}` : ""}
                    {took ? ` · ${took}` : ""}
                  </span>
                </span>
                <time class="muted small when" datetime={when}>{relativeTime(when, now)}</time>
              </a>
            </li>
          );
        })}
      </ul>
      <p class="row-meta paging">
        <a href="/runs">All runs</a>
      </p>
    </>
  );
};
