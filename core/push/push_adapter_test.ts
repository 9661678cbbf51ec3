// The push adapter against the loopback push-service stand-in (tests/fakes/push_service.ts),
// which decrypts with npm:http_ece and verifies the VAPID JWT with WebCrypto on its own.

import assert from "node:assert/strict";
import { FakeClock } from "../../tests/fakes/clock.ts";
import { startPushService } from "../../tests/fakes/push_service.ts";
import { Delivery } from "../delivery/delivery.ts";
import type { DeliveryEvent } from "../delivery/types.ts";
import { MemoryLogger } from "../logger.ts";
import { SqliteStore } from "../store/sqlite_store.ts";
import type { HostResolver } from "./endpoint_guard.ts";
import { PushAdapter, type PushAdapterOptions } from "./push_adapter.ts";
import { vapidKeyPair, type VapidState } from "./vapid.ts";
import { testPublishGate } from "../../tests/fakes/publish_gate.ts";
import { okRunRecords } from "../../tests/fakes/job_fixture.ts";

// RFC 8291 appendix A's application server key (any P-256 key would do).
const PRIVATE = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
const KEYS: VapidState = {
  state: "ok",
  keys: { subject: "mailto:operator@outpost.example.org", ...vapidKeyPair(PRIVATE) },
};

const inboxEvent: DeliveryEvent = {
  kind: "inbox_item",
  item_id: 12,
  job_id: 4,
  run_id: 9,
  risk: "medium",
  title: "triage needs you",
  body: "Which branch?",
  priority: "high",
  at: "2026-03-02T09:00:00Z",
};
const reportEvent: DeliveryEvent = {
  kind: "run_report",
  job_id: 4,
  run_id: 9,
  outcome: "ok",
  link: "/runs/4/9",
  title: "nightly finished (run 9)",
  body: "all green",
  priority: "normal",
  at: "t",
};
const alertEvent: DeliveryEvent = {
  kind: "alert",
  alert: "dead_letter",
  job_id: 4,
  title: "nightly: disabled",
  body: "three failures",
  priority: "high",
  at: "t",
};

function setup(overrides: Partial<PushAdapterOptions> = {}) {
  const clock = new FakeClock("2026-03-02T09:00:00Z");
  const store = new SqliteStore({ path: ":memory:", clock });
  const logger = new MemoryLogger();
  const home = Deno.makeTempDirSync();
  const adapter = new PushAdapter({
    store,
    keys: () => KEYS,
    fetch: globalThis.fetch,
    resolve: () => Promise.reject(new Error("no lookups expected")),
    allowLoopback: true,
    clock,
    logger,
    gate: testPublishGate({ store, home, logger }),
    ...overrides,
  });
  return {
    clock,
    store,
    logger,
    adapter,
    home,
    [Symbol.dispose]: () => {
      store.close();
      Deno.removeSync(home, { recursive: true });
    },
  };
}

const signal = () => new AbortController().signal;

Deno.test("each kind arrives encrypted (aes128gcm) with a valid VAPID JWT, as the spec 6 envelope", async () => {
  await using push = await startPushService();
  using t = setup();
  const sub = push.subscribe();
  t.store.upsertPushSubscription(sub);
  for (const e of [inboxEvent, { ...inboxEvent, risk: "high" as const }, reportEvent, alertEvent]) {
    await t.adapter.send(e, signal());
  }
  assert.deepEqual(push.rejected, []);
  assert.deepEqual(push.received.map((r) => r.payload), [
    {
      type: "inbox",
      id: 12,
      title: "triage needs you",
      body: "Which branch?",
      actions: [{ action: "approve", title: "Approve" }, { action: "dismiss", title: "Dismiss" }],
    },
    { type: "inbox", id: 12, title: "triage needs you", body: "Which branch?" },
    { type: "run_report", job: 4, run: 9, title: "nightly finished (run 9)", body: "all green" },
    { type: "alert", title: "nightly: disabled", body: "three failures" },
  ]);
  const [first, , report] = push.received;
  assert.equal(first!.claims.aud, push.origin);
  assert.equal(first!.claims.sub, "mailto:operator@outpost.example.org");
  assert.equal(first!.vapidPublicKey, KEYS.state === "ok" ? KEYS.keys.publicKey : "");
  assert.equal(first!.headers["urgency"], "high");
  assert.equal(first!.headers["topic"], "inbox-12");
  assert.equal(first!.headers["ttl"], "86400");
  assert.equal(report!.headers["urgency"], "normal");
  assert.equal(report!.headers["topic"], "run-4-9");
  const stored = t.store.listPushSubscriptions()[0]!;
  assert.equal(stored.failure_count, 0);
  assert.equal(stored.last_success_at, "2026-03-02T09:00:00Z");
});

