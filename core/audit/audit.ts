// Best-effort audit rows (spec 2.9): a failing write is logged and never breaks the
// operation that caused it. Every door (dashboard, machine door, chat, push) writes
// through here so the action names stay one vocabulary: an action is named by what was done
// (`approve`, `answer`, `job_create`), and the door it came through is the row's channel.

import { errorText, type Logger } from "../logger.ts";
import type { AuditRow, NewAuditRow, Store } from "../store/store.ts";

/**
 * The doors an audited action comes through (the row's `channel`, its own column so /audit
 * can filter by it): the dashboard's human routes, the chat bot, a push notification's
 * button, the machine door (/api/v1/), a webhook (/hooks/), the `agent-outpost token`
 * command, and the outpost's own work (scheduler, sweeps, push pruning, GitHub comments).
 */
export const AUDIT_CHANNELS = [
  "dashboard",
  "chat",
  "push",
  "machine",
  "webhook",
  "cli",
  "outpost",
] as const;

export type AuditChannel = (typeof AUDIT_CHANNELS)[number];

/** Action names. The chat verbs are named as the spec names them (2.9), channel `chat`. */
export const AUDIT = {
  bodyRead: "body_read",
  answer: "answer",
  dismiss: "dismiss",
  approve: "approve",
  reject: "reject",
  revise: "revise",
  run: "run",
  pause: "pause",
  resume: "resume",
  stop: "stop",
  highRiskHold: "high_risk_hold",
  highRiskConfirm: "high_risk_confirm",
  pushApprove: "push_approve",
  pushDismiss: "push_dismiss",
  pushSubscribe: "push_subscribe",
  pushUnsubscribe: "push_unsubscribe",
  jobCreate: "job_create",
  jobUpdate: "job_update",
  jobEnable: "job_enable",
  jobDisable: "job_disable",
  jobDelete: "job_delete",
  jobTrigger: "job_trigger",
  jobCancel: "job_cancel",
  apiSubmit: "api_submit",
  governorUpdate: "governor_update",
  tokenCreate: "token_create",
  tokenRevoke: "token_revoke",
  memorySweep: "memory_sweep",
  memoryReclassify: "memory_reclassify",
  memoryDelete: "memory_delete",
  retentionSweep: "retention_sweep",
} as const;

export type AuditAction = (typeof AUDIT)[keyof typeof AUDIT];

const DETAIL_MAX = 1000;

/**
 * Appends one audit row. Never throws: a store that throws or refuses (null) is logged
 * at warn level with the row, and null is returned.
 */
export function audit(
  store: Pick<Store, "appendAudit">,
  logger: Logger,
  row: NewAuditRow & { channel: AuditChannel },
): AuditRow | null {
  const clean: NewAuditRow = {
    ...row,
    detail: row.detail.length > DETAIL_MAX ? `${row.detail.slice(0, DETAIL_MAX - 1)}…` : row.detail,
  };
  let written: AuditRow | null = null;
  let failure: string | null = null;
  try {
    written = store.appendAudit(clean);
    if (written === null) failure = "the store refused the row";
  } catch (err) {
    failure = errorText(err);
  }
  if (failure !== null) {
    try {
      logger.log("warn", "audit write failed; the operation went ahead", {
        error: failure,
        action: clean.action,
        target: clean.target,
        actor: clean.actor,
      });
    } catch { /* a broken logger must not break the operation either */ }
  }
  return written;
}
