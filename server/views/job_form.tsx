// The job create/edit form. The page script posts it as JSON to the jobs API, shows the
// API's 400 field errors next to their fields (data-error-for) and previews the next five
// fires while the schedule is typed. Without the script nothing is submitted (no action).

import type { Child, FC } from "hono/jsx";
import type { HtmlEscapedString } from "hono/utils/html";
import type { MessengerStatus } from "../deps.ts";
import {
  MAX_RETRIES_DEFAULT,
  MAX_RETRIES_MAX,
  NAME_MAX,
  PROMPT_MAX,
  TIMEOUT_DEFAULT_S,
  TIMEOUT_MAX_S,
  TIMEOUT_MIN_S,
  TOKEN_BUDGET_MAX,
} from "../../core/scheduler/job_input.ts";
import { NODE_LABEL_PATTERN } from "../../core/fleet/node_label.ts";
import { renderNow } from "./rendered_once.ts";

const ZONES: readonly string[] = (() => {
  try {
    return Intl.supportedValuesOf("timeZone");
  } catch {
    return ["UTC"];
  }
})();

const ZoneOption: FC<{ zone: string }> = ({ zone }) => <option value={zone}></option>;

const FieldError: FC<{ field: string }> = ({ field }) => (
  <p class="field-error" data-error-for={field} id={`err-${field.replace(".", "-")}`} hidden></p>
);

const Field: FC<
  { label: string; field: string; hint?: string; children: Child; wide?: boolean }
> = (p) => (
  <div class={p.wide ? "field field-wide" : "field"}>
    <label for={`f-${p.field.replace(".", "-")}`}>{p.label}</label>
    {p.children}
    {p.hint ? <p class="hint">{p.hint}</p> : null}
    <FieldError field={p.field} />
  </div>
);

const describedBy = (field: string) => `err-${field.replace(".", "-")}`;

/** Why the messenger surface cannot be chosen, or null when it can (spec 3.3). */
function messengerUnavailable(m: MessengerStatus | undefined): string | null {
  if (!m || m.state !== "dormant") return null;
  return `messenger not configured: set ${m.missing.join(", ")}`;
}

/** The endpoint a new job snapshots when its form leaves base_url and model as they are. */
export interface JobFormDefaults {
  base_url?: string;
  model?: string;
}

/**
 * The pin field (docs/fleet.md, "Pinning") shows only on an outpost in a fleet: on a single
 * box every job runs on the one node, and a label there would promise something it ignores.
 */
const PinField: FC = () => (
  <Field
    label="Pin to node label"
    field="pin_label"
    hint="Only fleet nodes started with this label in AGENT_OUTPOST_NODE_LABELS run this job. Empty: any node"
  >
    <input
      id="f-pin_label"
      name="pin_label"
      autocomplete="off"
      spellcheck={false}
      class="mono"
      maxlength={50}
      pattern={NODE_LABEL_PATTERN}
      placeholder="any node"
      aria-describedby={describedBy("pin_label")}
    />
  </Field>
);

/** The form's markup: a pure function of the endpoint defaults, the messenger's note and
 * whether the outpost runs in a fleet (the pin field). */
const JobFormMarkup: FC<
  { defaults: JobFormDefaults; unavailable: string | null; fleet: boolean }
