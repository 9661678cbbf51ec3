// One inbox item with its questions, kinds and risk, the answer/dismiss controls and the
// note for a live high-risk hold (with Confirm), or, for a held publication, its
// Release/Drop controls (publish_hold.tsx). Used by the Inbox card, /inbox/<id> and
// the run page.

import type { FC } from "hono/jsx";
import type { InboxView } from "../../core/inbox/service.ts";
import { KindBadge, RiskBadge } from "./badges.tsx";
import { relativeTime, shortTime } from "./format.ts";
import { isPublishHold } from "../../core/publish/gate.ts";
import { PublishHoldControls } from "./publish_hold.tsx";

export const HoldNote: FC<{ item: InboxView; now: Date }> = ({ item, now }) => {
  const hold = item.hold;
  if (!hold) return null;
  return (
    <div class="hold-note" role="note" data-hold="live">
      <p>
        <strong>High-risk hold.</strong> <span class="mono">{hold.sender}</span> sent{" "}
        <span class="mono">{hold.verb}</span> from chat room{" "}
        <span class="mono" data-hold-room>{hold.room}</span>; confirming answers with{" "}
        <q class="mono">{hold.answer}</q>, resumes the run and replies in that room.
      </p>
      <p class="muted small">
        Held <time datetime={hold.held_at}>{relativeTime(hold.held_at, now)}</time>, expires{" "}
        <time datetime={hold.expires_at}>{relativeTime(hold.expires_at, now)}</time>.
      </p>
      <button type="button" class="btn btn-warn" data-action="confirm-hold" data-id={item.id}>
        Confirm
      </button>
    </div>
  );
};

const STATE_TEXT: Record<string, string> = { answered: "Answered", dismissed: "Dismissed" };

export const InboxItemView: FC<{
  item: InboxView;
  jobName: string | null;
  now: Date;
  /** Heading level context: the card lists items, the deep link shows one. */
  standalone?: boolean;
}> = ({ item, jobName, now, standalone }) => {
  const kinds = [...new Set(item.questions.map((q) => q.kind ?? "unknown"))];
  const title = inboxTitle(item);
  const open = item.state === "open";
  return (
    <article
      class={standalone ? "inbox-item standalone" : "inbox-item"}
      id={`inbox-${item.id}`}
      data-inbox-id={item.id}
      data-state={item.state}
      aria-labelledby={`inbox-${item.id}-title`}
    >
      <header class="item-head">
        <h3 id={`inbox-${item.id}-title`} class="item-title">
          {standalone ? title : <a href={`/inbox/${item.id}`}>{title}</a>}
        </h3>
        <RiskBadge risk={item.risk} />
        {kinds.map((k) => <KindBadge key={k} kind={k} />)}
      </header>
      <p class="muted small">
        {jobName ?? `job ${item.job_id}`} ·{" "}
        <a href={`/runs/${item.job_id}/${item.run_id}`}>run {item.run_id}</a> ·{" "}
        <time datetime={item.created_at}>{shortTime(item.created_at)}</time>
      </p>
      {item.questions.length === 0
        ? <p class="muted">The run stopped without a question.</p>
        : (
          <ol class="questions">
            {item.questions.map((q, i) => (
              <li>
                <p class="question-text">{q.text}</p>
                {q.detail ? <pre class="question-detail" tabindex={0}>{q.detail}</pre> : null}
                {q.options && q.options.length > 0
                  ? (
                    <div
                      class="options"
                      role="group"
                      aria-label={`Suggested answers to question ${i + 1} (fill the answer box)`}
                    >
                      <span class="options-label muted small" aria-hidden="true">
                        Suggested answers:
                      </span>
                      {q.options.map((o) => (
                        <button
                          type="button"
                          class="chip"
                          data-action="fill-answer"
                          data-id={item.id}
                          data-value={o}
                        >
                          “{o}”
                        </button>
                      ))}
                    </div>
                  )
                  : null}
              </li>
            ))}
          </ol>
        )}
      {open && isPublishHold(item) ? <PublishHoldControls item={item} /> : open
        ? (
          <>
            <HoldNote item={item} now={now} />
            <form class="answer-form" data-action="answer" data-id={item.id}>
              <label for={`answer-${item.id}`} class="label">Your answer</label>
              <textarea id={`answer-${item.id}`} name="answer" rows={2} required></textarea>
              <p class="form-error" hidden role="alert"></p>
              <div class="form-actions">
                <button type="submit" class="btn btn-primary">Answer</button>
                {/* Not "Dismiss": an agent may offer "dismiss" as an answer, which resumes the run. */}
                <button
                  type="button"
                  class="btn btn-quiet btn-danger"
                  data-action="dismiss"
                  data-id={item.id}
                >
                  Close without answering
                </button>
              </div>
            </form>
          </>
        )
        : (
          <p class="closed-note">
            {STATE_TEXT[item.state] ?? item.state}
            {item.answered_via ? ` via ${item.answered_via}` : ""}
            {item.answered_at
              ? (
                <>
                  {" "}
                  <time datetime={item.answered_at}>{shortTime(item.answered_at)}</time>
                </>
              )
              : null}
            {item.answer
              ? (
                <>
                  : <q>{item.answer}</q>
                </>
              )
              : null}
          </p>
        )}
    </article>
  );
};

/** The live part of the Inbox card (re-fetched from /partials/inbox). */
export const InboxList: FC<{ items: InboxView[]; jobNames: Map<number, string>; now: Date }> = (
  { items, jobNames, now },
) => {
  if (items.length === 0) {
    return (
      <p class="empty">
        Nothing needs you right now. Runs that stop on a question or an approval land here.
      </p>
    );
  }
  const rest = items.slice(INBOX_EXPANDED);
  return (
    <div class="inbox-list">
      {items.slice(0, INBOX_EXPANDED).map((item) => (
        <InboxItemView item={item} jobName={jobNames.get(item.job_id) ?? null} now={now} />
      ))}
      {rest.length
        ? (
          <details class="inbox-more" id="inbox-more">
            <summary class="btn btn-quiet">{rest.length} more</summary>
            <ul class="rows compact" aria-label="More open items">
              {rest.map((item) => (
                <li class="row" data-inbox-id={item.id}>
                  <a class="row-link" href={`/inbox/${item.id}`}>
                    <span class="row-text">{inboxTitle(item)}</span>
                    <RiskBadge risk={item.risk} />
                  </a>
                </li>
              ))}
            </ul>
          </details>
        )
        : null}
    </div>
  );
};

/**
 * Open items shown whole in the Inbox card; the rest are titles under "N more", so the jobs
 * below stay a screen away with twenty items waiting.
 */
export const INBOX_EXPANDED = 3;

/** An item's title: its first question (one line, clipped), or "Inbox item N" without one. */
export function inboxTitle(item: Pick<InboxView, "id" | "questions">): string {
  const first = item.questions[0]?.text?.replace(/\s+/g, " ").trim() ?? "";
  if (first === "") return `Inbox item ${item.id}`;
  return first.length > 90 ? `${first.slice(0, 89)}…` : first;
}
