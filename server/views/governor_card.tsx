// The "GPU fairness" card: the governor's levers, each saved as soon as it changes, and the
// live usage per class (re-fetched from /partials/governor).

import type { FC } from "hono/jsx";
import type { GovernorConfig } from "../../core/governor/config.ts";
import type { GovernorUsage } from "../../core/governor/governor.ts";
import { count } from "./format.ts";

const CLASSES = ["scheduled", "api"] as const;

const Meter: FC<{ value: number; max: number; label: string }> = ({ value, max, label }) => {
  const pct = max > 0 ? Math.min(100, Math.round((value / max) * 100)) : 0;
  // Width steps of 10 % as classes: the page CSP allows no inline style.
  const step = Math.min(10, Math.ceil(pct / 10));
  return (
    <span
      class="meter"
      role="meter"
      aria-valuenow={value}
      aria-valuemin={0}
      aria-valuemax={max}
      aria-label={label}
    >
      <span class={`meter-fill w${step}${pct >= 100 ? " full" : ""}`}></span>
    </span>
  );
};

export const GovernorUsageView: FC<{ usage: GovernorUsage }> = ({ usage }) => (
  <div class="usage">
    <table class="usage-table">
      <caption class="sr-only">Current usage per class</caption>
      <thead>
        <tr>
          <th scope="col">Class</th>
          <th scope="col">Running</th>
          <th scope="col">Queued</th>
          <th scope="col">Tokens, last hour</th>
        </tr>
      </thead>
      <tbody>
        {CLASSES.map((cls) => {
          const u = usage.classes[cls];
          return (
            <tr data-class={cls}>
              <th scope="row">
                {cls} <span class="muted small">prio {u.default_priority}</span>
              </th>
              <td>
                <span class="num" data-usage="running">{u.running}</span> / {u.max_concurrent}
                <Meter value={u.running} max={u.max_concurrent} label={`${cls} slots in use`} />
              </td>
              <td class="num">{u.queued}</td>
              <td>
                <span class="num">{count(u.tokens_last_hour)}</span> {u.tokens_per_hour > 0
                  ? (
                    <>
                      {`/ ${count(u.tokens_per_hour)}`}
                      <Meter
                        value={u.tokens_last_hour}
                        max={u.tokens_per_hour}
                        label={`${cls} tokens this hour`}
                      />
                    </>
                  )
                  : <span class="muted">/ unlimited</span>}
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
    <p class="muted small usage-foot">
      Total {usage.total.running} / {usage.total.max} running · queue{" "}
      <span data-usage="queue">{usage.queue.depth} / {usage.queue.max}</span>
      {usage.queue.other > 0
        ? (
          <span data-usage="queue-other">
            {` · ${usage.queue.other} more waiting (retries, resumes, held fires; not capped)`}
          </span>
        )
        : null}
      {usage.defer.enabled
        ? ` · deferring at ${usage.defer.threshold} waiting (now ${
          usage.defer.waiting ?? "unknown"
        })`
        : ""}
    </p>
  </div>
);

const Lever: FC<
  { label: string; name: string; value: number; min: number; max: number; hint?: string }
> = (p) => (
  <div class="field lever">
    <label for={`lever-${p.name}`}>{p.label}</label>
    <input
      id={`lever-${p.name}`}
      type="number"
      inputmode="numeric"
      name={p.name}
      data-lever={p.name}
      value={String(p.value)}
      min={p.min}
      max={p.max}
      required
    />
    {p.hint ? <p class="hint">{p.hint}</p> : null}
    <p class="field-error" data-error-for={p.name} hidden></p>
  </div>
);

export const GovernorLevers: FC<{ config: GovernorConfig }> = ({ config }) => (
  <form class="levers" id="governor-form" aria-label="Governor levers">
    <div class="form-grid levers-grid">
      <Lever
        label="Scheduled slots"
        name="max_concurrent.scheduled"
        value={config.max_concurrent.scheduled}
        min={0}
        max={64}
      />
      <Lever
        label="API slots"
        name="max_concurrent.api"
        value={config.max_concurrent.api}
        min={0}
        max={64}
      />
      <Lever
        label="Scheduled tokens / hour"
        name="tokens_per_hour.scheduled"
        value={config.tokens_per_hour.scheduled}
        min={0}
        max={1e12}
        hint="0 = unlimited"
      />
      <Lever
        label="API tokens / hour"
        name="tokens_per_hour.api"
        value={config.tokens_per_hour.api}
        min={0}
        max={1e12}
        hint="0 = unlimited"
      />
      <Lever
        label="Queue depth"
        name="queue_depth_max"
        value={config.queue_depth_max}
        min={1}
        max={1000}
      />
      <Lever
        label="Defer threshold"
        name="defer_threshold"
        value={config.defer_threshold}
        min={1}
        max={10000}
      />
      <div class="field lever field-wide">
        <label class="check">
          <input
            type="checkbox"
            data-lever="defer_when_interactive"
            name="defer_when_interactive"
            checked={config.defer_when_interactive}
          />
          Defer background runs while the model server is busy (experimental)
        </label>
        <p class="field-error" data-error-for="defer_when_interactive" hidden></p>
      </div>
    </div>
    <p class="muted small" aria-live="polite" id="governor-status">
      Each change asks for confirmation, then applies at once.
    </p>
  </form>
);
