// The scheduler's emitters (spec 6): build sanitized events from store records.

import type { Risk } from "../inbox/risk.ts";
import type { InboxItem, Job, Run } from "../store/store.ts";
import { BODY_MAX, sanitizeBody, sanitizeTitle } from "./sanitize.ts";
import type { AlertEvent, AlertKind, InboxItemEvent, RunReportEvent } from "./types.ts";

/** Deep link path of a run page. */
export function runLink(jobId: number, runId: number): string {
  return `/runs/${jobId}/${runId}`;
}

function room(job: Job): { room?: string } {
  const r = job.meta.room;
  return typeof r === "string" && r !== "" ? { room: r } : {};
}

export function inboxItemEvent(job: Job, item: InboxItem, risk: Risk, at: string): InboxItemEvent {
  const first = item.questions[0]?.text ?? "The run stopped and needs an answer.";
  const more = item.questions.length > 1 ? `\n(+${item.questions.length - 1} more)` : "";
  return {
    kind: "inbox_item",
    item_id: item.id,
    job_id: job.id,
    run_id: item.run_id,
    risk,
    title: sanitizeTitle(`${job.name} needs you`),
    body: sanitizeBody(first + more),
    priority: "high",
    at,
    ...room(job),
  };
}

/** `head` is the start of the markdown report (or the final text when there is none). */
export function runReportEvent(
  job: Job,
  run: Run,
  outcome: "ok" | "needs_human",
  head: string,
  at: string,
): RunReportEvent {
  const verb = outcome === "ok" ? "finished" : "is waiting for an answer";
  return {
    kind: "run_report",
    job_id: job.id,
    run_id: run.id,
    outcome,
    link: runLink(job.id, run.id),
    title: sanitizeTitle(`${job.name} ${verb} (run ${run.id})`),
    body: sanitizeBody(head, BODY_MAX),
    priority: "normal",
    at,
    ...room(job),
  };
}

const ALERT_TITLES: Record<AlertKind, string> = {
  drift: "model drift: run skipped",
  needs_human: "needs a human",
  dead_letter: "disabled after repeated failures",
  schedule_error: "disabled: schedule error",
};

export function alertEvent(
  alert: AlertKind,
  job: Job,
  detail: string,
  at: string,
  ids: { run_id?: number; item_id?: number } = {},
): AlertEvent {
  return {
    kind: "alert",
    alert,
    job_id: job.id,
    ...ids,
    title: sanitizeTitle(`${job.name}: ${ALERT_TITLES[alert]}`),
    body: sanitizeBody(detail),
    priority: alert === "drift" ? "normal" : "high",
    at,
    ...room(job),
  };
}
