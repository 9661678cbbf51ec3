// The push service worker's logic (spec 5.3, 6), as plain functions over injected effects so
// Deno tests can run every path; sw.js binds them to the worker's globals and the landing
// page script reuses the target builder. Rules:
// - tap targets are built only from integers validated here (parseInt plus a NaN guard);
//   anything else degrades to "/". No URL ever comes from the push payload.
// - a button tap posts /api/inbox/<id>/push-action with the CSRF token the page handed over
//   (kept under a dedicated cache key) and same-origin credentials; a 2xx replaces the
//   notification under the same tag with body "approved" or "dismissed" and no actions;
//   any failure (no token, network error, non-2xx or a redirect) opens the deep link
//   instead, with no retry.
// - a plain tap posts {type: "nav", kind, id, job, run} to an open dashboard page (or
//   opens one) and leaves a pending-navigation entry {kind, id, job, run, ts} in the cache.

export const PUSH_CACHE = "outpost-push-v1";
export const CSRF_KEY = "/__outpost/push/csrf";
export const PENDING_NAV_KEY = "/__outpost/push/pending-nav";
/** A pending navigation older than this is stale and ignored by the page. */
export const PENDING_NAV_MAX_AGE_MS = 60_000;

const TITLE_MAX = 200;
const BODY_MAX = 120;

/** A positive integer from an untrusted value (parseInt plus NaN guard), or null. */
export function validInt(value) {
  const n = parseInt(String(value), 10);
  if (Number.isNaN(n) || n < 1 || !Number.isSafeInteger(n)) return null;
  return n;
}

/** The same-origin path a tap opens, from the kind and validated integers only. */
export function navTarget(kind, id, job, run) {
  if (kind === "inbox") {
    const i = validInt(id);
    return i === null ? "/" : `/inbox/${i}`;
  }
  if (kind === "run_report") {
    const j = validInt(job);
    const r = validInt(run);
    return j === null || r === null ? "/" : `/runs/${j}/${r}`;
  }
  if (kind === "alert") return "/#card-jobs";
  return "/";
}

/** The notification tag of an envelope (one notification per item, per run, for alerts). */
export function tagFor(data) {
  const d = data && typeof data === "object" ? data : {};
  if (d.type === "inbox") {
    const i = validInt(d.id);
    return i === null ? "outpost" : `inbox-${i}`;
  }
  if (d.type === "run_report") {
    const j = validInt(d.job);
    const r = validInt(d.run);
    return j === null || r === null ? "outpost" : `run-${j}-${r}`;
  }
  if (d.type === "alert") return "alert";
  return "outpost";
}

function text(value, max, fallback) {
  const s = typeof value === "string" && value.trim() !== "" ? value : fallback;
  return Array.from(s).slice(0, max).join("");
}

/** What the worker keeps on a notification: the kind and validated integers (or null). */
export function navData(data) {
  const d = data && typeof data === "object" ? data : {};
  const kind = d.type === "inbox" || d.type === "run_report" || d.type === "alert" ? d.type : "";
  return { kind, id: validInt(d.id), job: validInt(d.job), run: validInt(d.run) };
}

/** showNotification's arguments for a push envelope (unknown fields ignored). */
export function notificationFor(data) {
  const d = data && typeof data === "object" ? data : {};
  const nav = navData(d);
  const options = {
    body: text(d.body, BODY_MAX, ""),
    tag: tagFor(d),
    data: nav,
  };
  // Buttons only for an inbox item with a valid id and the envelope's exact two actions.
  if (nav.kind === "inbox" && nav.id !== null && Array.isArray(d.actions)) {
    const actions = d.actions
      .filter((a) => a && (a.action === "approve" || a.action === "dismiss"))
      .map((a) => ({ action: a.action, title: a.action === "approve" ? "Approve" : "Dismiss" }));
    if (actions.length > 0) options.actions = actions;
  }
  return { title: text(d.title, TITLE_MAX, "outpost"), options };
}

/** Parses a push message's data; a body that is not a JSON object becomes {}. */
export function parsePushData(readJson) {
  try {
    const d = readJson();
    return d && typeof d === "object" && !Array.isArray(d) ? d : {};
  } catch {
    return {};
  }
}

/** The push event: show the notification. */
export async function onPush(data, env) {
  const n = notificationFor(data);
  await env.showNotification(n.title, n.options);
  return n;
}

/**
 * Posts the one-tap action. True only on a 2xx; false when there is no token, the id is not
 * a valid integer, the request fails, or the answer is anything else (403 CSRF, 409 closed,
 * a redirect to a login page).
 */
export async function postPushAction(id, action, env) {
  const itemId = validInt(id);
  if (itemId === null || (action !== "approve" && action !== "dismiss")) return false;
  let token = null;
  try {
    token = await env.getToken();
  } catch {
    token = null;
  }
  if (typeof token !== "string" || token === "") return false;
  try {
    const res = await env.fetch(`/api/inbox/${itemId}/push-action`, {
      method: "POST",
      credentials: "same-origin",
      redirect: "manual",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
      body: JSON.stringify({ action }),
    });
    return res.status >= 200 && res.status < 300;
  } catch {
    return false;
  }
}

/** Tells an open dashboard page to navigate (or opens one), leaving a pending entry. */
export async function openDeepLink(nav, env) {
  const target = navTarget(nav.kind, nav.id, nav.job, nav.run);
  const message = { type: "nav", kind: nav.kind, id: nav.id, job: nav.job, run: nav.run };
  try {
    await env.savePendingNav({ ...message, ts: env.now() });
  } catch {
    /* the pending entry is a convenience; the navigation below still happens */
  }
  const posted = await env.postToPage(message);
  if (!posted) await env.openWindow(target);
  return { target, posted };
}

/**
 * The notificationclick event. `notification` is {data, tag, title, close()}. Returns what
 * happened: "applied" (button, 2xx), "fallback" (button failed, deep link opened) or
 * "opened" (plain tap).
 */
export async function onNotificationClick(action, notification, env) {
  const nav = navData({
    type: notification.data?.kind,
    id: notification.data?.id,
    job: notification.data?.job,
    run: notification.data?.run,
  });
  const isButton = action === "approve" || action === "dismiss";
  if (isButton && nav.kind === "inbox") {
    if (await postPushAction(nav.id, action, env)) {
      await env.showNotification(notification.title || "outpost", {
        body: action === "approve" ? "approved" : "dismissed",
        tag: notification.tag || tagFor({ type: "inbox", id: nav.id }),
        data: nav,
      });
      return "applied";
    }
    notification.close();
    await openDeepLink(nav, env);
    return "fallback";
  }
  notification.close();
  await openDeepLink(nav, env);
  return "opened";
}

/** The page's pending-navigation check: the target of a fresh entry, else null. */
export function pendingTarget(entry, now) {
  if (!entry || typeof entry !== "object") return null;
  const ts = Number(entry.ts);
  if (!Number.isFinite(ts) || now - ts > PENDING_NAV_MAX_AGE_MS || ts > now + 5_000) return null;
  return navTarget(entry.kind, entry.id, entry.job, entry.run);
}
