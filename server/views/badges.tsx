// Status badges and pills: one look for a run status, an inbox risk or a lane state.

import type { FC } from "hono/jsx";
import type { Risk } from "../../core/inbox/risk.ts";
import type { RunStatus } from "../../core/store/store.ts";

const RUN_LABEL: Record<RunStatus, string> = {
  queued: "queued",
  running: "running",
  ok: "ok",
  error: "error",
  needs_human: "needs human",
  skipped: "skipped",
  skipped_drift: "skipped (drift)",
  killed: "killed",
  lost: "lost",
  cancelled: "cancelled",
};

/** A run status; `data-status` lets the page script and the tests read it back. */
export const RunBadge: FC<{ status: RunStatus | null | undefined }> = ({ status }) => {
  if (!status) return <span class="badge badge-none" data-status="none">no runs</span>;
  return (
    <span class={`badge badge-${status}`} data-status={status}>
      {RUN_LABEL[status] ?? status}
    </span>
  );
};

/**
 * Why the agent stopped, when its status alone does not say it: an `error` run may be an answer
 * cut off by max_tokens (`truncated`), a spent token budget, the turn cap or a loop. Nothing for
 * the plain endings (stop, needs_human, error) or an unknown reason.
 */
export const DoneReasonBadge: FC<{ reason: string | null }> = ({ reason }) => {
  if (!reason || PLAIN_ENDINGS.has(reason)) return null;
  return (
    <span class="badge badge-kind" data-done-reason={reason}>{reason.replaceAll("_", " ")}</span>
  );
};

const PLAIN_ENDINGS = new Set(["stop", "needs_human", "error"]);

export const RiskBadge: FC<{ risk: Risk }> = ({ risk }) => (
  <span class={`badge risk-${risk}`} data-risk={risk}>{risk} risk</span>
);

export const KindBadge: FC<{ kind: string }> = ({ kind }) => (
  <span class="badge badge-kind">{kind}</span>
);

/** A small state pill for a delivery lane (messenger, push). */
export const Pill: FC<
  { label: string; state: string; detail?: string; extra?: string | undefined; id?: string }
> = (
  p,
) => (
  <span
    class={`pill pill-${p.state}`}
    id={p.id}
    data-state={p.state}
    title={p.detail}
  >
    <span class="dot" aria-hidden="true"></span>
    {p.label}: {p.state}
    {p.extra ? <span class="pill-extra">{p.extra}</span> : null}
  </span>
);

export function isInFlight(status: RunStatus | null | undefined): boolean {
  return status === "queued" || status === "running";
}
