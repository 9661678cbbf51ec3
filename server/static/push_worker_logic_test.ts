// The service worker's logic (push_worker_logic.js) with every effect injected: integer
// guards, tags, the button paths (2xx replaces the notification under its tag; no token,
// network error or non-2xx fall back to the deep link with no retry) and the plain tap.

import assert from "node:assert/strict";
import {
  navTarget,
  notificationFor,
  onNotificationClick,
  onPush,
  parsePushData,
  pendingTarget,
  postPushAction,
  tagFor,
  validInt,
} from "./push_worker_logic.js";

Deno.test("validInt: parseInt with a NaN guard; zero, negatives and unsafe integers refused", () => {
  assert.equal(validInt(12), 12);
  assert.equal(validInt("12"), 12);
  for (const bad of [undefined, null, "", "abc", NaN, 0, -3, "-3", 2 ** 60, {}, "javascript:1"]) {
    assert.equal(validInt(bad), null, String(bad));
  }
});

Deno.test("tap targets come from validated integers only and degrade to /", () => {
  assert.equal(navTarget("inbox", 12), "/inbox/12");
  assert.equal(navTarget("inbox", "12/../../evil"), "/inbox/12");
  assert.equal(navTarget("inbox", "//evil.example"), "/");
  assert.equal(navTarget("inbox", undefined), "/");
  assert.equal(navTarget("run_report", undefined, 4, 9), "/runs/4/9");
  assert.equal(navTarget("run_report", undefined, "x", 9), "/");
  assert.equal(navTarget("run_report", undefined, 4, NaN), "/");
  assert.equal(navTarget("run_report", undefined, 4), "/");
  assert.equal(navTarget("alert"), "/#card-jobs");
  assert.equal(navTarget("https://evil.example"), "/");
  assert.equal(navTarget(undefined), "/");
});

Deno.test("notifications: tag per kind, buttons only for a valid inbox id, text capped, URLs ignored", () => {
  const inbox = notificationFor({
    type: "inbox",
    id: 12,
    title: "triage needs you",
    body: "Which branch?",
    url: "https://evil.example",
    actions: [{ action: "approve", title: "Approve" }, { action: "dismiss", title: "Dismiss" }, {
      action: "open-evil",
      title: "x",
    }],
  });
  assert.deepEqual(inbox, {
    title: "triage needs you",
    options: {
      body: "Which branch?",
      tag: "inbox-12",
      data: { kind: "inbox", id: 12, job: null, run: null },
      actions: [{ action: "approve", title: "Approve" }, { action: "dismiss", title: "Dismiss" }],
    },
  });
  assert.equal("actions" in notificationFor({ type: "inbox", id: 12, title: "t" }).options, false);
  assert.equal(
    "actions" in notificationFor({ type: "inbox", id: "x", actions: [{ action: "approve" }] })
      .options,
    false,
  );
  const report = notificationFor({ type: "run_report", job: 4, run: 9, title: "t", body: "b" });
  assert.equal(report.options.tag, "run-4-9");
  assert.deepEqual(report.options.data, { kind: "run_report", id: null, job: 4, run: 9 });
  assert.equal(tagFor({ type: "alert" }), "alert");
  assert.equal(tagFor({ type: "run_report", job: 4 }), "outpost");
  assert.equal(tagFor(null), "outpost");
  const long = notificationFor({ type: "alert", title: "t".repeat(300), body: "😀".repeat(300) });
  assert.equal(Array.from(long.title).length, 200);
  assert.equal(Array.from(long.options.body).length, 120);
  assert.equal(notificationFor({}).title, "outpost");
  assert.deepEqual(parsePushData(() => JSON.parse("not json")), {});
  assert.deepEqual(parsePushData(() => [1, 2]), {});
});

interface Recorded {
  shown: { title: string; options: Record<string, unknown> }[];
  fetched: { url: string; init: RequestInit }[];
  opened: string[];
  posted: unknown[];
  pending: unknown[];
  closed: number;
}

function fakeEnv(opts: {
  token?: string | null;
  answer?: number | "network";
  pageOpen?: boolean;
} = {}) {
  const rec: Recorded = { shown: [], fetched: [], opened: [], posted: [], pending: [], closed: 0 };
  const env = {
    showNotification: (title: string, options: Record<string, unknown>) => {
      rec.shown.push({ title, options });
      return Promise.resolve();
    },
    getToken: () => Promise.resolve(opts.token === undefined ? "tok-123" : opts.token),
    fetch: (url: string, init: RequestInit) => {
      rec.fetched.push({ url, init });
      if (opts.answer === "network") return Promise.reject(new TypeError("Failed to fetch"));
      return Promise.resolve(new Response(null, { status: opts.answer ?? 200 }));
    },
    now: () => 1_000_000,
    savePendingNav: (entry: unknown) => {
      rec.pending.push(entry);
      return Promise.resolve();
    },
    postToPage: (message: unknown) => {
      if (!opts.pageOpen) return Promise.resolve(false);
      rec.posted.push(message);
      return Promise.resolve(true);
    },
    openWindow: (path: string) => {
      rec.opened.push(path);
      return Promise.resolve();
    },
  };
  return { env, rec };
}

