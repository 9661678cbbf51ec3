// The run page's transcript card: each leg of the session (the first run, then each resume)
// with the prompt, the model's turns (reasoning collapsed), every tool call with its
// arguments and result (collapsed, expandable), the question the leg stopped on and the
// operator's answer that opened the next leg. The model's replies are rendered as markdown
// through markdown.ts (sanitized, like the report); everything else is escaped text.

import type { FC } from "hono/jsx";
import { raw } from "hono/html";
import { MODEL_SENTINEL } from "../../core/settings/knobs.ts";
import type { Run } from "../../core/store/store.ts";
import { RunBadge } from "./badges.tsx";
import { shortTime } from "./format.ts";
import { renderMarkdown } from "./markdown.ts";
import type { ToolCallView, Transcript, TranscriptItem } from "./transcript_data.ts";

/** One line of a tool call's arguments for its summary. */
function preview(input: string): string {
  const flat = input.replace(/\s+/g, " ").trim();
  return flat.length > 90 ? `${flat.slice(0, 89)}…` : flat;
}

const ToolCall: FC<{ call: ToolCallView }> = ({ call }) => (
  <details class="tool-call" data-tool={call.name}>
    <summary>
      <span class="mono">{call.name}</span>{" "}
      <span class="muted mono small">{preview(call.input)}</span>
      {call.result?.is_error ? <span class="tool-error">· error</span> : null}
      {call.waiting ? <span class="badge badge-needs_human">waiting for the operator</span> : null}
    </summary>
    <div class="muted small">Arguments</div>
    <pre data-part="arguments">{call.input}</pre>
    <div class="muted small">Result</div>
    {call.result
      ? (
        <pre
          data-part="result"
          class={call.result.is_error ? "tool-error" : ""}
        >{call.result.content}</pre>
      )
      : <p class="muted small">No result recorded.</p>}
  </details>
);

const Item: FC<{ item: TranscriptItem }> = ({ item }) => {
  switch (item.kind) {
    case "prompt":
      return (
        <div class="turn turn-user" data-item="prompt">
          <div class="turn-role">Prompt</div>
          <div class="text">{item.text}</div>
        </div>
      );
    case "user":
      return (
        <div class="turn turn-user" data-item="user">
          <div class="turn-role">User</div>
          <div class="text">{item.text}</div>
        </div>
      );
    case "answer":
      return (
        <div class="turn turn-user" data-item="answer">
          <div class="turn-role">Operator's answer</div>
          <div class="text">{item.text}</div>
        </div>
      );
    case "assistant":
      return (
        <div class="turn turn-assistant" data-item="assistant">
          <div class="turn-role">Model</div>
          {item.reasoning.map((r) => (
            <details class="reasoning">
              <summary>Reasoning</summary>
              <pre>{r}</pre>
            </details>
          ))}
          {item.html
            ? item.html.map((h, i) => <div key={i} class="text md">{raw(h)}</div>)
            : item.texts.map((t, i) => <div key={i} class="text">{t}</div>)}
          {item.calls.map((c) => <ToolCall key={c.id} call={c} />)}
        </div>
      );
    case "stop":
      return (
        <div
          class={item.done_reason === "needs_human" ? "turn turn-stop" : "turn"}
          data-item="stop"
        >
          <div class="turn-role">
            Stopped: {item.done_reason} <span class="muted">· {shortTime(item.at)}</span>
          </div>
          {item.questions.length > 0
            ? (
              <ul class="questions" data-part="questions">
                {item.questions.map((q) => (
                  <li>
                    <strong>{q.kind}:</strong> {q.text}
                  </li>
                ))}
              </ul>
            )
            : null}
          {item.final_text ? <div class="text">{item.final_text}</div> : null}
        </div>
      );
    case "note":
      return <p class="muted small" data-item="note">{item.text}</p>;
  }
};

/**
 * The model the header names: the run's own (the served name from its result, as the page's
 * Model fact shows), else the journal's unless that is the "default" sentinel the session was
 * started with before the server said what it serves: one name per thing on the page.
 */
function headerModel(run: string | null, journal: string): string | null {
  if (run) return run;
  return journal && journal !== MODEL_SENTINEL ? journal : null;
}

/** Renders every model reply of `transcript` as sanitized markdown, in place. */
export async function renderTranscriptMarkdown(transcript: Transcript): Promise<void> {
  if (transcript.kind !== "ok") return;
  const jobs: Promise<void>[] = [];
  for (const leg of transcript.legs) {
    for (const item of leg.items) {
      if (item.kind !== "assistant" || item.texts.length === 0) continue;
      jobs.push(
        Promise.all(item.texts.map(renderMarkdown)).then((html) => {
          item.html = html;
        }),
      );
    }
  }
  await Promise.all(jobs);
}

export const TranscriptCard: FC<
  { transcript: Transcript; legRuns: Run[]; current: number; jobId: number; model: string | null }
> = (
  { transcript, legRuns, current, jobId, model },
) => {
  const shown = transcript.kind === "ok" && transcript.meta
    ? [headerModel(model, transcript.meta.model), transcript.meta.mode].filter(Boolean).join(" · ")
    : "";
  return (
    <section class="card card-wide" id="card-transcript" aria-labelledby="transcript-title">
      <header class="card-head">
        <h2 id="transcript-title">Transcript</h2>
        {shown
          ? <span class="muted small mono" data-testid="transcript-model">{shown}</span>
          : null}
      </header>
      {transcript.kind === "none"
        ? <p class="empty" data-testid="transcript-none">{transcript.why}</p>
        : (
          <div class="transcript">
            {transcript.note ? <p class="md-note" role="note">{transcript.note}</p> : null}
            {transcript.legs.map((leg, i) => {
              const run = legRuns[i];
              return (
                <section class="leg" data-leg={i + 1} aria-label={`Leg ${i + 1}`}>
                  <h3 class="leg-head">
                    {i === 0 ? "First leg" : `Resumed leg ${i}`}
                    {run
                      ? (
                        <>
                          {run.id === current
                            ? <span class="muted">(this run)</span>
                            : <a href={`/runs/${jobId}/${run.id}`}>run {run.id}</a>}
                          <RunBadge status={run.status} />
                        </>
                      )
                      : null}
                  </h3>
                  {leg.items.map((item, j) => <Item key={j} item={item} />)}
                </section>
              );
            })}
          </div>
        )}
    </section>
  );
};
