// The scheduler's emitters (spec 6): build sanitized events from store records. An inbox
// item's event carries what is being approved (the first question's diff or command and its
// directory), cut to DETAIL_MAX, so the chat notice and the push say more than "Apply this?".

import type { Risk } from "../inbox/risk.ts";
import type { InboxItem, Job, Run } from "../store/store.ts";
import { BODY_MAX, sanitizeBody, sanitizeText, sanitizeTitle } from "./sanitize.ts";
import type { AlertEvent, AlertKind, InboxItemEvent, RunReportEvent } from "./types.ts";

/** Deep link path of a run page. */
export function runLink(jobId: number, runId: number): string {
  return `/runs/${jobId}/${runId}`;
}

function room(job: Job): { room?: string } {
  const r = job.meta.room;
  return typeof r === "string" && r !== "" ? { room: r } : {};
}

/** The most of a question's detail (a diff, a command) an inbox event carries. */
export const DETAIL_MAX = 1500;

/** The longest inbox event body: the question (BODY_MAX), its detail and the "more" line. */
export const INBOX_BODY_MAX = BODY_MAX + DETAIL_MAX + 40;

/**
 * A question's detail cleaned like any other outgoing text (controls and bidi overrides
 * removed) and cut at a line end to at most `max` characters, the cut said on a last line.
 */
export function detailExcerpt(detail: string | undefined, max = DETAIL_MAX): string {
  const clean = sanitizeText(detail, { max: Number.MAX_SAFE_INTEGER });
  const chars = Array.from(clean);
  if (chars.length <= max) return clean;
  // Room for the note line; cut at the last line end in what fits, else mid-line.
  const fits = chars.slice(0, Math.max(0, max - 60)).join("");
  const end = fits.lastIndexOf("\n");
  const head = end > 0 ? fits.slice(0, end) : fits;
  const left = clean.slice(head.length).replace(/^\n/, "").split("\n").length;
  return `${head}\n… ${left} more line${left === 1 ? "" : "s"} on the dashboard`;
}

export function inboxItemEvent(job: Job, item: InboxItem, risk: Risk, at: string): InboxItemEvent {
  const first = item.questions[0];
  const text = sanitizeBody(first?.text ?? "The run stopped and needs an answer.");
  const detail = detailExcerpt(first?.detail);
  const more = item.questions.length > 1 ? `(+${item.questions.length - 1} more)` : "";
  return {
    kind: "inbox_item",
    item_id: item.id,
    job_id: job.id,
    run_id: item.run_id,
    risk,
    title: sanitizeTitle(`${job.name} needs you`),
    body: [detail ? `${text}\n\n${detail}` : text, more].filter(Boolean).join("\n"),
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
  setup_error: "disabled: the run cannot start",
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
