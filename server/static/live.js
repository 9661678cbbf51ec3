// Live regions: each [data-live] element names a /partials/ route; when /api/events says
// something changed (or, without the stream, every few seconds) the region is re-fetched
// and replaced, unless the operator is typing in it (then it waits for focus to leave).

import { localizeTimes } from "./dom.js";

const POLL_MS = 5000;
const COALESCE_MS = 120;

// ---------- live regions ----------

const pending = new Set();
const timers = new Map();

// Typing targets only: a focused checkbox or button must not hold a refresh back.
const TEXT_INPUT = /^(text|search|number|email|url|tel|password|datetime-local|)$/;

function isEditing(node) {
  if (!node) return false;
  if (node.tagName === "TEXTAREA" || node.tagName === "SELECT") return true;
  return node.tagName === "INPUT" && TEXT_INPUT.test(node.type);
}

function isBusy(region) {
  const a = document.activeElement;
  if (a && region.contains(a) && isEditing(a)) return true;
  return region.querySelector("[data-dirty]") !== null;
}

async function refreshRegion(region) {
  const src = region.dataset.src;
  if (!src || !src.startsWith("/partials/")) return;
  if (isBusy(region)) {
    pending.add(region);
    return;
  }
  let res;
  try {
    res = await fetch(src, { credentials: "same-origin", headers: { "Accept": "text/html" } });
  } catch {
    return;
  }
  if (!res.ok && res.status !== 404) return;
  const html = await res.text();
  if (isBusy(region)) {
    pending.add(region);
    return;
  }
  region.innerHTML = html;
  localizeTimes(region);
  region.dispatchEvent(new CustomEvent("outpost:refreshed", { bubbles: true }));
}

/** Refreshes the named live regions, coalescing bursts of events. */
export function refresh(...names) {
  for (const name of names) {
    for (const region of document.querySelectorAll(`[data-live="${name}"]`)) {
      clearTimeout(timers.get(region));
      timers.set(region, setTimeout(() => refreshRegion(region), COALESCE_MS));
    }
  }
}

document.addEventListener("focusout", () => {
  setTimeout(() => {
    for (const region of [...pending]) {
      if (!isBusy(region)) {
        pending.delete(region);
        refreshRegion(region);
      }
    }
  }, 0);
});

function onLive(event) {
  switch (event.type) {
    case "run":
      refresh("jobs", "runs", "governor", "run", "summary", "history");
      break;
    case "inbox":
      refresh("inbox", "status", "inbox-item", "run", "summary");
      break;
    case "job":
      refresh("jobs", "runs");
      break;
    case "governor":
      refresh("governor");
      break;
  }
}

let pollTimer = 0;
function startPolling() {
  if (pollTimer) return;
  pollTimer = setInterval(
    () => refresh("jobs", "runs", "inbox", "status", "governor", "run", "inbox-item", "summary"),
    POLL_MS,
  );
}

/**
 * A running run's tokens so far and current tool change without an event (they come from its
 * log), so a run table with a running row is re-read every POLL_MS until none is left.
 */
function followRunningRows() {
  setInterval(() => {
    const running = document.querySelector('[data-live="history"] tr[data-status="running"]');
    if (running) refresh("history");
  }, POLL_MS);
}

export function connectLive() {
  followRunningRows();
  if (!("EventSource" in window)) return startPolling();
  const es = new EventSource("/api/events");
  for (const type of ["run", "inbox", "job", "governor"]) {
    es.addEventListener(type, (e) => {
      try {
        onLive(JSON.parse(e.data));
      } catch { /* malformed event: ignore */ }
    });
  }
  es.addEventListener("hello", () => {
    // Catch up once per (re)connect: a change made after the page was rendered, or while the
    // stream was down, sent its event to no one, and nothing else would show it.
    refresh("jobs", "runs", "inbox", "status", "governor", "run", "inbox-item", "summary");
    refresh("history");
    document.body.dataset.live = "sse";
  });
  es.addEventListener("error", () => {
    if (es.readyState === EventSource.CLOSED) {
      document.body.dataset.live = "poll";
      startPolling();
    }
  });
}