Deno.test("404 and 410 prune the subscription (audited); a 5xx keeps it and the envelope is retried at the next fan-out", async () => {
  await using push = await startPushService();
  using t = setup();
  const gone404 = push.subscribe();
  const gone410 = push.subscribe();
  const flaky = push.subscribe();
  const fine = push.subscribe();
  for (const s of [gone404, gone410, flaky, fine]) t.store.upsertPushSubscription(s);
  push.script(gone404.endpoint, 404);
  push.script(gone410.endpoint, 410);
  push.script(flaky.endpoint, 503);
  await assert.rejects(
    () => t.adapter.send(inboxEvent, signal()),
    /push: 1 of 4 subscriptions failed \(1 kept for the next fan-out\)/,
  );
  assert.deepEqual(
    t.store.listPushSubscriptions().map((s) => s.endpoint).sort(),
    [flaky.endpoint, fine.endpoint].sort(),
  );
  assert.equal(
    t.store.listPushSubscriptions().find((s) => s.endpoint === flaky.endpoint)!
      .failure_count,
    1,
  );
  const pruned = t.store.listAudit({ action: "push_unsubscribe" });
  assert.equal(pruned.length, 2);
  assert.equal(pruned[0]!.actor, "push-service");
  assert.match(pruned.map((r) => r.detail).join(" "), /answered 404.*answered 410|410.*404/);
  const warn = t.logger.entries.find((e) => e.message.startsWith("push send failed"));
  assert.equal(warn?.data?.status, 503);
  assert.doesNotMatch(JSON.stringify(t.logger.entries), /\/push\/\d/, "endpoints are not logged");
  assert.equal(t.adapter.retries.size(flaky.endpoint), 1);

  // Next fan-out: the flaky endpoint gets the missed inbox envelope first, then the report.
  const before = push.received.length;
  await t.adapter.send(reportEvent, signal());
  const toFlaky = push.received.slice(before).filter((r) => r.sub === 3).map((r) =>
    (r.payload as { type: string }).type
  );
  assert.deepEqual(toFlaky, ["inbox", "run_report"]);
  assert.equal(t.adapter.retries.size(), 0);
  assert.equal(
    t.store.listPushSubscriptions().find((s) => s.endpoint === flaky.endpoint)!
      .failure_count,
    0,
  );
});

Deno.test("a refused connection is kept for retry and never blocks the other adapters on the seam", async () => {
  // A port that was just closed refuses connections.
  const closed = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (closed.addr as Deno.NetAddr).port;
  closed.close();
  using t = setup();
  t.store.upsertPushSubscription({
    endpoint: `http://127.0.0.1:${port}/push/1`,
    keys: { p256dh: vapidKeyPair(PRIVATE).publicKey, auth: "A".repeat(22) },
  });
  const delivery = new Delivery({ clock: t.clock, logger: t.logger });
  const chat: DeliveryEvent[] = [];
  delivery.register(t.adapter);
  delivery.register({ name: "chat", send: (e) => (chat.push(e), Promise.resolve()) });
  const outcomes = await delivery.send(alertEvent);
  assert.equal(chat.length, 1);
  assert.equal(outcomes[0]!.ok, false);
  assert.deepEqual(outcomes[1], { adapter: "chat", ok: true });
  assert.equal(t.adapter.retries.size(), 1);
  assert.equal(t.store.listPushSubscriptions().length, 1, "a refused connection prunes nothing");
  // The log says why (Deno's fetch keeps it in the error's cause), naming only the host.
  const warned = t.logger.entries.find((e) => e.message.startsWith("push send failed"));
  const error = String(warned?.data?.error);
  assert.match(error, /Connection refused/, error);
  assert.ok(!error.includes("/push/1"), `the endpoint is not logged: ${error}`);
  assert.match(error, new RegExp(`<endpoint at 127\\.0\\.0\\.1:${port}>`), error);
});

