// The job create/edit form: JSON to the jobs API, the API's 400 field errors shown next to
// their fields, and the live preview of the next five fires from /api/schedule/preview.

import { api, el, positive, toast } from "./dom.js";
import { refresh } from "./live.js";

// ---------- job form ----------

const form = document.getElementById("job-form");
const NUMBER_FIELDS = ["timeout_s", "max_retries", "token_budget", "priority"];
const NULLABLE = new Set(["token_budget", "priority"]);

export function clearErrors(scope) {
  for (const p of scope.querySelectorAll(".field-error, .form-error")) {
    p.hidden = true;
    p.textContent = "";
  }
  for (const i of scope.querySelectorAll("[aria-invalid]")) i.removeAttribute("aria-invalid");
}

/**
 * An API message for the operator: a leading internal field name ("schedule.expr: …") is
 * replaced by the label the form shows for that field ("Expression: …").
 */
export function labelled(scope, field, message) {
  if (!field) return message;
  const input = scope.querySelector(`[name="${CSS.escape(field)}"]`);
  const label = input && input.labels && input.labels[0]
    ? input.labels[0].textContent.trim()
    : field;
  const prefix = `${field}: `;
  return `${label}: ${message.startsWith(prefix) ? message.slice(prefix.length) : message}`;
}

export function showError(scope, err, fallbackId) {
  const field = err.field || "";
  const slot = field ? scope.querySelector(`[data-error-for="${CSS.escape(field)}"]`) : null;
  const message = labelled(scope, field, err.message);
  if (slot) {
    slot.textContent = message;
    slot.hidden = false;
    const input = scope.querySelector(`[name="${CSS.escape(field)}"]`);
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.focus();
    }
    return;
  }
  const general = fallbackId
    ? document.getElementById(fallbackId)
    : scope.querySelector(".form-error");
  if (general) {
    general.textContent = message;
    general.hidden = false;
  } else toast(message, "error");
}

function formValue(name) {
  const input = form.elements.namedItem(name);
  return input ? String(input.value) : "";
}

function jobBody(editing) {
  const body = {
    name: formValue("name").trim(),
    prompt: formValue("prompt"),
    schedule: {
      kind: formValue("schedule.kind"),
      expr: formValue("schedule.expr").trim(),
      tz: formValue("schedule.tz").trim() || "UTC",
    },
    workdir: formValue("workdir").trim(),
    mode: formValue("mode"),
    output_surface: formValue("output_surface"),
    // The endpoint snapshot (spec 2.3): prefilled with the outpost's current endpoint.
    base_url: formValue("base_url").trim(),
    model: formValue("model").trim(),
    // The preset whose stored key the job may use (it goes only to that preset's origin).
    provider_preset: formValue("provider_preset").trim(),
  };
  for (const name of NUMBER_FIELDS) {
    const raw = formValue(name).trim();
    if (raw === "") {
      if (editing && NULLABLE.has(name)) body[name] = null;
      continue;
    }
    body[name] = Number(raw);
  }
  // The fleet pin (shown only on an outpost in a fleet): empty is any node, so an edit
  // clears a pin with null and a new job leaves the field out.
  if (form.elements.namedItem("pin_label")) {
    const pin = formValue("pin_label").trim();
    if (pin !== "") body.pin_label = pin;
    else if (editing) body.pin_label = null;
  }
  return body;
}

function setFormMode(job) {
  const title = document.getElementById("job-form-title");
  const submit = document.getElementById("job-form-submit");
  const toggle = document.getElementById("job-form-toggle");
  form.elements.namedItem("id").value = job ? String(job.id) : "";
  title.textContent = job ? `Edit job ${job.id}` : "New job";
  submit.textContent = job ? "Save changes" : "Create job";
  if (toggle) toggle.textContent = job ? "Editing job" : "New job";
}

export function resetForm() {
  form.reset();
  clearErrors(form);
  setFormMode(null);
  renderPreview(null);
}

