// Browser end-to-end: the landing page's Notifications card in real Chromium against a real
// outpost, state by state. Dormant (no VAPID key): no button. Subscribe posts the browser's
// subscription to /api/push/subscribe and the card reads subscribed; Unsubscribe posts
// /api/push/unsubscribe and the card reads not subscribed; an endpoint the outpost refuses is
// unsubscribed in the browser again. Headless Chromium cannot reach a real push service
// offline, so PushManager's subscribe and getSubscription are replaced in the page by a
// stand-in subscription (an init script); the notification permission is Chromium's own.
// Not covered yet: the denied state. DevTools' Browser.setPermission "denied" reads back as
// "prompt" on the dashboard page in this Chromium, although it works on a bare test page.

// deno-lint-ignore-file no-explicit-any -- page code sees DOM types Deno lacks
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { vapidKeyPair } from "../../core/push/vapid.ts";
import { peerTest, probes } from "../peers.ts";
import { openDashboard, TEST_VAPID_KEY } from "./dashboard_browser_kit.ts";

// RFC 8291 appendix A's application server key: the lane is "ok" with it.
const KEYS = { p256dh: "B" + "A".repeat(86), auth: "A".repeat(22) };

/**
 * Replaces PushManager's subscribe / getSubscription with a stand-in kept on `window.__push`:
 * the next endpoint to hand out, the current subscription, the key the page asked with, and
 * how many times the browser side was unsubscribed.
 */
function stubPushManager(keys: typeof KEYS) {
  const w = window as any;
  w.__push = { next: "", current: null, askedKey: null, unsubscribed: 0 };
  const proto = (w.PushManager as any).prototype;
  proto.subscribe = (options: any) => {
    const state = w.__push;
    state.askedKey = Array.from(new Uint8Array(options.applicationServerKey));
    const endpoint = state.next;
    const sub = {
      endpoint,
      toJSON: () => ({ endpoint, expirationTime: null, keys }),
      unsubscribe: () => {
        state.unsubscribed++;
        if (state.current === sub) state.current = null;
        return Promise.resolve(true);
      },
    };
    state.current = sub;
    return Promise.resolve(sub);
  };
  proto.getSubscription = () => Promise.resolve(w.__push.current);
}

async function cardState(page: Page, state: string) {
  await page.locator(`#push-controls[data-push-state="${state}"]`).waitFor();
  return {
    line: (await page.locator("[data-push-line]").textContent())?.trim(),
    subscribe: await page.locator('[data-push="subscribe"]').isVisible(),
    unsubscribe: await page.locator('[data-push="unsubscribe"]').isVisible(),
  };
}

peerTest(
  "push card: dormant without a key; Subscribe and Unsubscribe flip the state and the store",
  probes.chromium,
  async (t) => {
    await t.step("dormant: the lane has no VAPID key, so no button is offered", async () => {
      await using d = await openDashboard();
      await d.context.grantPermissions(["notifications"], { origin: d.base });
      await d.page.goto("/");
      assert.deepEqual(await cardState(d.page, "dormant"), {
        line: "Push is dormant: the outpost has no VAPID key (VAPID_PRIVATE_KEY_FILE).",
        subscribe: false,
        unsubscribe: false,
      });
      assert.deepEqual(d.pageErrors, []);
    });

    await using d = await openDashboard({ push: true });
    const { page } = d;
    await d.context.addInitScript(stubPushManager, KEYS);
    await d.context.grantPermissions(["notifications"], { origin: d.base });
    await page.goto("/");
    const push = () => page.evaluate(() => (window as any).__push);

    await t.step("Subscribe posts the subscription; the card reads subscribed", async () => {
      assert.deepEqual(await cardState(page, "off"), {
        line: "This browser is not subscribed. Subscribe to get lock-screen notifications.",
        subscribe: true,
        unsubscribe: false,
      });
      await page.evaluate(() => (window as any).__push.next = "http://127.0.0.1:9/push/1");
      await page.locator('[data-push="subscribe"]').click();
      assert.deepEqual(await cardState(page, "on"), {
        line:
          "This browser gets lock-screen notifications, with Approve and Dismiss on simple questions.",
        subscribe: false,
        unsubscribe: true,
      });
      const stored = d.deps.store.listPushSubscriptions();
      assert.deepEqual(stored.map((s) => [s.endpoint, s.keys]), [[
        "http://127.0.0.1:9/push/1",
        KEYS,
      ]]);
      // The page subscribed with the outpost's VAPID public key.
      const expected = Array.from(
        Uint8Array.from(
          atob(
            vapidKeyPair(TEST_VAPID_KEY).publicKey.replace(/-/g, "+").replace(/_/g, "/") + "=",
          ),
          (c) => c.charCodeAt(0),
        ),
      );
      assert.deepEqual((await push()).askedKey, expected);
      await d.screenshot("push_card_on");
    });

    await t.step("Unsubscribe removes it from the outpost and the browser", async () => {
      await page.locator('[data-push="unsubscribe"]').click();
      assert.deepEqual(await cardState(page, "off"), {
        line: "This browser is not subscribed. Subscribe to get lock-screen notifications.",
        subscribe: true,
        unsubscribe: false,
      });
      assert.deepEqual(d.deps.store.listPushSubscriptions(), []);
      const state = await push();
      assert.equal(state.unsubscribed, 1);
      assert.equal(state.current, null);
    });

    await t.step(
      "an endpoint the outpost refuses is unsubscribed in the browser again",
      async () => {
        await page.evaluate(() => (window as any).__push.next = "file:///etc/passwd");
        await page.locator('[data-push="subscribe"]').click();
        await page.locator("#toast.toast-error", { hasText: /endpoint/ }).waitFor();
        assert.equal((await cardState(page, "off")).subscribe, true);
        assert.deepEqual(d.deps.store.listPushSubscriptions(), []);
        const state = await push();
        assert.equal(state.unsubscribed, 2, "the refused subscription was dropped");
        assert.equal(state.current, null);
      },
    );

    // The refused subscribe reported a 400 on the console; nothing else went wrong.
    assert.deepEqual(d.pageErrors.filter((e) => !/400|endpoint/.test(e)), []);
  },
);
