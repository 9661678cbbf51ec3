// The Recipes card: the catalog (description, binding, surface, enabled count), an enable
// form generated from each recipe's config_fields with inline validation and a live preview
// of the rendered prompt and the next fires, the one-time secret and setup steps of a
// trigger recipe, and what recipes made, with a stale badge on jobs from an older version
// and a way to make a new job from the new version (the old job is never rewritten).
// Everything from the API reaches the DOM through textContent (el() in dom.js).

import { api, el, toast } from "./dom.js";
import { refresh } from "./live.js";

const root = document.getElementById("recipes-root");
const PREVIEW_DELAY_MS = 300;
const REPO_PATTERN = "[A-Za-z0-9][A-Za-z0-9\\-]{0,38}/[A-Za-z0-9._\\-]{1,100}";

const SURFACES = {
  report: "run report (dashboard)",
  messenger: "chat room",
  github_pr_comment: "comment on the issue",
};

function bindingText(r) {
  if (r.binding.kind === "trigger") return `trigger: ${r.binding.event} from ${r.binding.source}`;
  const s = r.binding.schedule;
  return `${s.kind} ${s.expr} (${s.tz})`;
}

let catalog = [];

async function load() {
  if (!root) return;
  try {
    const [listing, made] = await Promise.all([
      api("GET", "/api/recipes"),
      api("GET", "/api/recipes/enabled"),
    ]);
    catalog = listing.recipes;
    render(listing, made);
  } catch (err) {
    root.replaceChildren(el("p", { class: "form-error", text: err.message }));
  }
}

function render(listing, made) {
  const list = el("ul", { class: "recipe-list" });
  for (const r of listing.recipes) {
    const count = listing.enabled_counts[r.id] ?? 0;
    list.append(
      el(
        "li",
        { class: "recipe", "data-recipe": r.id },
        el(
          "div",
          { class: "recipe-head" },
          el("strong", { text: r.title }),
          el("span", { class: "badge", text: `v${r.version}` }),
          el("span", { class: "recipe-count", "data-count": r.id, text: `${count} enabled` }),
          el("button", { type: "button", class: "btn", "data-recipe-open": r.id, text: "Enable…" }),
        ),
        el("p", { class: "muted", text: r.description }),
        el(
          "p",
          { class: "recipe-meta" },
          el("span", { text: `Binding: ${bindingText(r)}` }),
          " · ",
          el("span", { text: `Surface: ${SURFACES[r.output_surface] ?? r.output_surface}` }),
        ),
        el("div", { class: "recipe-form-slot" }),
      ),
    );
  }
  const children = [list];
  if (listing.load_errors.length > 0) {
    const errs = el("ul", { class: "recipe-load-errors" });
    for (const e of listing.load_errors) errs.append(el("li", { text: `${e.file}: ${e.error}` }));
    children.push(el("p", { class: "form-error", text: "Recipe files left out:" }), errs);
  }
  children.push(madeList(made));
  root.replaceChildren(...children);
}

function madeList(made) {
  const box = el("div", { class: "recipe-made" }, el("h3", { text: "Made from recipes" }));
  if (made.jobs.length === 0 && made.triggers.length === 0) {
    box.append(el("p", { class: "muted", text: "Nothing yet." }));
    return box;
  }
  const ul = el("ul", { class: "recipe-made-list" });
  for (const j of made.jobs.filter((j) => j.class === "scheduled")) {
    const li = el(
      "li",
      { "data-made-job": j.id },
      el("span", { text: `Job ${j.id}: ${j.name} (${j.recipe_id} v${j.recipe_version})` }),
      j.enabled ? null : el("span", { class: "badge", text: "disabled" }),
    );
    if (j.stale) li.append(...staleBits(j.recipe_id, j.current_version, j.meta?.recipe_config));
    ul.append(li);
  }
  for (const t of made.triggers) {
    const li = el(
      "li",
      { "data-made-trigger": t.id },
      el("span", {
        text: `Trigger ${t.id}: ${t.name} for ${t.repo} (${t.recipe_id} v${t.recipe_version})`,
      }),
      el("span", { class: "badge", text: t.enabled ? "enabled" : "disabled" }),
      el("button", {
        type: "button",
        class: "btn btn-small",
        "data-trigger-toggle": t.id,
        "data-enabled": String(!t.enabled),
        text: t.enabled ? "Disable" : "Enable",
      }),
    );
    if (t.stale) li.append(...staleBits(t.recipe_id, t.current_version, t.config));
    ul.append(li);
  }
  box.append(ul);
  return box;
}

