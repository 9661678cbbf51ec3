// The run history table shared by /runs and /jobs/<id>: status, job, when, duration, tokens
// in/out, cost, model and attempt, one page at a time with an "Older runs" cursor link. Cost
// is the figure the run reported (priced by the agent with its own pricing setting and
// table); it stays blank, never $0, when pricing was off or the model is not in the table.
// A run whose provider served part of its prompts from the prompt cache says what share.

import type { FC } from "hono/jsx";
import { formatCost } from "../../core/pricing/pricing.ts";
import type { RunProgress } from "../../core/scheduler/run_log.ts";
import type { Run } from "../../core/store/store.ts";
import { RunBadge } from "./badges.tsx";
import { count, msText, relativeTime, shortTime } from "./format.ts";

/**
 * The share of a run's prompt tokens its provider's cache served ("91% cached"), or "" when
 * the run reported no cache use (or ran before runs stored it).
 */
export function cachedShare(run: Run): string {
  const read = run.cache_read_tokens ?? 0;
  if (read === 0) return "";
  const prompt = (run.tokens_in ?? 0) + read + (run.cache_write_tokens ?? 0);
  return `${Math.round((read / prompt) * 100)}% cached`;
}

/** Runs per page of the history lists. */
export const RUNS_PER_PAGE = 50;

/**
 * How long a run took: the run's own duration_ms when it reported one, else the stored
 * timestamps (whole seconds, so an instant run reads "< 1 s", never "0 s").
 */
export function runDuration(run: Run): string {
  if (run.duration_ms !== null) return msText(run.duration_ms);
  if (!run.started_at || !run.finished_at) return "";
  const ms = Date.parse(run.finished_at) - Date.parse(run.started_at);
  if (!Number.isFinite(ms) || ms < 0) return "";
  return ms === 0 ? "< 1 s" : msText(ms);
}

/** A running run's time so far; the page script ticks it on (dom.js, data-elapsed-from). */
export const Elapsed: FC<{ from: string; now: Date }> = ({ from, now }) => (
  <span data-elapsed-from={from}>{msText(Math.max(0, now.getTime() - Date.parse(from)))}</span>
);

/** "4,280 so far" for a running run whose log reported tokens; "" otherwise. */
function soFar(p: RunProgress | undefined): string {
  return p?.tokens == null ? "" : `${count(p.tokens)} so far`;
}

export interface RunsTablePage {
  runs: Run[];
  /** Job names by id (rows of deleted jobs show the id). */
  jobNames: Map<number, string>;
  /** href of the next (older) page, or null on the last page. */
  older: string | null;
  /** href of the newest page when this is an older one, else null. */
  newest: string | null;
  /** What each running run of the page has done so far (run_progress.ts), by run id. */
  progress?: Map<number, RunProgress>;
}

export const RunsTable: FC<{ page: RunsTablePage; now: Date; showJob: boolean; empty: string }> = (
  { page, now, showJob, empty },
) => {
  const nav = page.older === null && page.newest === null
    ? null
    : (
      <nav class="row-meta paging" aria-label="Run pages">
        {page.newest !== null ? <a href={page.newest}>Newest runs</a> : null}
        {page.older !== null
          ? <a href={page.older} rel="next" data-testid="older-runs">Older runs</a>
          : null}
      </nav>
    );
  if (page.runs.length === 0) {
    return (
      <>
        <p class="empty" data-testid="runs-empty">{empty}</p>
        {nav}
      </>
    );
  }
  return (
    <>
      <div class="table-scroll" tabindex={0} role="region" aria-label="Runs, scrollable">
        <table class="history" aria-label="Runs">
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              {showJob ? <th scope="col">Job</th> : null}
              <th scope="col">Queued</th>
              <th scope="col" class="num">Duration</th>
              <th scope="col" class="num">Tokens in / out</th>
              <th scope="col" class="num">Cost</th>
              <th scope="col">Model</th>
              <th scope="col" class="num">Attempt</th>
            </tr>
          </thead>
          <tbody>
            {page.runs.map((run) => (
              <tr data-run-id={run.id} data-status={run.status} data-class={run.class}>
                <td>
                  <a href={`/runs/${run.job_id}/${run.id}`}>#{run.id}</a>
                </td>
                <td>
                  <RunBadge status={run.status} />
                  {page.progress?.get(run.id)?.tool
                    ? (
                      <span class="muted small mono" data-col="tool">
                        {` ${page.progress.get(run.id)!.tool}`}
                      </span>
                    )
                    : null}
                </td>
                {showJob
                  ? (
                    <td class="clip">
                      <a href={`/jobs/${run.job_id}`}>
                        {page.jobNames.get(run.job_id) ?? `job ${run.job_id}`}
                      </a>
                    </td>
                  )
                  : null}
                <td>
                  <time datetime={run.queued_at} title={shortTime(run.queued_at)}>
                    {relativeTime(run.queued_at, now) || shortTime(run.queued_at)}
                  </time>
                </td>
                <td class="num" data-col="duration">
                  {run.status === "running" && run.started_at
                    ? <Elapsed from={run.started_at} now={now} />
                    : runDuration(run)}
                </td>
                <td class="num" data-col="tokens">
                  {run.tokens_in === null && run.tokens_out === null
                    ? soFar(page.progress?.get(run.id))
                    : `${count(run.tokens_in)} / ${count(run.tokens_out)}`}
                  {cachedShare(run)
                    ? <span class="muted" data-col="cached">{` · ${cachedShare(run)}`}</span>
                    : null}
                </td>
                <td class="num" data-col="cost">{formatCost(run.cost_usd)}</td>
                <td class="mono clip" data-col="model">{run.model ?? ""}</td>
                <td class="num" data-col="attempt">{String(run.attempt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {nav}
    </>
  );
};

/** Healthchecks-style strip: one cell per run, oldest left, coloured by status. */
export const HistoryStrip: FC<{ runs: Run[]; jobId: number }> = ({ runs, jobId }) => {
  if (runs.length === 0) return <p class="empty">No runs yet. Press Run now to start one.</p>;
  const oldestFirst = [...runs].reverse();
  return (
    <ol class="strip" aria-label={`Last ${runs.length} runs, oldest first`}>
      {oldestFirst.map((r) => (
        <li>
          <a
            class={`strip-cell badge-${r.status}`}
            href={`/runs/${jobId}/${r.id}`}
            title={`run ${r.id}: ${r.status}, ${shortTime(r.queued_at)}`}
            data-status={r.status}
          >
            <span class="sr-only">run {r.id} {r.status}</span>
          </a>
        </li>
      ))}
    </ol>
  );
};