function shownNotification(data: Record<string, unknown>, rec: Recorded) {
  const n = notificationFor(data);
  return {
    title: n.title,
    tag: n.options.tag,
    data: n.options.data,
    close: () => void rec.closed++,
  };
}

Deno.test("a button tap posts push-action with the token and same-origin credentials; 2xx replaces the notification under its tag", async () => {
  for (const action of ["approve", "dismiss"] as const) {
    const { env, rec } = fakeEnv();
    const n = shownNotification({ type: "inbox", id: 12, title: "triage", actions: [] }, rec);
    assert.equal(await onNotificationClick(action, n, env), "applied");
    assert.equal(rec.fetched.length, 1);
    const { url, init } = rec.fetched[0]!;
    assert.equal(url, "/api/inbox/12/push-action");
    assert.equal(init.method, "POST");
    assert.equal(init.credentials, "same-origin");
    assert.equal(init.redirect, "manual");
    assert.equal((init.headers as Record<string, string>)["X-CSRF-Token"], "tok-123");
    assert.deepEqual(JSON.parse(String(init.body)), { action });
    assert.deepEqual(rec.shown, [{
      title: "triage",
      options: {
        body: action === "approve" ? "approved" : "dismissed",
        tag: "inbox-12",
        data: { kind: "inbox", id: 12, job: null, run: null },
      },
    }]);
    assert.equal("actions" in rec.shown[0]!.options, false);
    assert.deepEqual(rec.opened, []);
  }
});

Deno.test("any failure falls back to the deep link, once, with no retry", async () => {
  const cases: { name: string; opts: Parameters<typeof fakeEnv>[0]; requests: number }[] = [
    { name: "no token", opts: { token: null }, requests: 0 },
    { name: "empty token", opts: { token: "" }, requests: 0 },
    { name: "network error", opts: { answer: "network" }, requests: 1 },
    { name: "403 CSRF", opts: { answer: 403 }, requests: 1 },
    { name: "409 closed", opts: { answer: 409 }, requests: 1 },
    { name: "302 login redirect", opts: { answer: 302 }, requests: 1 },
    { name: "500", opts: { answer: 500 }, requests: 1 },
  ];
  for (const c of cases) {
    const { env, rec } = fakeEnv(c.opts);
    const n = shownNotification({ type: "inbox", id: 12, title: "t" }, rec);
    assert.equal(await onNotificationClick("approve", n, env), "fallback", c.name);
    assert.equal(rec.fetched.length, c.requests, c.name);
    assert.deepEqual(rec.opened, ["/inbox/12"], c.name);
    assert.deepEqual(rec.shown, [], `${c.name}: the notification is not replaced`);
    assert.equal(rec.closed, 1);
  }
  // A button on an item whose id is not an integer never posts and opens /.
  const { env, rec } = fakeEnv();
  const bad = { title: "t", tag: "x", data: { kind: "inbox", id: "abc" }, close() {} };
  assert.equal(await onNotificationClick("approve", bad, env), "fallback");
  assert.deepEqual(rec.fetched, []);
  assert.deepEqual(rec.opened, ["/"]);
});

Deno.test("a plain tap posts {type: nav} to an open page and keeps a pending entry with a timestamp", async () => {
  const { env, rec } = fakeEnv({ pageOpen: true });
  const n = shownNotification({ type: "run_report", job: 4, run: 9, title: "t" }, rec);
  assert.equal(await onNotificationClick("", n, env), "opened");
  assert.deepEqual(rec.posted, [{ type: "nav", kind: "run_report", id: null, job: 4, run: 9 }]);
  assert.deepEqual(rec.pending, [{
    type: "nav",
    kind: "run_report",
    id: null,
    job: 4,
    run: 9,
    ts: 1_000_000,
  }]);
  assert.deepEqual(rec.opened, []);
  assert.deepEqual(rec.fetched, [], "a plain tap never posts push-action");
  // With no page open, the deep link opens in a new window.
  const none = fakeEnv();
  await onNotificationClick(
    "",
    shownNotification({ type: "alert", title: "a" }, none.rec),
    none.env,
  );
  assert.deepEqual(none.rec.opened, ["/#card-jobs"]);
  // Buttons on a non-inbox notification are plain taps.
  const odd = fakeEnv();
  await onNotificationClick("approve", shownNotification({ type: "alert" }, odd.rec), odd.env);
  assert.deepEqual(odd.rec.fetched, []);
});

Deno.test("push shows the notification; pending entries expire after a minute", async () => {
  const { env, rec } = fakeEnv();
  await onPush({ type: "inbox", id: 3, title: "x", body: "y" }, env);
  assert.equal(rec.shown[0]!.options.tag, "inbox-3");
  const entry = { kind: "inbox", id: 3, job: null, run: null, ts: 1000 };
  assert.equal(pendingTarget(entry, 1000 + 59_000), "/inbox/3");
  assert.equal(pendingTarget(entry, 1000 + 61_000), null);
  assert.equal(pendingTarget({ ...entry, ts: "x" }, 1000), null);
  assert.equal(pendingTarget(null, 1000), null);
  assert.equal(await postPushAction(3, "delete-everything", env), false);
});
