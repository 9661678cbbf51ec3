// /runs/<job>/<run>: status, attempt, exit code, why the agent stopped (done and stop
// reason, with a badge such as "truncated" when exit 1 alone would not say), the rendered
// (sanitized) report, a Stop button while queued or running, the run's inbox item with any
// live high-risk hold, and the memory pane. RunDetail is the live region
// (/partials/run/<job>/<run>).

import type { Child, FC } from "hono/jsx";
import { raw } from "hono/html";
import { formatCost } from "../../core/pricing/pricing.ts";
import type { Run } from "../../core/store/store.ts";
import { DoneReasonBadge, isInFlight, RunBadge } from "./badges.tsx";
import { count, durationText, relativeTime, shortTime } from "./format.ts";
import { ScheduleText } from "./schedule_text.tsx";
import { InboxItemView } from "./inbox_item.tsx";
import { cachedShare, runDuration } from "./runs_table.tsx";
import { Card } from "./layout.tsx";
import { MemoryPane, type MemoryPaneData } from "./memory_pane.tsx";
import type { RunPageData } from "./page_data.ts";

const Fact: FC<{ label: string; children?: Child; testid?: string }> = (p) => (
  <div class="fact">
    <dt>{p.label}</dt>
    <dd data-fact={p.testid}>{p.children}</dd>
  </div>
);