function staleBits(recipeId, version, config) {
  const button = el("button", {
    type: "button",
    class: "btn btn-small",
    "data-recipe-open": recipeId,
    text: `New job from v${version}`,
  });
  button.dataset.prefill = JSON.stringify(config ?? {});
  return [
    el("span", {
      class: "badge badge-stale",
      title: "The recipe changed since this was made; its prompt is kept as it was.",
      text: `updated: v${version} available`,
    }),
    button,
  ];
}

// ---------- the enable form ----------

function fieldInput(f, value) {
  const id = `recipe-field-${f.name}`;
  const required = f.required !== false && f.default === undefined;
  let input;
  if (f.type === "enum") {
    input = el("select", { id, name: f.name });
    for (const v of f.values) input.append(el("option", { value: v, text: v }));
    input.value = value ?? f.default ?? f.values[0];
  } else if (f.type === "integer") {
    input = el("input", {
      id,
      name: f.name,
      type: "number",
      min: f.min,
      max: f.max,
      step: 1,
      required,
    });
    input.value = value ?? f.default ?? "";
  } else {
    input = el("input", {
      id,
      name: f.name,
      type: "text",
      required,
      maxlength: f.type === "text" ? f.max_length : 4096,
      pattern: f.type === "repo" ? REPO_PATTERN : f.type === "path" ? "/.*" : null,
      // A hint, never something that reads as a filled-in value.
      placeholder: f.default !== undefined && f.default !== null
        ? `default: ${f.default}`
        : f.type === "path"
        ? "an absolute path"
        : f.type === "repo"
        ? "owner/name"
        : "",
    });
    input.value = value ?? "";
  }
  input.dataset.fieldType = f.type;
  return el(
    "label",
    { class: "field", for: id },
    el("span", { text: f.label }),
    input,
    f.help ? el("small", { class: "muted", text: f.help }) : null,
    el("small", { class: "field-error", "data-error-for": f.name, hidden: true }),
  );
}

function configOf(form, recipe) {
  const config = {};
  for (const f of recipe.config_fields) {
    const input = form.elements.namedItem(f.name);
    const raw = String(input.value ?? "");
    if (raw.trim() === "") continue;
    config[f.name] = f.type === "integer" ? Number(raw) : raw;
  }
  return config;
}

function showFieldError(form, field, message) {
  for (const slot of form.querySelectorAll(".field-error")) {
    const mine = slot.dataset.errorFor === field;
    slot.hidden = !mine;
    slot.textContent = mine ? message : "";
    const input = form.elements.namedItem(slot.dataset.errorFor);
    if (input) input.setAttribute("aria-invalid", mine ? "true" : "false");
  }
  const general = form.querySelector(".recipe-form-error");
  const known = [...form.querySelectorAll(".field-error")].some((s) =>
    s.dataset.errorFor === field
  );
  general.hidden = known || !message;
  general.textContent = known ? "" : message ?? "";
}

/** The browser's own checks first (required, bounds, pattern), then the server's. */
function localError(form) {
  for (const input of form.querySelectorAll("input, select")) {
    if (!input.checkValidity()) return { field: input.name, message: input.validationMessage };
  }
  return null;
}

function openForm(recipeId, prefill) {
  const recipe = catalog.find((r) => r.id === recipeId);
  const slot = root.querySelector(`[data-recipe="${CSS.escape(recipeId)}"] .recipe-form-slot`);
  if (!recipe || !slot) return;
  const form = el("form", {
    class: "recipe-form",
    "data-recipe-form": recipe.id,
    novalidate: true,
  });
  form.append(
    el(
      "label",
      { class: "field" },
      el("span", { text: "Job name" }),
      el("input", { name: "__name", type: "text", maxlength: 200, placeholder: recipe.title }),
    ),
  );
  for (const f of recipe.config_fields) form.append(fieldInput(f, prefill?.[f.name]));
  const preview = el(
    "div",
    { class: "recipe-preview" },
    el("h4", { text: "Prompt preview" }),
    el("pre", { class: "recipe-prompt", "data-preview": "prompt" }),
    el("h4", { text: recipe.binding.kind === "schedule" ? "Next fires (UTC)" : "Fires" }),
    el("ul", { "data-preview": "fires" }),
  );
  form.append(
    el("p", { class: "form-error recipe-form-error", hidden: true }),
    preview,
    el(
      "div",
      { class: "form-actions" },
      el("button", { type: "submit", class: "btn btn-primary", text: `Enable ${recipe.title}` }),
      el("button", {
        type: "button",
        class: "btn",
        "data-recipe-close": recipe.id,
        text: "Cancel",
      }),
    ),
    el("div", { class: "recipe-result", hidden: true }),
  );
  slot.replaceChildren(form);
  let timer = 0;
  const update = () => {
    clearTimeout(timer);
    timer = setTimeout(() => previewNow(form, recipe), PREVIEW_DELAY_MS);
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    enable(form, recipe);
  });
  previewNow(form, recipe);
  form.querySelector("input, select")?.focus();
}