Deno.test("a subscription whose keys web-push cannot use is refused with why, not kept for retry", async () => {
  await using push = await startPushService();
  using t = setup();
  const sub = push.subscribe();
  // 80 base64url characters pass the subscribe route's shape check but are 60 bytes, not 65.
  t.store.upsertPushSubscription({ ...sub, keys: { ...sub.keys, p256dh: "B".repeat(80) } });
  await assert.rejects(() => t.adapter.send(alertEvent, signal()), /0 kept for the next fan-out/);
  assert.equal(t.adapter.retries.size(), 0, "repeating would fail the same way");
  const refused = t.logger.entries.find((e) => e.message === "push send refused");
  assert.match(String(refused?.data?.error), /encrypting for this subscription failed: .*65/);
  assert.equal(t.store.listPushSubscriptions().length, 1, "the subscription is kept");
});

Deno.test("a push service's answer that echoes the endpoint is logged with the endpoint redacted", async () => {
  const endpoint = "https://push.example.org/wpush/v2/gAAAAABcapabilitytoken0123456789";
  const leaky = () =>
    Promise.resolve(new Response(`no such subscription: ${endpoint}`, { status: 400 }));
  const failing = () =>
    Promise.reject(
      new TypeError("fetch failed", {
        cause: new Error(`error sending request for url (${endpoint}): client error (Connect)`),
      }),
    );
  for (const fetch of [leaky, failing]) {
    using t = setup({
      fetch,
      allowLoopback: false,
      resolve: () => Promise.resolve(["192.0.43.10"]),
    });
    t.store.upsertPushSubscription({
      endpoint,
      keys: { p256dh: vapidKeyPair(PRIVATE).publicKey, auth: "A".repeat(22) },
    });
    await assert.rejects(() => t.adapter.send(alertEvent, signal()));
    const logged = JSON.stringify(t.logger.entries);
    assert.ok(logged.includes("push.example.org"), logged);
    assert.ok(!logged.includes("capabilitytoken"), `the endpoint leaked into the log: ${logged}`);
    assert.match(logged, /<endpoint at push\.example\.org>/);
  }
});

Deno.test("a hanging push service is cut off at the seam's deadline; the chat adapter got the event at once", async () => {
  await using push = await startPushService();
  using t = setup();
  const sub = push.subscribe();
  t.store.upsertPushSubscription(sub);
  push.script(sub.endpoint, "hang");
  const delivery = new Delivery({ clock: t.clock, logger: t.logger, timeoutMs: 5000 });
  const chat = Promise.withResolvers<DeliveryEvent>();
  delivery.register(t.adapter);
  delivery.register({ name: "chat", send: (e) => (chat.resolve(e), Promise.resolve()) });
  const sending = delivery.send(inboxEvent);
  assert.equal((await chat.promise).kind, "inbox_item");
  await push.arrived(1); // the push request is now hanging in the stand-in
  await t.clock.advance(5000);
  const [pushOutcome, chatOutcome] = await sending;
  assert.equal(pushOutcome!.ok, false);
  assert.equal(pushOutcome!.ok === false && pushOutcome!.timed_out, true);
  assert.deepEqual(chatOutcome, { adapter: "chat", ok: true });
  await delivery.idle();
  assert.equal(
    t.adapter.retries.size(sub.endpoint),
    1,
    "the aborted envelope waits for the next fan-out",
  );
});

Deno.test("send time: an endpoint whose host resolves to a private address is refused before any request", async () => {
  const fetched: string[] = [];
  const resolve: HostResolver = (host) =>
    Promise.resolve(host === "push.example.net" ? ["142.250.74.10", "10.0.0.7"] : []);
  using t = setup({
    allowLoopback: false,
    resolve,
    fetch: ((input: string | URL | Request) => {
      fetched.push(String(input));
      return Promise.resolve(new Response(null, { status: 201 }));
    }) as typeof fetch,
  });
  t.store.upsertPushSubscription({
    endpoint: "https://push.example.net/send/abc",
    keys: { p256dh: vapidKeyPair(PRIVATE).publicKey, auth: "A".repeat(22) },
  });
  // A row stored before the guard existed (plain http on loopback) is refused too.
  t.store.upsertPushSubscription({
    endpoint: "http://127.0.0.1:9/push/1",
    keys: { p256dh: vapidKeyPair(PRIVATE).publicKey, auth: "A".repeat(22) },
  });
  await assert.rejects(() => t.adapter.send(alertEvent, signal()), /2 of 2 subscriptions failed/);
  assert.deepEqual(fetched, []);
  const refused = t.logger.entries.filter((e) => e.message === "push send refused");
  assert.equal(refused.length, 2);
  assert.match(String(refused.map((e) => e.data?.error)), /non-public 10\.0\.0\.7/);
  assert.match(String(refused.map((e) => e.data?.error)), /https/);
  assert.equal(t.adapter.retries.size(), 0, "a refused endpoint is not retried");
});