export function fillForm(job) {
  resetForm();
  const set = (name, v) => {
    const input = form.elements.namedItem(name);
    if (input) input.value = v === null || v === undefined ? "" : String(v);
  };
  const endpoint = ["base_url", "model", "provider_preset"];
  for (
    const k of [
      "name",
      "prompt",
      "workdir",
      "mode",
      "output_surface",
      ...endpoint,
      ...NUMBER_FIELDS,
    ]
  ) {
    set(k, job[k]);
  }
  set("pin_label", job.meta?.pin_label);
  set("schedule.kind", job.schedule.kind);
  set("schedule.expr", job.schedule.expr);
  set("schedule.tz", job.schedule.tz);
  // A recipe-made job keeps its rendered prompt for life (spec 9).
  form.elements.namedItem("prompt").readOnly = Boolean(job.recipe_id);
  setFormMode(job);
  const box = document.getElementById("job-form-box");
  if (box) box.open = true;
  // A one-shot job that has fired holds a time in the past: previewing it would greet the
  // operator with "not in the future" before they typed anything. Say what to do instead.
  if (job.schedule.kind === "at" && !job.next_run_at) {
    renderPreview({ note: "This one-shot job has fired. Set a new time to run it again." });
  } else schedulePreview();
  form.elements.namedItem("name").focus();
  form.scrollIntoView({ block: "start", behavior: "smooth" });
}

// ---------- schedule preview ----------

let previewSeq = 0;
let previewTimer = 0;

function renderPreview(result) {
  const list = document.getElementById("schedule-preview");
  if (!list) return;
  list.replaceChildren();
  if (result === null) {
    list.append(el("li", { class: "muted", text: "Type a schedule to preview it." }));
    list.dataset.state = "empty";
    return;
  }
  if (result.note) {
    list.append(el("li", { class: "muted", text: result.note }));
    list.dataset.state = "fired";
    return;
  }
  if (result.error) {
    list.append(el("li", { class: "preview-error", text: result.error }));
    list.dataset.state = "error";
    return;
  }
  if (result.fires.length === 0) {
    list.append(el("li", { class: "muted", text: "This schedule never fires again." }));
    list.dataset.state = "none";
    return;
  }
  let zoned = null;
  try {
    zoned = new Intl.DateTimeFormat(undefined, {
      timeZone: result.tz,
      dateStyle: "medium",
      timeStyle: "short",
    });
  } catch { /* unknown zone in this browser */ }
  for (const iso of result.fires) {
    const d = new Date(iso);
    const local = zoned ? zoned.format(d) : iso;
    list.append(
      el(
        "li",
        { "data-fire": iso },
        el("span", { text: local }),
        " ",
        el("span", {
          class: "muted small",
          text: `${result.tz} · ${iso.replace("T", " ").replace(":00Z", "Z")}`,
        }),
      ),
    );
  }
  list.dataset.state = "ok";
}

async function runPreview() {
  const expr = formValue("schedule.expr").trim();
  if (expr === "") return renderPreview(null);
  const seq = ++previewSeq;
  const q = new URLSearchParams({
    kind: formValue("schedule.kind"),
    expr,
    tz: formValue("schedule.tz").trim() || "UTC",
    count: "5",
  });
  try {
    const data = await api("GET", `/api/schedule/preview?${q}`);
    if (seq !== previewSeq) return;
    renderPreview({ fires: data.fires || [], tz: (data.schedule && data.schedule.tz) || "UTC" });
  } catch (err) {
    if (seq !== previewSeq) return;
    renderPreview({ error: err.message });
  }
}

function schedulePreview() {
  clearTimeout(previewTimer);
  previewTimer = setTimeout(runPreview, 200);
}

if (form) {
  form.addEventListener("input", (e) => {
    const name = e.target && e.target.name;
    if (name && name.startsWith("schedule.")) schedulePreview();
    const slot = name ? form.querySelector(`[data-error-for="${CSS.escape(name)}"]`) : null;
    if (slot) slot.hidden = true;
    if (e.target.removeAttribute) e.target.removeAttribute("aria-invalid");
  });
  form.addEventListener("change", (e) => {
    if (e.target && e.target.name && e.target.name.startsWith("schedule.")) schedulePreview();
  });
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    clearErrors(form);
    const id = formValue("id");
    const editing = positive(id);
    const submit = document.getElementById("job-form-submit");
    submit.disabled = true;
    try {
      const data = editing
        ? await api("PUT", `/api/jobs/${id}`, jobBody(true))
        : await api("POST", "/api/jobs", jobBody(false));
      // The API says which stored key the job's runs send, and where (or that none goes), and
      // whether a naive `at` in a DST gap was moved to the gap's end (schedule_note).
      const saved = editing ? `Saved job ${data.job.id}.` : `Created job ${data.job.id}.`;
      const key = data.key ? ` ${data.key.note}.` : "";
      const note = data.schedule_note ? ` ${data.schedule_note}.` : "";
      toast(saved + key + note);
      resetForm();
      const box = document.getElementById("job-form-box");
      if (box) box.open = false;
      refresh("jobs");
    } catch (err) {
      showError(form, err, "job-form-error");
    } finally {
      submit.disabled = false;
    }
  });
}
