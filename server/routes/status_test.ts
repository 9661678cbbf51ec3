import assert from "node:assert/strict";
import { governorPath } from "../../core/governor/config.ts";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf as json, makeTestOutpost } from "../../tests/fakes/test_outpost.ts";

Deno.test("GET /api/messenger/status: dormant with the missing MX_* names and the allowlist size", async () => {
  await using t = await makeTestOutpost({
    env: { MX_HOMESERVER: "https://hs", MX_ALLOWLIST: "@a:hs, @b:hs,," },
  });
  const body = await json(await t.app.request("/api/messenger/status"));
  assert.deepEqual(body, { state: "dormant", missing: ["MX_TOKEN", "MX_ROOM"], allowlist_size: 2 });
});

Deno.test("GET /api/messenger/status with all keys but no bot running says error, with why", async () => {
  await using t = await makeTestOutpost({
    env: { MX_HOMESERVER: "https://hs", MX_TOKEN: "t", MX_ROOM: "!r:hs", MX_ALLOWLIST: "@a:hs" },
  });
  const body = await json(await t.app.request("/api/messenger/status"));
  assert.equal(body.state, "error");
  assert.deepEqual(body.missing, []);
  assert.match(body.detail, /not running/);
});

Deno.test("push: dormant without a VAPID key; subscribe/unsubscribe keep the device count; bad input 400", async () => {
  await using t = await makeTestOutpost();
  assert.deepEqual(await json(await t.app.request("/api/push/status")), {
    state: "dormant",
    devices: 0,
    missing: ["VAPID_PRIVATE_KEY_FILE"],
  });
  const sub = {
    endpoint: "https://push.example.net/send/abc",
    expirationTime: null,
    keys: { p256dh: "B" + "A".repeat(86), auth: "A".repeat(22) },
  };
  const res = await t.request("POST", "/api/push/subscribe", sub);
  assert.equal(res.status, 201);
  assert.equal((await json(res)).subscription.endpoint, sub.endpoint);
  assert.equal((await json(await t.app.request("/api/push/status"))).devices, 1);
  const bad: [unknown, string][] = [
    [{ ...sub, endpoint: "http://push.example.net/x" }, "endpoint"],
    [{ ...sub, endpoint: "not a url" }, "endpoint"],
    [{ ...sub, endpoint: "https://u:p@push.example.net/x" }, "endpoint"],
    [{ ...sub, keys: undefined }, "keys"],
    [{ ...sub, keys: { p256dh: "short", auth: sub.keys.auth } }, "keys.p256dh"],
    [{ ...sub, keys: { p256dh: sub.keys.p256dh, auth: "has spaces in it!!" } }, "keys.auth"],
    [{ ...sub, extra: 1 }, "extra"],
  ];
  for (const [body, field] of bad) {
    const r = await t.request("POST", "/api/push/subscribe", body);
    assert.equal(r.status, 400, field);
    assert.equal((await json(r)).error.field, field);
  }
  assert.equal(t.store.listPushSubscriptions().length, 1);
  const un = await t.request("POST", "/api/push/unsubscribe", { endpoint: sub.endpoint });
  assert.deepEqual(await json(un), { removed: true });
  assert.deepEqual(
    await json(await t.request("POST", "/api/push/unsubscribe", { endpoint: sub.endpoint })),
    {
      removed: false,
    },
  );
  assert.equal((await t.request("POST", "/api/push/unsubscribe", {})).status, 400);
  assert.deepEqual(t.store.listAudit().map((r) => r.action), [
    "push_unsubscribe",
    "push_subscribe",
  ]);
});

