// The outpost page script (an ES module, no build step): wires the buttons and forms of the
// server-rendered pages to the JSON API and starts the live updates. Untrusted text only
// ever reaches the DOM through textContent; HTML comes only from this origin's /partials/
// routes, which escape on the server.

import { api, localizeTimes, runLink, tickElapsed, toast } from "./dom.js";
import { fillForm, resetForm } from "./job_form.js";
import { connectLive, refresh } from "./live.js";
import { openMemory } from "./panels.js";
import "./memory_admin.js";
import "./recipes.js"; // the Recipes card wires itself when the page has one
import { startPush } from "./push.js";

const page = document.body.dataset.page ?? "";

// ---------- actions ----------

async function guarded(button, fn) {
  if (button) button.disabled = true;
  try {
    await fn();
  } catch (err) {
    toast(err.message, "error");
  } finally {
    if (button && button.isConnected) button.disabled = false;
  }
}

const actions = {
  "trigger-job": (b) =>
    guarded(b, async () => {
      const data = await api("POST", `/api/jobs/${b.dataset.id}/trigger`);
      toast(`Run ${data.run.id} queued.`, "ok", runLink(data.run));
      refresh("jobs", "runs");
    }),
  // The row carries only the id: the job (with its prompt of up to 32,000 characters) is
  // fetched when Edit is clicked, which keeps the page small.
  "edit-job": (b) =>
    guarded(b, async () => {
      const data = await api("GET", `/api/jobs/${b.dataset.id}`);
      fillForm(data.job);
    }),
  "delete-job": (b) =>
    guarded(b, async () => {
      if (
        !confirm(`Delete job “${b.dataset.name}” and its run history? Reports stay on disk.`)
      ) return;
      await api("DELETE", `/api/jobs/${b.dataset.id}`);
      toast("Job deleted.");
      refresh("jobs", "runs");
    }),
  "reset-job-form": () => {
    resetForm();
    const box = document.getElementById("job-form-box");
    if (box) box.open = false;
  },
  "stop-job": (b) =>
    guarded(b, async () => {
      await api("POST", `/api/jobs/${b.dataset.id}/cancel`);
      toast("Stopped.");
      refresh("run", "jobs", "runs");
    }),
  "dismiss": (b) =>
    guarded(b, async () => {
      if (
        !confirm(
          `Close item ${b.dataset.id} without answering? The run stays stopped and is not resumed.`,
        )
      ) return;
      await api("POST", `/api/inbox/${b.dataset.id}/dismiss`, {});
      toast(`Item ${b.dataset.id} dismissed.`);
      clearDirty(b);
      refresh("inbox", "status", "inbox-item", "run");
    }),
  "release-held": (b) =>
    guarded(b, async () => {
      if (!confirm(`Publish item ${b.dataset.id}'s original text, secrets included?`)) return;
      await api("POST", `/api/inbox/${b.dataset.id}/release`, {});
      toast(`Item ${b.dataset.id} released: the original was published.`);
      refresh("inbox", "status", "inbox-item", "run");
    }),
  "drop-held": (b) =>
    guarded(b, async () => {
      await api("POST", `/api/inbox/${b.dataset.id}/drop`, {});
      toast(`Item ${b.dataset.id} dropped; nothing was published.`);
      refresh("inbox", "status", "inbox-item", "run");
    }),
  "confirm-hold": (b) =>
    guarded(b, async () => {
      const data = await api("POST", `/api/inbox/${b.dataset.id}/high-risk-confirm`);
      toast("Hold confirmed; the run resumes.", "ok", runLink(data.run));
      clearDirty(b);
      refresh("inbox", "status", "inbox-item", "run", "runs");
    }),
  "fill-answer": (b) => {
    const formEl = document.querySelector(
      `form[data-action="answer"][data-id="${CSS.escape(b.dataset.id)}"]`,
    );
    const area = formEl && formEl.elements.namedItem("answer");
    if (area) {
      area.value = b.dataset.value;
      formEl.dataset.dirty = "true";
      area.focus();
    }
  },
  "open-memory": (b) => openMemory(b.dataset.path),
  "close-memory": () => {
    const panel = document.getElementById("memory-body");
    if (panel) panel.hidden = true;
  },
};

function clearDirty(node) {
  const f = node.closest("form");
  if (f) delete f.dataset.dirty;
}

document.addEventListener("click", (e) => {
  const target = e.target instanceof Element ? e.target.closest("[data-action]") : null;
  if (!target || target.tagName === "FORM" || target.type === "checkbox") return;
  const fn = actions[target.dataset.action];
  if (fn) {
    e.preventDefault();
    fn(target);
  }
});

document.addEventListener("change", (e) => {
  const t = e.target;
  if (!(t instanceof HTMLInputElement) || t.dataset.action !== "toggle-job") return;
  const enabled = t.checked;
  guarded(t, async () => {
    try {
      await api("PUT", `/api/jobs/${t.dataset.id}`, { enabled });
      toast(enabled ? "Job enabled." : "Job disabled.");
    } catch (err) {
      t.checked = !enabled;
      throw err;
    }
    refresh("jobs");
  });
});

// Answer forms mark themselves dirty so a live refresh never wipes a half-typed answer.
document.addEventListener("input", (e) => {
  const f = e.target instanceof Element ? e.target.closest('form[data-action="answer"]') : null;
  if (f) {
    if (String(e.target.value || "").trim() === "") delete f.dataset.dirty;
    else f.dataset.dirty = "true";
  }
});

document.addEventListener("submit", (e) => {
  const f = e.target;
  if (!(f instanceof HTMLFormElement) || f.dataset.action !== "answer") return;
  e.preventDefault();
  const area = f.elements.namedItem("answer");
  const answer = String(area.value || "").trim();
  const errorSlot = f.querySelector(".form-error");
  if (answer === "") {
    errorSlot.textContent = "Type an answer first, or close the item without answering.";
    errorSlot.hidden = false;
    area.focus();
    return;
  }
  const button = f.querySelector('button[type="submit"]');
  guarded(button, async () => {
    try {
      const data = await api("POST", `/api/inbox/${f.dataset.id}/answer`, { answer });
      delete f.dataset.dirty;
      toast(
        data.run ? `Answered; run ${data.run.id} resumes.` : "Answered.",
        "ok",
        runLink(data.run),
      );
      refresh("inbox", "status", "inbox-item", "run", "runs");
    } catch (err) {
      errorSlot.textContent = err.message;
      errorSlot.hidden = false;
    }
  });
});

// ---------- start ----------

localizeTimes(document);
tickElapsed();
if (page !== "not-found") {
  connectLive();
  startPush().catch((err) => console.warn("push setup failed:", err));
}
// A deep link to a card (/#card-jobs from an alert) lands on it even after layout shifts.
if (location.hash.startsWith("#card-")) {
  const card = document.getElementById(location.hash.slice(1));
  if (card) card.scrollIntoView();
}
