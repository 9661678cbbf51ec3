// The memory body panel's controls: Save sends the open file's category and workspace to
// PUT /api/memory/file, Delete asks first and sends DELETE /api/memory/file. Both reload the
// page afterwards so the list, badges and stats show the change. The panel's open file comes
// from the "memory-opened" event of panels.js.

import { api, toast } from "./dom.js";

const form = document.getElementById("memory-admin");

if (form) {
  const category = form.elements.namedItem("category");
  const workspace = form.elements.namedItem("workspace");
  const errorSlot = document.getElementById("memory-admin-error");
  let opened = null;

  const fail = (err) => {
    errorSlot.textContent = err.message;
    errorSlot.hidden = false;
  };

  document.addEventListener("memory-opened", (e) => {
    opened = e.detail;
    category.value = opened.category;
    workspace.value = opened.workspace ?? "";
    form.dataset.path = opened.path;
    errorSlot.hidden = true;
  });

  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (!opened) return;
    const body = { path: opened.path, category: category.value };
    const ws = String(workspace.value || "").trim();
    if (ws !== (opened.workspace ?? "")) body.workspace = ws === "" ? "global" : ws;
    try {
      await api("PUT", "/api/memory/file", body);
      toast(`Saved ${opened.path}.`);
      location.reload();
    } catch (err) {
      fail(err);
    }
  });

  document.getElementById("memory-delete")?.addEventListener("click", async () => {
    if (!opened) return;
    if (!confirm(`Delete ${opened.path}? The agent will no longer remember it.`)) return;
    try {
      await api("DELETE", `/api/memory/file?${new URLSearchParams({ path: opened.path })}`);
      toast(`Deleted ${opened.path}.`);
      location.reload();
    } catch (err) {
      fail(err);
    }
  });
}
