// Browser end-to-end: the push service worker in real Chromium against a real outpost. The
// worker registers at /sw.js, receives the CSRF token from the page and keeps it under its
// cache key; a push message (delivered through the DevTools protocol, since Chromium
// cannot reach a real push service offline) shows the notification the envelope describes;
// a tap on Approve (a notificationclick dispatched inside the worker, whose handler is the
// production one) posts push-action with the token and replaces the notification; a tap
// whose push-action fails falls back to the deep link, which the open page follows.

// deno-lint-ignore-file no-explicit-any -- page and worker code sees DOM types Deno lacks
import assert from "node:assert/strict";
import type { Worker } from "playwright-core";
import { pushEnvelope } from "../../core/push/envelope.ts";
import { peerTest, probes } from "../peers.ts";
import { type Dashboard, openDashboard } from "./dashboard_browser_kit.ts";

// RFC 8291 appendix A's application server key: the lane is "ok" with it.

async function halted(d: Dashboard, jobId: number) {
  const run = d.deps.scheduler.trigger(jobId);
  assert.equal(await d.runReaches(run.id, ["needs_human", "ok", "error"]), "needs_human");
  const item = d.deps.store.listInbox({ state: "open" }).find((i) => i.run_id === run.id);
  assert.ok(item, "the halted run opened an inbox item");
  return item;
}

function inboxEnvelope(id: number, jobId: number, runId: number) {
  return pushEnvelope({
    kind: "inbox_item",
    item_id: id,
    job_id: jobId,
    run_id: runId,
    risk: "medium",
    title: "branch picker needs you",
    body: "Which branch?",
    priority: "high",
    at: "2026-03-02T09:00:00Z",
  });
}

interface ShownNotification {
  title: string;
  body: string;
  tag: string;
  actions: string[];
  data: unknown;
}

/** Notifications the worker is showing under `tag` (asked in the worker, which owns them). */
async function shown(worker: Worker, tag: string): Promise<ShownNotification[]> {
  return await worker.evaluate(async (t) => {
    const list = await (self as any).registration.getNotifications({ tag: t });
    return list.map((n: any) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      actions: (n.actions ?? []).map((a: { action: string }) => a.action),
      data: n.data,
    }));
  }, tag);
}

/**
 * Waits (in the worker, like waitForFunction) until a notification under `tag` has `body`,
 * for at most `ms`; false when it did not appear, with `throwWhy` an error saying why.
 */