Deno.test("a public endpoint passes the send-time check and is posted without following redirects", async () => {
  const seen: RequestInit[] = [];
  using t = setup({
    allowLoopback: false,
    resolve: () => Promise.resolve(["142.250.74.10"]),
    fetch: ((_input: string | URL | Request, init?: RequestInit) => {
      seen.push(init ?? {});
      return Promise.resolve(new Response(null, { status: 302 }));
    }) as typeof fetch,
  });
  t.store.upsertPushSubscription({
    endpoint: "https://push.example.net/send/abc",
    keys: { p256dh: vapidKeyPair(PRIVATE).publicKey, auth: "A".repeat(22) },
  });
  await assert.rejects(() => t.adapter.send(alertEvent, signal()), /1 of 1/);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.redirect, "manual");
  assert.equal(t.adapter.retries.size(), 0, "a redirect is refused, not retried");
});

Deno.test("a dormant lane sends nothing; a broken key file fails the send with why", async () => {
  await using push = await startPushService();
  using dormant = setup({
    keys: () => ({ state: "dormant", missing: ["VAPID_PRIVATE_KEY_FILE"] }),
  });
  dormant.store.upsertPushSubscription(push.subscribe());
  await dormant.adapter.send(alertEvent, signal());
  using broken = setup({
    keys: () => ({ state: "error", detail: "VAPID_PRIVATE_KEY_FILE /k: bad" }),
  });
  broken.store.upsertPushSubscription(push.subscribe());
  await assert.rejects(() => broken.adapter.send(alertEvent, signal()), /push lane: .*\/k: bad/);
  assert.equal(push.received.length, 0);
});

Deno.test("a push body with a link arrives neutralized: no URL rides the wire, in text either", async () => {
  await using push = await startPushService();
  using t = setup();
  t.store.upsertPushSubscription(push.subscribe());
  await t.adapter.send({
    ...reportEvent,
    title: "Action needed: https://evil.example/login",
    body: "Your session expired, sign in again at https://evil.example/login or www.evil.com/x",
  }, signal());
  assert.deepEqual(push.rejected, []);
  const payload = push.received[0]!.payload as { title: string; body: string };
  const wire = JSON.stringify(payload);
  assert.doesNotMatch(wire, /https?:\/\//i, "no clickable scheme");
  assert.doesNotMatch(wire, /evil\.example|evil\.com/, "no host a lock screen would link");
  assert.equal(payload.title, "Action needed: hxxps://evil[.]example/login");
  assert.match(
    payload.body,
    /sign in again at hxxps:\/\/evil\[\.\]example\/login or www\[\.\]evil\[\.\]com\/x/,
  );
});

Deno.test("a push text carrying a secret is held: nothing reaches a browser, and the item shows it redacted", async () => {
  await using push = await startPushService();
  using t = setup();
  t.store.upsertPushSubscription(push.subscribe());
  const { job, run } = okRunRecords(t.store);
  const token = "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";
  await t.adapter.send({
    ...reportEvent,
    job_id: job.id,
    run_id: run.id,
    body: `deployed with ${token}`,
  }, signal());
  assert.equal(push.received.length, 0);
  const [item] = t.store.listInbox({ state: "open" });
  assert.equal(item!.meta.surface, "push");
  assert.match(item!.questions[0]!.detail!, /deployed with \[redacted github\]/);
  assert.ok(!JSON.stringify(t.store.listInbox()).includes(token));
  assert.equal(t.store.listAudit({ action: "publish_held" }).length, 1);
});

Deno.test("a secret past the push body's 120-character cap still holds the push", async () => {
  await using push = await startPushService();
  using t = setup();
  t.store.upsertPushSubscription(push.subscribe());
  const token = "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";
  // The cap falls inside the token: the envelope would carry its first half.
  await t.adapter.send({ ...reportEvent, body: `${"x".repeat(100)} ${token}` }, signal());
  assert.equal(push.received.length, 0);
  assert.equal(t.store.listAudit({ action: "publish_held" }).length, 1);
});