const Siblings: FC<{ runs: Run[]; jobId: number; now: Date }> = ({ runs, jobId, now }) => {
  if (runs.length === 0) return null;
  return (
    <details class="card card-wide siblings">
      <summary>Other runs of this job ({runs.length})</summary>
      <ul class="rows compact">
        {runs.map((r) => (
          <li class="row">
            <a class="row-link" href={`/runs/${jobId}/${r.id}`}>
              <RunBadge status={r.status} />
              <span class="row-text">
                run {r.id}
                {r.attempt > 1 ? ` · attempt ${r.attempt}` : ""}
              </span>
              <time class="muted small when" datetime={r.queued_at}>
                {relativeTime(r.queued_at, now)}
              </time>
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
};

export const RunDetail: FC<{ data: RunPageData; reportHtml: string | null; now: Date }> = (
  { data, reportHtml, now },
) => {
  const { job, run, item } = data;
  const live = isInFlight(run.status);
  const resumedBy = data.siblings.find((r) => r.resume_of_run === run.id) ?? null;
  return (
    <div class="run-detail" data-run-status={run.status}>
      <section class="card card-wide" aria-labelledby="run-title">
        <header class="card-head">
          <h1 id="run-title">
            {job.name} <span class="muted">· run {run.id}</span>
          </h1>
          <RunBadge status={run.status} />
          <DoneReasonBadge reason={run.done_reason} />
          {live
            ? (
              <button type="button" class="btn btn-danger" data-action="stop-job" data-id={job.id}>
                Stop
              </button>
            )
            : null}
        </header>
        <dl class="facts">
          <Fact label="Status" testid="status">{run.status}</Fact>
          <Fact label="Attempt" testid="attempt">{String(run.attempt)}</Fact>
          <Fact label="Exit code" testid="exit-code">
            {run.exit_code === null ? "—" : String(run.exit_code)}
          </Fact>
          {run.done_reason
            ? <Fact label="Done reason" testid="done-reason">{run.done_reason}</Fact>
            : null}
          {run.stop_reason
            ? <Fact label="Stop reason" testid="stop-reason">{run.stop_reason}</Fact>
            : null}
          <Fact label="Queued">{shortTime(run.queued_at)}</Fact>
          <Fact label="Started">{shortTime(run.started_at)}</Fact>
          <Fact label="Finished">{shortTime(run.finished_at)}</Fact>
          <Fact label="Duration" testid="duration">{runDuration(run) || "—"}</Fact>
          <Fact label="Tokens in / out">
            {`${count(run.tokens_in)} / ${count(run.tokens_out)}`}
          </Fact>
          {cachedShare(run)
            ? (
              <Fact label="Prompt cache" testid="prompt-cache">
                {`${count(run.cache_read_tokens)} read / ${
                  count(run.cache_write_tokens)
                } written (${cachedShare(run)})`}
              </Fact>
            )
            : null}
          {run.cost_usd !== null ? <Fact label="Cost">{formatCost(run.cost_usd)}</Fact> : null}
          {run.model ? <Fact label="Model">{run.model}</Fact> : null}
          <Fact label="Schedule">
            <ScheduleText schedule={job.schedule} />
          </Fact>
          <Fact label="Mode · timeout">{`${job.mode} · ${durationText(job.timeout_s)}`}</Fact>
          {data.ranOn
            ? (
              <div class="fact">
                <dt>Ran on node</dt>
                <dd data-fact="ran-on">
                  {data.ranOn.runUrl
                    ? <a href={data.ranOn.runUrl}>{data.ranOn.node_id}</a>
                    : data.ranOn.node_id}
                </dd>
              </div>
            )
            : null}
          {resumedBy
            ? (
              <div class="fact">
                <dt>Resumed by</dt>
                <dd data-fact="resumed-by">
                  <a href={`/runs/${job.id}/${resumedBy.id}`}>run {resumedBy.id}</a>
                </dd>
              </div>
            )
            : null}
          {run.resume_of_run !== null
            ? (
              <div class="fact">
                <dt>Resumes</dt>
                <dd>
                  <a href={`/runs/${job.id}/${run.resume_of_run}`}>run {run.resume_of_run}</a>
                </dd>
              </div>
            )
            : null}
        </dl>
        {run.reason ? <p class="reason" data-fact="reason">{run.reason}</p> : null}
        {run.answer
          ? (
            <p class="muted">
              Answer given: <q>{run.answer}</q>
            </p>
          )
          : null}
        {job.dead_letter_reason
          ? (
            <p class="dead-letter" role="note">
              <strong>Job dead-lettered:</strong> {job.dead_letter_reason}
            </p>
          )
          : null}
      </section>
      {item
        ? (
          <section class="card card-wide run-question" aria-label="Question from this run">
            <InboxItemView item={item} jobName={job.name} now={now} />
          </section>
        )
        : null}
      <section class="card card-wide report" aria-labelledby="report-title">
        <header class="card-head">
          <h2 id="report-title">Report</h2>
        </header>
        {reportHtml !== null
          ? <article class="md" id="report">{raw(reportHtml)}</article>
          : data.reportNote === null
          ? (
            <p class="empty" id="report-empty">
              {live ? "The report appears when the run finishes." : "This run left no report."}
            </p>
          )
          : null}
        {data.reportNote !== null
          ? <p class="md-note" id="report-note" role="note">{data.reportNote}</p>
          : null}
      </section>
      {data.log
        ? (
          <section class="card card-wide" aria-labelledby="log-title" id="run-log">
            <header class="card-head">
              <h2 id="log-title">Process log</h2>
            </header>
            {data.log.note ? <p class="muted small" role="note">{data.log.note}</p> : null}
            {data.log.text ? <pre class="run-log" tabindex={0}>{data.log.text}</pre> : null}
          </section>
        )
        : null}
      <Siblings runs={data.siblings} jobId={job.id} now={now} />
    </div>
  );
};

export const RunPage: FC<
  {
    data: RunPageData;
    reportHtml: string | null;
    memory: MemoryPaneData;
    now: Date;
    /** The transcript card (transcript.tsx), outside the live region: it is only re-read on load. */
    transcript?: Child;
  }
> = (p) => (
  <div class="stack">
    <nav class="crumbs" aria-label="Breadcrumb">
      <a href="/">Dashboard</a> <span aria-hidden="true">/</span> <a href="/#card-jobs">Jobs</a>
      {" "}
      <span aria-hidden="true">/</span> <a href={`/jobs/${p.data.job.id}`}>{p.data.job.name}</a>
    </nav>
    <div data-live="run" data-src={`/partials/run/${p.data.job.id}/${p.data.run.id}`}>
      <RunDetail data={p.data} reportHtml={p.reportHtml} now={p.now} />
    </div>
    {p.transcript ?? null}
    <Card id="card-memory" title="Memory" wide>
      <MemoryPane data={p.memory} />
    </Card>
  </div>
);
