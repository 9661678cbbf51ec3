import assert from "node:assert/strict";
import { jsonOf as json, makeTestOutpost } from "../../tests/fakes/test_outpost.ts";

const keys = { p256dh: "B" + "A".repeat(86), auth: "A".repeat(22) };

Deno.test("subscribe refuses loopback, private and plain-http endpoints unless AGENT_PUSH_ALLOW_LOOPBACK=1", async () => {
  await using t = await makeTestOutpost();
  const refused: [string, RegExp][] = [
    ["http://127.0.0.1:9/push/1", /https/],
    ["http://localhost:9/push/1", /https/],
    ["https://127.0.0.1/push/1", /private, loopback/],
    ["https://[::1]/push/1", /private, loopback/],
    ["https://10.0.0.8/push/1", /private/],
    ["https://169.254.169.254/latest", /private/],
    ["https://[::ffff:192.168.0.1]/x", /private/],
    ["https://localhost/push/1", /not a public host/],
    ["https://push.example.net:8080/x", /default https port/],
  ];
  for (const [endpoint, why] of refused) {
    const r = await t.request("POST", "/api/push/subscribe", { endpoint, keys });
    assert.equal(r.status, 400, endpoint);
    const body = await json(r);
    assert.equal(body.error.field, "endpoint");
    assert.match(body.error.message, why, endpoint);
  }
  assert.equal(t.store.listPushSubscriptions().length, 0);
  const ok = await t.request("POST", "/api/push/subscribe", {
    endpoint: "https://fcm.googleapis.com/fcm/send/abc",
    keys,
  });
  assert.equal(ok.status, 201);
});

Deno.test("with AGENT_PUSH_ALLOW_LOOPBACK=1 a loopback http stand-in may subscribe", async () => {
  await using t = await makeTestOutpost({ env: { AGENT_PUSH_ALLOW_LOOPBACK: "1" } });
  const r = await t.request("POST", "/api/push/subscribe", {
    endpoint: "http://127.0.0.1:9/push/1",
    keys,
  });
  assert.equal(r.status, 201);
  const refused = await t.request("POST", "/api/push/subscribe", {
    endpoint: "file:///etc/passwd",
    keys,
  });
  assert.equal(refused.status, 400);
});

Deno.test("unsubscribe removes any stored endpoint, even one the guard would refuse now", async () => {
  await using t = await makeTestOutpost();
  t.store.upsertPushSubscription({ endpoint: "http://127.0.0.1:9/push/old", keys });
  const r = await t.request("POST", "/api/push/unsubscribe", {
    endpoint: "http://127.0.0.1:9/push/old",
  });
  assert.deepEqual(await json(r), { removed: true });
  assert.equal(t.store.listPushSubscriptions().length, 0);
});

Deno.test("the push badge says error (not dormant) when the key file cannot be used", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/vapid.key`, "not a key");
    await using t = await makeTestOutpost({
      env: { VAPID_PRIVATE_KEY_FILE: `${dir}/vapid.key` },
    });
    const html = await (await t.app.request("/")).text();
    assert.match(html, /id="push-badge" data-state="error"/);
    assert.match(html, /Push: (<!-- -->)?error/);
    assert.match(html, /title="VAPID_PRIVATE_KEY_FILE [^"]*: expected a PEM EC key/);
    assert.doesNotMatch(html, /not a key/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a key pasted into VAPID_PRIVATE_KEY_FILE shows neither in /api/push/status nor in the badge", async () => {
  // RFC 8291 appendix A's private key, as web-push prints it.
  const pasted = "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw";
  await using t = await makeTestOutpost({ env: { VAPID_PRIVATE_KEY_FILE: pasted } });
  const status = await json(await t.app.request("/api/push/status"));
  assert.equal(status.state, "error");
  assert.match(status.detail, /^VAPID_PRIVATE_KEY_FILE \(its value is not a file path/);
  assert.doesNotMatch(JSON.stringify(status), /yfWPiYE|AELtAQ/);
  const html = await (await t.app.request("/")).text();
  assert.match(html, /id="push-badge" data-state="error"/);
  assert.match(html, /title="VAPID_PRIVATE_KEY_FILE \(its value is not a file path/);
  assert.doesNotMatch(html, /yfWPiYE|AELtAQ/);
});
