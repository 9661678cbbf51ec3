// The outpost's push service worker (an ES module worker, registered by push.js with
// type "module" at scope "/"). It binds the logic of push_worker_logic.js to the worker's
// globals: the push event, notification clicks, and the CSRF hand-off from the page
// ({type: "csrf", token}, posted on every load once the worker is ready), which is kept in
// the Cache API under a dedicated key because a worker has no cookie or DOM access.

import {
  CSRF_KEY,
  onNotificationClick,
  onPush,
  parsePushData,
  PENDING_NAV_KEY,
  PUSH_CACHE,
} from "./push_worker_logic.js";

const jsonResponse = (value) =>
  new Response(JSON.stringify(value), { headers: { "Content-Type": "application/json" } });

const env = {
  showNotification: (title, options) => self.registration.showNotification(title, options),
  getToken: async () => {
    const hit = await (await caches.open(PUSH_CACHE)).match(CSRF_KEY);
    return hit ? await hit.text() : null;
  },
  fetch: (url, init) => fetch(url, init),
  now: () => Date.now(),
  savePendingNav: async (entry) =>
    await (await caches.open(PUSH_CACHE)).put(PENDING_NAV_KEY, jsonResponse(entry)),
  postToPage: async (message) => {
    const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
    const page = windows.find((c) => new URL(c.url).origin === self.location.origin);
    if (!page) return false;
    try {
      await page.focus();
    } catch { /* focus needs a user gesture on some platforms; the message still goes */ }
    page.postMessage(message);
    return true;
  },
  openWindow: (path) => self.clients.openWindow(path),
};

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  const data = parsePushData(() => (event.data ? event.data.json() : {}));
  event.waitUntil(onPush(data, env));
});

self.addEventListener("notificationclick", (event) => {
  event.waitUntil(onNotificationClick(event.action, event.notification, env));
});

self.addEventListener("message", (event) => {
  // Only this origin's own pages may hand over the token.
  if (event.origin && event.origin !== self.location.origin) return;
  const d = event.data;
  if (!d || d.type !== "csrf" || typeof d.token !== "string" || d.token === "") return;
  const reply = event.ports && event.ports[0];
  event.waitUntil(
    caches.open(PUSH_CACHE)
      .then((cache) => cache.put(CSRF_KEY, new Response(d.token)))
      .then(() => reply && reply.postMessage({ type: "csrf-stored" })),
  );
});
