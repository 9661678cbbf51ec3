// The GPU fairness levers (each saved as it changes) and the memory pane (search hits and
// the body panel; bodies are shown as text, never as markup).

import { api, el, toast } from "./dom.js";
import { clearErrors, showError } from "./job_form.js";
import { refresh } from "./live.js";

// ---------- governor levers ----------

const levers = document.getElementById("governor-form");
if (levers) {
  levers.addEventListener("submit", (e) => e.preventDefault());
  levers.addEventListener("change", async (e) => {
    const input = e.target;
    const name = input && input.dataset ? input.dataset.lever : "";
    if (!name) return;
    clearErrors(levers);
    const value = input.type === "checkbox" ? input.checked : Number(input.value);
    // A lever throttles every job: ask before it applies, and put the old value back if not.
    const label = input.labels && input.labels[0] ? input.labels[0].textContent.trim() : name;
    if (!confirm(`Change “${label}” to ${value}? This applies to every job at once.`)) {
      if (input.type === "checkbox") input.checked = !input.checked;
      else input.value = input.defaultValue;
      return;
    }
    const [top, sub] = name.split(".");
    const body = sub ? { [top]: { [sub]: value } } : { [top]: value };
    const status = document.getElementById("governor-status");
    try {
      const data = await api("PUT", "/api/governor", body);
      if (status) status.textContent = `Saved ${name}.`;
      input.defaultValue = input.value;
      if (data && data.config) input.dataset.saved = "true";
      refresh("governor");
    } catch (err) {
      showError(levers, { message: err.message, field: name }, null);
      if (input.type === "checkbox") input.checked = !input.checked;
      else input.value = input.defaultValue;
    }
  });
}

// ---------- memory pane ----------

function renderHits(hits, q) {
  const box = document.getElementById("memory-hits");
  if (!box) return;
  box.replaceChildren();
  if (hits.length === 0) {
    box.append(el("p", { class: "muted small", text: `No memory matches “${q}”.` }));
    return;
  }
  const list = el("ol", { class: "rows compact hits", "aria-label": `Search results for ${q}` });
  for (const h of hits) {
    list.append(
      el(
        "li",
        { class: "row" },
        el(
          "button",
          {
            type: "button",
            class: "row-link as-button",
            "data-action": "open-memory",
            "data-path": h.path,
          },
          el("span", {
            class: `badge cat-${String(h.category).replace(/[^a-z-]/g, "")}`,
            text: h.category,
          }),
          el(
            "span",
            { class: "row-text" },
            el("span", { text: h.title || h.path }),
            el("span", { class: "muted small", text: h.snippet || "" }),
          ),
        ),
      ),
    );
  }
  box.append(list);
}

export async function openMemory(path) {
  const panel = document.getElementById("memory-body");
  if (!panel) return;
  const title = document.getElementById("memory-body-title");
  const meta = document.getElementById("memory-body-meta");
  const text = document.getElementById("memory-body-text");
  try {
    const body = await api("GET", `/api/memory/body?${new URLSearchParams({ path })}`);
    title.textContent = body.path;
    const parts = [
      body.category,
      body.workspace ? `workspace ${body.workspace}` : "global",
      `${body.size} bytes`,
    ];
    meta.textContent = parts.join(" · ");
    text.textContent = body.body;
    panel.hidden = false;
    document.dispatchEvent(new CustomEvent("memory-opened", { detail: body }));
    panel.scrollIntoView({ block: "nearest", behavior: "smooth" });
    text.focus({ preventScroll: true });
  } catch (err) {
    toast(err.message, "error");
  }
}

const search = document.getElementById("memory-search");
if (search) {
  search.addEventListener("submit", async (e) => {
    e.preventDefault();
    const q = String(search.elements.namedItem("q").value || "").trim();
    if (q === "") return;
    try {
      const data = await api("GET", `/api/memory/search?${new URLSearchParams({ q })}`);
      renderHits(data.hits || [], q);
    } catch (err) {
      toast(err.message, "error");
    }
  });
}
