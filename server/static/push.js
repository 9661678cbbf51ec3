// The page side of browser push (spec 5.3, 6): registers the module service worker at /sw.js,
// hands it the CSRF token on every load once it is ready, follows its navigation messages
// (and a fresh pending-navigation entry it left), and drives the Subscribe / Unsubscribe
// control of the landing page's Notifications card with the browser's permission state.

import { api, csrf, toast } from "./dom.js";
import { navTarget, PENDING_NAV_KEY, pendingTarget, PUSH_CACHE } from "./push_worker_logic.js";

// ---------- navigation asked for by the worker ----------

function go(target) {
  const here = location.pathname + location.hash;
  if (target !== here) location.assign(target);
}

async function takePendingNav() {
  if (!("caches" in self)) return null;
  const cache = await caches.open(PUSH_CACHE);
  const hit = await cache.match(PENDING_NAV_KEY);
  if (!hit) return null;
  await cache.delete(PENDING_NAV_KEY);
  try {
    return pendingTarget(await hit.json(), Date.now());
  } catch {
    return null;
  }
}

function onWorkerMessage(event) {
  const d = event.data;
  if (!d || d.type !== "nav") return;
  // The entry was for this message; a later load must not navigate again.
  takePendingNav().catch(() => {});
  go(navTarget(d.kind, d.id, d.job, d.run));
}

// ---------- the Notifications card ----------

const STATES = {
  unsupported: "This browser cannot receive push notifications (no service worker or Push API).",
  insecure: "Push notifications need https (or http on localhost).",
  dormant: "Push is dormant: the outpost has no VAPID key (VAPID_PRIVATE_KEY_FILE).",
  error: "Push is misconfigured on the outpost; see the Push badge for why.",
  denied:
    "Notifications are blocked for this site. Allow them in the browser's site settings, then reload.",
  off: "This browser is not subscribed. Subscribe to get lock-screen notifications.",
  on: "This browser gets lock-screen notifications, with Approve and Dismiss on simple questions.",
  busy: "Working…",
};

function card() {
  return document.getElementById("push-controls");
}

function show(state, detail) {
  const box = card();
  if (!box) return;
  box.dataset.pushState = state;
  const line = box.querySelector("[data-push-line]");
  if (line) line.textContent = detail || STATES[state] || "";
  const sub = box.querySelector('[data-push="subscribe"]');
  const unsub = box.querySelector('[data-push="unsubscribe"]');
  if (sub) sub.hidden = state !== "off";
  if (unsub) unsub.hidden = state !== "on";
}

async function currentState(reg) {
  const server = (await api("GET", "/api/push/status")).state;
  if (server !== "ok") return server === "error" ? "error" : "dormant";
  if (!reg || !("pushManager" in reg) || !("Notification" in self)) return "unsupported";
  if (Notification.permission === "denied") return "denied";
  const sub = await reg.pushManager.getSubscription();
  return sub ? "on" : "off";
}

/** The VAPID public key (base64url) as the bytes pushManager.subscribe wants. */
function keyBytes(b64url) {
  const b64 = b64url.replace(/-/g, "+").replace(/_/g, "/");
  const raw = atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

async function subscribe(reg) {
  show("busy");
  const permission = await Notification.requestPermission();
  if (permission !== "granted") {
    show(permission === "denied" ? "denied" : "off");
    return;
  }
  const status = await api("GET", "/api/push/status");
  if (status.state !== "ok") {
    show(status.state === "error" ? "error" : "dormant");
    return;
  }
  const sub = await reg.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: keyBytes(status.public_key),
  });
  try {
    await api("POST", "/api/push/subscribe", sub.toJSON());
  } catch (err) {
    // The outpost refused the endpoint: keep the browser and the outpost in agreement.
    await sub.unsubscribe().catch(() => {});
    throw err;
  }
  toast("Subscribed: this browser gets push notifications.");
}

async function unsubscribe(reg) {
  show("busy");
  const sub = await reg.pushManager.getSubscription();
  if (sub) {
    await api("POST", "/api/push/unsubscribe", { endpoint: sub.endpoint });
    await sub.unsubscribe();
  }
  toast("Unsubscribed.");
}

function wireButtons(reg) {
  const box = card();
  if (!box) return;
  for (const [name, fn] of [["subscribe", subscribe], ["unsubscribe", unsubscribe]]) {
    const button = box.querySelector(`[data-push="${name}"]`);
    if (!button) continue;
    button.addEventListener("click", async () => {
      button.disabled = true;
      try {
        await fn(reg);
      } catch (err) {
        toast(err.message || String(err), "error");
      } finally {
        button.disabled = false;
        show(await currentState(reg).catch(() => "error"));
      }
    });
  }
}

// ---------- start ----------

export async function startPush() {
  if (!globalThis.isSecureContext) return show("insecure");
  if (!("serviceWorker" in navigator)) return show("unsupported");
  navigator.serviceWorker.addEventListener("message", onWorkerMessage);
  await navigator.serviceWorker.register("/sw.js", { type: "module", scope: "/" });
  const reg = await navigator.serviceWorker.ready;
  // Every load: the worker needs the token for one-tap actions (it has no cookie access).
  // It answers on the channel once the token is stored; the body attribute says so.
  if (csrf && reg.active) {
    const channel = new MessageChannel();
    channel.port1.onmessage = (e) => {
      if (e.data && e.data.type === "csrf-stored") document.body.dataset.pushWorker = "ready";
    };
    reg.active.postMessage({ type: "csrf", token: csrf }, [channel.port2]);
  }
  const pending = await takePendingNav().catch(() => null);
  if (pending) go(pending);
  if (!card()) return;
  wireButtons(reg);
  show(await currentState(reg));
}