async function notificationShown(
  worker: Worker,
  tag: string,
  body: string,
  ms = 30_000,
  throwWhy = true,
): Promise<boolean> {
  return await worker.evaluate(async ([t, b, limit, loud]) => {
    const until = Date.now() + limit; // a bound, so a missing notification fails, not hangs
    while (Date.now() < until) {
      const list = await (self as any).registration.getNotifications({ tag: t });
      if (list.some((n: any) => n.body === b)) return true;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    if (!loud) return false;
    // Say what happened: which shows the worker's handler made (and how they ended), and
    // what Chromium lists now. A show that resolved yet is not listed is Chromium dropping
    // it (seen under load in headless Chromium), not the worker failing to show it.
    const all = await (self as any).registration.getNotifications();
    throw new Error(
      `no notification under ${t} with body ${b} within ${limit} ms; shows: ${
        JSON.stringify((self as any).__shows ?? "not recorded")
      }; listed: ${JSON.stringify(all.map((n: any) => [n.tag, n.body]))}`,
    );
  }, [tag, body, ms, throwWhy] as const);
}

/**
 * Delivers a push through the browser until its notification is listed. Under load headless
 * Chromium sometimes drops a notification whose showNotification resolved (about 1 run in
 * 20): the worker did its part, so the push is delivered again (same tag: it replaces), at
 * most three times, and every show the worker made must have resolved.
 */
async function pushUntilShown(
  worker: Worker,
  deliver: () => Promise<unknown>,
  tag: string,
  body: string,
): Promise<void> {
  for (let attempt = 1; attempt <= 3; attempt++) {
    await deliver();
    if (await notificationShown(worker, tag, body, 10_000, attempt === 3)) break;
  }
  const shows = await worker.evaluate(() => (self as any).__shows as unknown[][]);
  for (const show of shows) assert.equal(show[2], "resolved", JSON.stringify(shows));
}

/**
 * Records each showNotification the worker's handlers make, and whether it resolved, for
 * notificationShown's failure message (the production call still does the work).
 */
async function recordShows(worker: Worker): Promise<void> {
  await worker.evaluate(() => {
    const sw = self as any;
    const shows: unknown[][] = (sw.__shows = []);
    const reg = sw.registration;
    const show = reg.showNotification.bind(reg);
    reg.showNotification = (title: string, options: any) => {
      const entry: unknown[] = [options?.tag, options?.body, "pending"];
      shows.push(entry);
      return show(title, options).then(
        (v: unknown) => (entry[2] = "resolved", v),
        (err: unknown) => {
          entry[2] = `rejected: ${err}`;
          throw err;
        },
      );
    };
  });
}

/** Dispatches notificationclick inside the worker on its notification under `tag`. */
async function tap(worker: Worker, tag: string, action: string): Promise<void> {
  await worker.evaluate(async ([t, a]) => {
    const sw = self as any;
    const [notification] = await sw.registration.getNotifications({ tag: t });
    if (!notification) throw new Error(`no notification under ${t}`);
    const NotificationEvent = (globalThis as any).NotificationEvent;
    sw.dispatchEvent(new NotificationEvent("notificationclick", { notification, action: a }));
  }, [tag, action] as const);
}

peerTest(
  "push: the worker registers, takes the CSRF hand-off, shows the envelope, and Approve posts push-action with the token",
  probes.chromium,
  async () => {
    await using d = await openDashboard({ push: true });
    const { page } = d;
    await d.context.grantPermissions(["notifications"], { origin: d.base });
    const job = d.createJob({ name: "branch picker", prompt: "exit:2" });
    const item = await halted(d, job.id);

    const workerSeen = d.context.waitForEvent("serviceworker");
    await page.goto("/");
    // The worker acknowledged storing the token (a signal, not a timer).
    await page.locator('body[data-push-worker="ready"]').waitFor({ state: "attached" });
    const worker = d.context.serviceWorkers()[0] ?? await workerSeen;
    assert.match(worker.url(), /\/sw\.js$/);
    await recordShows(worker);
    const reg = await page.evaluate(async () => {
      const r = await (navigator as any).serviceWorker.getRegistration("/");
      return { scope: r?.scope, script: r?.active?.scriptURL };
    });
    assert.equal(reg.scope, `${d.base}/`);
    assert.equal(reg.script, `${d.base}/sw.js`);
    const cached = await page.evaluate(async () => {
      const hit = await (await caches.open("outpost-push-v1")).match("/__outpost/push/csrf");
      return hit ? await hit.text() : null;
    });
    assert.equal(cached, d.deps.csrf.token());
    // The lane is ok, permission granted, nothing subscribed: the card offers Subscribe.
    await page.locator('#push-controls[data-push-state="off"]').waitFor();
    assert.equal(await page.locator('[data-push="subscribe"]').isVisible(), true);
    assert.equal(await page.locator('[data-push="unsubscribe"]').isVisible(), false);
    await d.screenshot("push_card_off");

    // A real push event, delivered by the browser itself.
    const cdp = await d.context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) => {
      cdp.on("ServiceWorker.workerRegistrationUpdated", (e) => {
        const r = e.registrations.find((x) => x.scopeURL === `${d.base}/` && !x.isDeleted);
        if (r) resolve(r.registrationId);
      });
    });
    await cdp.send("ServiceWorker.enable");
    const regId = await registrationId;
    /** Delivers an inbox item's push through the browser until its notification shows. */
    const pushInbox = (it: typeof item) =>
      pushUntilShown(
        worker,
        () =>
          cdp.send("ServiceWorker.deliverPushMessage", {
            origin: d.base,
            registrationId: regId,
            data: JSON.stringify(inboxEnvelope(it.id, it.job_id, it.run_id)),
          }),
        `inbox-${it.id}`,
        "Which branch?",
      );
    const tag = `inbox-${item.id}`;
    await pushInbox(item);
    assert.deepEqual(await shown(worker, tag), [{
      title: "branch picker needs you",
      body: "Which branch?",
      tag,
      actions: ["approve", "dismiss"],
      data: { kind: "inbox", id: item.id, job: null, run: null },
    }]);

    // Approve: push-action with the handed-over token; the notification is replaced.
    await tap(worker, tag, "approve");
    await notificationShown(worker, tag, "approved");
    const after = await shown(worker, tag);
    assert.equal(after.length, 1);
    assert.deepEqual(after[0]!.actions, [], "the replacement has no buttons");
    const answered = d.deps.store.getInboxItem(item.id)!;
    assert.equal(answered.state, "answered");
    assert.equal(answered.answer, "approved");
    assert.equal(answered.answered_via, "push-action");
    assert.equal(d.deps.store.listAudit({ action: "push_approve" }).length, 1);
    assert.equal(page.url(), `${d.base}/`, "a successful tap navigates nowhere");

    // A second item, closed before the tap: push-action answers 409, so the worker falls
    // back to the deep link, and the open page follows its nav message.
    const other = d.createJob({ name: "second picker", prompt: "exit:2" });
    const second = await halted(d, other.id);
    d.deps.inbox.dismiss(second.id, { actor: "test", via: "dashboard", channel: "dashboard" });
    const tag2 = `inbox-${second.id}`;
    await pushInbox(second);
    await tap(worker, tag2, "approve");
    await page.waitForURL(`**/inbox/${second.id}`);
    assert.equal(d.deps.store.listAudit({ action: "push_approve" }).length, 1, "not applied");
    assert.equal(d.deps.store.getInboxItem(second.id)!.state, "dismissed");
    // The pending-navigation entry was consumed by the page that followed it.
    await page.locator('body[data-push-worker="ready"]').waitFor({ state: "attached" });
    const pending = await page.evaluate(async () =>
      !!(await (await caches.open("outpost-push-v1")).match("/__outpost/push/pending-nav"))
    );
    assert.equal(pending, false);
    await cdp.detach();
    assert.deepEqual(d.pageErrors, []);
  },
);