> = ({ defaults, unavailable, fleet }) => (
  <details class="job-form-box" id="job-form-box">
    <summary class="btn btn-primary summary-btn" id="job-form-toggle">New job</summary>
    <form id="job-form" class="job-form" novalidate aria-labelledby="job-form-title">
      <h3 id="job-form-title">New job</h3>
      <input type="hidden" name="id" value="" />
      <div class="form-grid">
        <Field label="Name" field="name" wide>
          <input
            id="f-name"
            name="name"
            required
            maxlength={NAME_MAX}
            autocomplete="off"
            aria-describedby={describedBy("name")}
          />
        </Field>
        <Field label="Prompt" field="prompt" wide>
          <textarea
            id="f-prompt"
            name="prompt"
            rows={4}
            required
            maxlength={PROMPT_MAX}
            aria-describedby={describedBy("prompt")}
          >
          </textarea>
        </Field>
        <Field label="Schedule" field="schedule.kind">
          <select
            id="f-schedule-kind"
            name="schedule.kind"
            aria-describedby={describedBy("schedule.kind")}
          >
            <option value="every">every (interval)</option>
            <option value="cron">cron (5 fields)</option>
            <option value="at">at (one time)</option>
          </select>
        </Field>
        <Field
          label="Expression"
          field="schedule.expr"
          hint="every: 30m, 1h, 1d · cron: 0 9 * * 1-5 · at: 2026-04-01T09:00"
        >
          <input
            id="f-schedule-expr"
            name="schedule.expr"
            required
            autocomplete="off"
            spellcheck={false}
            class="mono"
            placeholder="e.g. 1h"
            aria-describedby={describedBy("schedule.expr")}
          />
        </Field>
        <Field label="Time zone" field="schedule.tz">
          <input
            id="f-schedule-tz"
            name="schedule.tz"
            list="tz-list"
            value="UTC"
            autocomplete="off"
            spellcheck={false}
            aria-describedby={describedBy("schedule.tz")}
          />
        </Field>
        <div class="field field-wide preview-box">
          <p class="label" id="preview-label">Next 5 fires</p>
          <ol
            id="schedule-preview"
            class="preview mono"
            aria-labelledby="preview-label"
            aria-live="polite"
          >
            <li class="muted">Type a schedule to preview it.</li>
          </ol>
        </div>
        <Field label="Working directory" field="workdir" wide>
          <input
            id="f-workdir"
            name="workdir"
            required
            autocomplete="off"
            spellcheck={false}
            class="mono"
            placeholder="e.g. /srv/repo"
            aria-describedby={describedBy("workdir")}
          />
        </Field>
        <Field label="Mode" field="mode">
          <select id="f-mode" name="mode" aria-describedby={describedBy("mode")}>
            <option value="auto">auto</option>
            <option value="strict">strict (report only)</option>
          </select>
        </Field>
        <Field label="Output" field="output_surface">
          <select
            id="f-output_surface"
            name="output_surface"
            aria-describedby={describedBy("output_surface")}
          >
            <option value="">report</option>
            {unavailable
              ? (
                <option value="messenger" disabled>
                  messenger ({unavailable})
                </option>
              )
              : <option value="messenger">messenger</option>}
          </select>
        </Field>
        <Field label="Timeout (s)" field="timeout_s">
          <input
            id="f-timeout_s"
            name="timeout_s"
            type="number"
            inputmode="numeric"
            min={TIMEOUT_MIN_S}
            max={TIMEOUT_MAX_S}
            placeholder={`default ${TIMEOUT_DEFAULT_S}`}
            aria-describedby={describedBy("timeout_s")}
          />
        </Field>
        <Field label="Max retries" field="max_retries">
          <input
            id="f-max_retries"
            name="max_retries"
            type="number"
            inputmode="numeric"
            min={0}
            max={MAX_RETRIES_MAX}
            placeholder={`default ${MAX_RETRIES_DEFAULT}`}
            aria-describedby={describedBy("max_retries")}
          />
        </Field>
        <Field label="Token budget" field="token_budget" hint="Empty: unlimited">
          <input
            id="f-token_budget"
            name="token_budget"
            type="number"
            inputmode="numeric"
            min={1}
            max={TOKEN_BUDGET_MAX}
            aria-describedby={describedBy("token_budget")}
          />
        </Field>
        <Field
          label="Base URL"
          field="base_url"
          hint="The model server this job talks to; prefilled with the outpost's current endpoint. A stored key goes only to the endpoint it was stored for"
          wide
        >
          <input
            id="f-base_url"
            name="base_url"
            type="url"
            autocomplete="off"
            spellcheck={false}
            class="mono"
            value={defaults.base_url ?? ""}
            placeholder="the agent's default endpoint"
            aria-describedby={describedBy("base_url")}
          />
        </Field>
        <Field label="Model" field="model" hint="Empty: the endpoint's default model">
          <input
            id="f-model"
            name="model"
            autocomplete="off"
            spellcheck={false}
            class="mono"
            value={defaults.model ?? ""}
            placeholder="the endpoint's default"
            aria-describedby={describedBy("model")}
          />
        </Field>
        <Field
          label="Provider preset"
          field="provider_preset"
          hint="Empty: the outpost's settings. Name the preset whose stored key was stored for this Base URL to use that key"
        >
          <input
            id="f-provider_preset"
            name="provider_preset"
            autocomplete="off"
            spellcheck={false}
            class="mono"
            placeholder="none"
            aria-describedby={describedBy("provider_preset")}
          />
        </Field>
        <Field
          label="Priority"
          field="priority"
          hint="1..100, lower runs first; empty: class default"
        >
          <input
            id="f-priority"
            name="priority"
            type="number"
            inputmode="numeric"
            min={1}
            max={100}
            aria-describedby={describedBy("priority")}
          />
        </Field>
        {fleet ? <PinField /> : null}
      </div>
      <p class="form-error" id="job-form-error" role="alert" hidden></p>
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" id="job-form-submit">Create job</button>
        <button type="button" class="btn btn-quiet" data-action="reset-job-form">Cancel</button>
      </div>
      <datalist id="tz-list">
        {ZONES.map((z) => <ZoneOption key={z} zone={z} />)}
      </datalist>
    </form>
  </details>
);

/**
 * Rendered forms by their inputs. The form is the same on every load (its ~420 time-zone
 * options alone were 5% of /jobs, the whole form 11%), so each variant is rendered once; the
 * inputs are the outpost's endpoint, the messenger's state and whether it runs in a fleet.
 */
const renderedForms = new Map<string, HtmlEscapedString>();
const FORMS_KEPT = 8;

export const JobForm: FC<
  { defaults?: JobFormDefaults; messenger?: MessengerStatus; fleet?: boolean }
> = ({ defaults = {}, messenger, fleet = false }) => {
  const props = { defaults, unavailable: messengerUnavailable(messenger), fleet };
  const key = JSON.stringify([defaults.base_url, defaults.model, props.unavailable, fleet]);
  let html = renderedForms.get(key);
  if (html === undefined) {
    html = renderNow(JobFormMarkup, props);
    if (renderedForms.size >= FORMS_KEPT) renderedForms.clear();
    renderedForms.set(key, html);
  }
  return html;
};