Deno.test("push status derives the public key from the VAPID private key file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const keyFile = `${dir}/vapid.key`;
    // RFC 8291 appendix A's application server private key and its public key.
    await Deno.writeTextFile(keyFile, "yfWPiYE-n46HLnH0KqZOF1fJJU3MYrct3AELtAQ-oRw\n");
    await using t = await makeTestOutpost({ env: { VAPID_PRIVATE_KEY_FILE: keyFile } });
    const body = await json(await t.app.request("/api/push/status"));
    assert.equal(body.state, "ok");
    assert.equal(
      body.public_key,
      "BP4z9KsN6nGRTbVYI_c7VJSPQTBtkgcy27mlmlMoZIIgDll6e3vCYLocInmYWAmS6TlzAC8wEqKK6PBru3jl7A8",
    );
    await Deno.writeTextFile(keyFile, "garbage");
    const broken = await json(await t.app.request("/api/push/status"));
    assert.equal(broken.state, "error");
    assert.match(broken.detail, /VAPID_PRIVATE_KEY_FILE/);
    assert.doesNotMatch(JSON.stringify(broken), /garbage/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("governor: GET shows levers and usage; PUT live-tunes, persists and audits; bad levers 400", async () => {
  await using t = await makeTestOutpost();
  const before = await json(await t.app.request("/api/governor"));
  assert.equal(before.config.queue_depth_max, 16);
  assert.equal(before.usage.classes.api.max_concurrent, 2);
  const res = await t.request("PUT", "/api/governor", {
    max_concurrent: { api: 3 },
    queue_depth_max: 8,
  });
  assert.equal(res.status, 200);
  const after = await json(res);
  assert.equal(after.config.max_concurrent.api, 3);
  assert.equal(after.config.max_concurrent.scheduled, 2);
  assert.equal(after.usage.queue.max, 8);
  const saved = JSON.parse(await Deno.readTextFile(governorPath(t.home)));
  assert.equal(saved.queue_depth_max, 8);
  for (
    const [body, field] of [
      [{ queue_depth_max: 0 }, "queue_depth_max"],
      [{ max_concurrent: { gpu: 1 } }, "max_concurrent.gpu"],
      [{ turbo: true }, "turbo"],
      [{ defer_when_interactive: "yes" }, "defer_when_interactive"],
    ] as const
  ) {
    const r = await t.request("PUT", "/api/governor", body);
    assert.equal(r.status, 400);
    assert.equal((await json(r)).error.field, field);
  }
  assert.equal(t.governor.config.queue_depth_max, 8, "refused updates change nothing");
  assert.equal(t.store.listAudit({ action: "governor_update" }).length, 1);
});

Deno.test("governor card: the queue gauge shows submissions against queue_depth_max and other waiting runs apart", async () => {
  await using t = await makeTestOutpost({
    governor: { queue_depth_max: 1, max_concurrent: { api: 0, scheduled: 0 } },
  });
  for (const name of ["a", "b"]) t.scheduler.trigger(t.scheduler.createJob(jobInput({ name })).id);
  t.scheduler.submitOneShot({ name: "one", prompt: "p", workdir: t.home });
  const { usage } = await json(await t.app.request("/api/governor"));
  assert.deepEqual(usage.queue, { depth: 1, max: 1, other: 2 });
  const html = await (await t.app.request("/partials/governor")).text();
  assert.match(html, /queue <span data-usage="queue">1 \/ 1<\/span>/);
  assert.match(html, /<span data-usage="queue-other"> · 2 more waiting \(retries, resumes, held/);
});

Deno.test("GET /api/schedule/preview: the next fires in UTC; bad schedules 400 naming the field", async () => {
  await using t = await makeTestOutpost();
  const body = await json(
    await t.app.request(
      "/api/schedule/preview?kind=cron&expr=0%209%20*%20*%201-5&tz=Europe/Berlin",
    ),
  );
  assert.deepEqual(body.fires, [
    "2026-03-03T08:00:00Z",
    "2026-03-04T08:00:00Z",
    "2026-03-05T08:00:00Z",
    "2026-03-06T08:00:00Z",
    "2026-03-09T08:00:00Z",
  ]);
  const two = await json(await t.app.request("/api/schedule/preview?kind=every&expr=90m&count=2"));
  assert.deepEqual(two.fires, ["2026-03-02T10:30:00Z", "2026-03-02T12:00:00Z"]);
  for (
    const [q, field] of [
      ["kind=weekly&expr=1h", "schedule.kind"],
      ["kind=every&expr=5s", "schedule.expr"],
      ["kind=cron&expr=99%20*%20*%20*%20*", "schedule.expr"],
      ["kind=every&expr=1h&tz=Nowhere/City", "schedule.tz"],
      ["kind=every&expr=1h&count=21", "count"],
    ]
  ) {
    const r = await t.app.request(`/api/schedule/preview?${q}`);
    assert.equal(r.status, 400, q);
    assert.equal((await json(r)).error.field, field);
  }
});

Deno.test("GET /api/audit lists rows newest first, filtered by action and channel", async () => {
  await using t = await makeTestOutpost();
  const job = t.scheduler.createJob(jobInput());
  await t.request("POST", `/api/jobs/${job.id}/trigger`);
  await t.request("POST", `/api/jobs/${job.id}/cancel`);
  const all = await json(await t.app.request("/api/audit"));
  assert.deepEqual(all.rows.map((r: { action: string }) => r.action), [
    "job_cancel",
    "job_trigger",
  ]);
  const one = await json(await t.app.request("/api/audit?action=job_trigger"));
  assert.equal(one.rows.length, 1);
  assert.equal(one.rows[0].channel, "dashboard");
  assert.equal((await t.app.request("/api/audit?limit=0")).status, 400);
  // Filtered by channel: the one machine-door row; an unknown channel is a 400 naming it.
  t.store.appendAudit({
    action: "api_submit",
    target: "job:9",
    actor: "token:1:ci",
    channel: "machine",
    detail: "",
  });
  const machine = await json(await t.app.request("/api/audit?channel=machine"));
  assert.deepEqual(machine.rows.map((r: { action: string }) => r.action), ["api_submit"]);
  const bad = await t.app.request("/api/audit?channel=fax");
  assert.equal(bad.status, 400);
  assert.equal((await json(bad)).error.field, "channel");
});

Deno.test("unknown API routes and unexpected errors answer the one JSON error body", async () => {
  await using t = await makeTestOutpost();
  const missing = await t.app.request("/api/nope");
  assert.equal(missing.status, 404);
  assert.equal((await json(missing)).error.code, "not_found");
  t.deps.messengerStatus = () => {
    throw new Error("secret internal detail /etc/shadow");
  };
  const res = await t.app.request("/api/messenger/status");
  assert.equal(res.status, 500);
  const body = await json(res);
  assert.equal(body.error.code, "internal_error");
  assert.doesNotMatch(body.error.message, /shadow/);
  assert.ok(
    t.logger.entries.some((e) => JSON.stringify(e).includes("/etc/shadow")),
    "details are logged",
  );
  const big = await t.request(
    "POST",
    "/api/jobs",
    JSON.stringify({ prompt: "x".repeat(1_100_000) }),
  );
  assert.equal(big.status, 413);
  assert.equal((await json(big)).error.code, "payload_too_large");
});

Deno.test("GET /healthz", async () => {
  await using t = await makeTestOutpost();
  assert.deepEqual(await json(await t.app.request("/healthz")), { ok: true });
});