async function previewNow(form, recipe) {
  const promptBox = form.querySelector('[data-preview="prompt"]');
  const firesBox = form.querySelector('[data-preview="fires"]');
  const local = localError(form);
  if (local) {
    showFieldError(form, local.field, local.message);
    promptBox.textContent = "";
    return;
  }
  try {
    const data = await api("POST", `/api/recipes/${recipe.id}/preview`, {
      config: configOf(form, recipe),
    });
    showFieldError(form, "", "");
    promptBox.textContent = data.prompt;
    firesBox.replaceChildren(
      ...(data.fires.length > 0
        ? data.fires.map((f) => el("li", { text: f }))
        : [el("li", { text: "once per issue opened on the repository" })]),
    );
  } catch (err) {
    showFieldError(form, err.field, err.message);
    promptBox.textContent = "";
  }
}

async function enable(form, recipe) {
  const local = localError(form);
  if (local) return showFieldError(form, local.field, local.message);
  const button = form.querySelector('button[type="submit"]');
  button.disabled = true;
  const name = String(form.elements.namedItem("__name").value ?? "").trim();
  try {
    const data = await api("POST", `/api/recipes/${recipe.id}/enable`, {
      config: configOf(form, recipe),
      ...(name ? { name } : {}),
    });
    if (data.job) {
      toast(`Job ${data.job.id} created from ${recipe.id} v${data.job.recipe_version}.`);
      refresh("jobs");
      await load();
      return;
    }
    showTriggerResult(form, data);
  } catch (err) {
    showFieldError(form, err.field, err.message);
  } finally {
    if (button.isConnected) button.disabled = false;
  }
}

function showTriggerResult(form, data) {
  for (const child of [...form.children]) {
    if (!child.classList.contains("recipe-result")) child.hidden = true;
  }
  const box = form.querySelector(".recipe-result");
  box.hidden = false;
  const setup = data.setup[0];
  const steps = el("ol");
  for (const s of setup.steps) steps.append(el("li", { text: s }));
  box.replaceChildren(
    el("p", {
      text:
        `Trigger ${data.trigger.id} made for ${data.trigger.repo}. Copy the secret now: it is shown once and kept nowhere.`,
    }),
    el(
      "p",
      {},
      el("span", { text: "Secret: " }),
      el("code", { "data-trigger-secret": "", text: data.secret }),
    ),
    el("p", {}, el("span", { text: "Payload URL: " }), el("code", { text: setup.payload_url })),
    steps,
    el("p", { class: "muted", text: "Or with the GitHub CLI:" }),
    el("pre", { text: setup.cli }),
    el("button", { type: "button", class: "btn", "data-recipe-done": "", text: "Done" }),
  );
}

if (root) {
  root.addEventListener("click", (e) => {
    const t = e.target instanceof Element ? e.target : null;
    if (!t) return;
    const open = t.closest("[data-recipe-open]");
    if (open) {
      const prefill = open.dataset.prefill ? JSON.parse(open.dataset.prefill) : undefined;
      return openForm(open.dataset.recipeOpen, prefill);
    }
    if (t.closest("[data-recipe-close]") || t.closest("[data-recipe-done]")) {
      t.closest(".recipe-form-slot")?.replaceChildren();
      if (t.closest("[data-recipe-done]")) load();
      return;
    }
    const toggle = t.closest("[data-trigger-toggle]");
    if (toggle) {
      api("PUT", `/api/recipes/triggers/${toggle.dataset.triggerToggle}`, {
        enabled: toggle.dataset.enabled === "true",
      }).then(() => load(), (err) => toast(err.message, "error"));
    }
  });
  load();
}
