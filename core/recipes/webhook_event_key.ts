// The identity of a code-host event, taken from the signed body, for replay protection. The
// signature covers only the body; the delivery id (X-GitHub-Delivery) is an unsigned header,
// so a captured body re-sent with a fresh id looked new and fired the job again (issue 37).
// What the body itself says — repository, issue number, action and the issue's updated_at —
// names the event whatever header it arrives with: the same event fires once.
//
// Remembered for EVENT_REPLAY_WINDOW_MS. An event older than that (by its own updated_at) can
// no longer be told from a replay, so it is refused as stale rather than fired again.

import type { OpenedIssue } from "./issue_event.ts";

/**
 * How long a fired event is remembered, and the oldest event accepted. GitHub lets an
 * operator redeliver a delivery for 3 days; 72 hours covers that whole period, so a genuine
 * redelivery of an event that already fired is recognised as a duplicate (200, nothing fired),
 * while the table holds at most three days of events.
 */
export const EVENT_REPLAY_WINDOW_MS = 72 * 3_600_000;

/** `owner/name#number:action@updated_at`, the repository in lower case (GitHub's is case-blind). */
export function eventKey(issue: OpenedIssue, action: string): string {
  return `${issue.repo.toLowerCase()}#${issue.number}:${action}@${
    new Date(issue.updated_at).toISOString()
  }`;
}

/** Why an event is too old to accept (outside the replay window), or null. */
export function staleEvent(issue: OpenedIssue, nowMs: number): string | null {
  const age = nowMs - Date.parse(issue.updated_at);
  if (age <= EVENT_REPLAY_WINDOW_MS) return null;
  return `issue.updated_at ${issue.updated_at} is more than ${
    EVENT_REPLAY_WINDOW_MS / 3_600_000
  } hours old: an event that old cannot be told from a replay; nothing fired`;
}
