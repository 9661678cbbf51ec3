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

const pad = (n) => String(n).padStart(2, "0");

/** "2026-03-02 04:00 EST" in the viewer's zone (with seconds when `seconds`). */
export function localTime(d, seconds) {
  const zone = new Intl.DateTimeFormat(undefined, { timeZoneName: "short" })
    .formatToParts(d).find((p) => p.type === "timeZoneName")?.value ?? "";
  const hms = `${pad(d.getHours())}:${pad(d.getMinutes())}${
    seconds ? `:${pad(d.getSeconds())}` : ""
  }`;
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${hms} ${zone}`.trim();
}

/**
 * The server renders times in UTC ("2026-03-02 09:00 UTC") or relative ("3 min ago"). An
 * absolute one is shown in the viewer's local time with the UTC text on hover; a relative one
 * keeps its text and gets both on hover. Done once per element.
 */
export function localizeTimes(root) {
  for (const t of root.querySelectorAll("time[datetime]")) {
    if (t.dataset.local) continue;
    const d = new Date(t.getAttribute("datetime"));
    if (Number.isNaN(d.getTime())) continue;
    const text = t.textContent.trim();
    const seconds = /\d\d:\d\d:\d\d/.test(text);
    const utc = `${d.toISOString().slice(0, seconds ? 19 : 16).replace("T", " ")} UTC`;
    if (/UTC$/.test(text)) {
      t.textContent = localTime(d, seconds);
      t.title = utc;
    } else {
      t.title = `${localTime(d, seconds)} · ${utc}`;
    }
    t.dataset.local = "1";
  }
}

/** A duration as the server writes it (format.ts msText): "12 s", "1 min 5 s", "2 h 3 min". */
function elapsedText(ms) {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 ? `${m} min ${s % 60} s` : `${m} min`;
  const h = Math.floor(m / 60);
  return m % 60 ? `${h} h ${m % 60} min` : `${h} h`;
}

/** Ticks every running run's elapsed time (data-elapsed-from) once a second. */
export function tickElapsed() {
  setInterval(() => {
    for (const el of document.querySelectorAll("[data-elapsed-from]")) {
      const from = Date.parse(el.dataset.elapsedFrom);
      if (!Number.isNaN(from)) el.textContent = elapsedText(Math.max(0, Date.now() - from));
    }
  }, 1000);
}
