// Shared helpers of the page script: the JSON API client (CSRF token from
// <meta name="csrf-token"> in X-CSRF-Token), element building with textContent only,
// the toast, and local-time tooltips.

export const csrf = document.querySelector('meta[name="csrf-token"]')?.getAttribute("content") ??
  "";

// ---------- API ----------

export class ApiFailure extends Error {
  constructor(status, body) {
    const e = body && body.error ? body.error : {};
    super(e.message || `request failed with status ${status}`);
    this.name = "ApiFailure";
    this.status = status;
    this.code = e.code || "";
    this.field = e.field || "";
  }
}

export async function api(method, path, body) {
  const headers = { "Accept": "application/json", "X-CSRF-Token": csrf };
  const init = { method, headers, credentials: "same-origin" };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiFailure(0, {
      error: { message: "the dashboard is unreachable; check the connection" },
    });
  }
  let data = null;
  try {
    data = await res.json();
  } catch { /* no JSON body */ }
  if (!res.ok) throw new ApiFailure(res.status, data);
  return data;
}

// ---------- small DOM helpers ----------

export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "text") node.textContent = String(v);
    else node.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(c);
  return node;
}

let toastTimer = 0;
export function toast(message, kind, link) {
  const box = document.getElementById("toast");
  if (!box) return;
  box.replaceChildren(el("span", { text: message }));
  if (link) box.append(" ", el("a", { href: link.href, text: link.text }));
  box.className = `toast toast-${kind || "ok"}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (box.hidden = true), kind === "error" ? 9000 : 5000);
}

export const positive = (v) => /^[1-9][0-9]{0,14}$/.test(String(v ?? ""));
export const runLink = (run) =>
  run && positive(run.id) && positive(run.job_id)
    ? { href: `/runs/${run.job_id}/${run.id}`, text: `Open run ${run.id}` }
    : null;

// Shows local times as tooltips; the server renders UTC.
export function localizeTimes(root) {
  for (const t of root.querySelectorAll("time[datetime]")) {
    const d = new Date(t.getAttribute("datetime"));
    if (!Number.isNaN(d.getTime())) t.title = d.toLocaleString();
  }
}
