// Browser push as whole processes: a real `agent-outpost` (the release permission flags of
// scripts/permissions.ts) with a VAPID key file runs the real `agent -p` against the fake
// model server; the run stops for a human, and the loopback push-service stand-in receives
// the inbox envelope encrypted for the subscribed device (decrypted there with the device's
// own key) under a VAPID JWT it verifies with WebCrypto. Without the key file the same
// outpost starts with the lane dormant: it says so at start-up and on the status route, and
// the same event reaches the delivery log but never the push service.

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { generateKeyPairSync } from "node:crypto";
import { reply, startFakeModelServer } from "../fakes/model_server.ts";
import { startPushService } from "../fakes/push_service.ts";
import { tempHome } from "./agent_process.ts";
import {
  type DashboardApi,
  dashboardApi,
  startOutpost,
  stop,
  waitForRun,
} from "./outpost_process_kit.ts";

// Long enough that the push envelope must cap them (titles 200, bodies 120 characters).
const JOB_NAME = "deploy-" + "x".repeat(188);
const QUESTION = "Which region should the deploy go to? ".repeat(8).trim();

/** The spec's cap: at most `max` code points, the last one an ellipsis when cut. */
function capped(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : chars.slice(0, max - 1).join("").trimEnd() + "…";
}

/** A fresh P-256 VAPID key as a PKCS#8 PEM file (mode 0600) and its raw public key. */
async function vapidKeyFile(
  dir: string,
): Promise<{ path: string; pem: string; publicKey: string }> {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "prime256v1" });
  const pem = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  const jwk = publicKey.export({ format: "jwk" });
  // Derived here independently of core/push/vapid.ts: 0x04 || x || y, base64url.
  const raw = Buffer.concat([
    Buffer.from([4]),
    Buffer.from(jwk.x!, "base64url"),
    Buffer.from(jwk.y!, "base64url"),
  ]).toString("base64url");
  const path = `${dir}/vapid.pem`;
  await Deno.writeTextFile(path, pem, { mode: 0o600 });
  await Deno.chmod(path, 0o600);
  return { path, pem, publicKey: raw };
}

type Api = DashboardApi;

/** Creates a job whose model asks one question, runs it, and returns the open inbox item. */
async function haltedRun(
  api: Api,
  url: string,
  fake: Awaited<ReturnType<typeof startFakeModelServer>>,
  work: string,
): Promise<{ id: number; run_id: number; meta: { risk: string } }> {
  const created = await api("POST", "api/jobs", {
    name: JOB_NAME,
    prompt: "deploy the site",
    schedule: { kind: "every", expr: "1h", tz: "UTC" },
    workdir: work,
  });
  assert.equal(created.status, 201, created.text);
  fake.enqueue(reply().tool("ask", { questions: [{ kind: "question", text: QUESTION }] }));
  const triggered = await api("POST", `api/jobs/${created.json.job.id}/trigger`);
  assert.equal(triggered.status, 202, triggered.text);
  const runId = triggered.json.run.id as number;
  await waitForRun(url, runId, "needs_human");
  const inbox = await api("GET", "api/inbox?state=open");
  const item = inbox.json.items.find((i: { run_id: number }) => i.run_id === runId);
  assert.ok(item, JSON.stringify(inbox.json));
  return item;
}

/** The JSON lines of the outpost's stderr log with `message`. */
function logLines(stderr: string, message: RegExp): Record<string, unknown>[] {
  return stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l))
    .filter((e) => message.test(String(e.message)));
}

Deno.test("outpost process: a needs-human run pushes the inbox envelope, encrypted, under a valid VAPID JWT", async () => {
  const home = await tempHome();
  const secrets = `${home}/secrets`;
  await Deno.mkdir(secrets, { mode: 0o700 });
  const key = await vapidKeyFile(secrets);
  const fake = await startFakeModelServer({
    models: [{ id: "served-model", max_model_len: 32768 }],
  });
  await using push = await startPushService();
  const outpost = await startOutpost(home, {
    AGENT_BASE_URL: fake.url,
    AGENT_PROVIDER: "chat_completions",
    AGENT_MEMORY_REFLECT: "0",
    VAPID_PRIVATE_KEY_FILE: key.path,
    AGENT_PUSH_ALLOW_LOOPBACK: "1",
  });
  let ended: { code: number; stderr: string } | null = null;
  const device = push.subscribe();
  try {
    const { url } = outpost;
    const api = await dashboardApi(url);
    const before = await api("GET", "api/push/status");
    assert.deepEqual(before.json, {
      state: "ok",
      public_key: key.publicKey,
      devices: 0,
      missing: [],
    });

    // Subscribing is a mutation: without the CSRF header it is refused and nothing is stored.
    const forged = await api("POST", "api/push/subscribe", device, false);
    assert.equal(forged.status, 403, forged.text);
    const subscribed = await api("POST", "api/push/subscribe", device);
    assert.equal(subscribed.status, 201, subscribed.text);
    const status = await api("GET", "api/push/status");
    assert.deepEqual(status.json, {
      state: "ok",
      public_key: key.publicKey,
      devices: 1,
      missing: [],
    });

    const work = `${home}/work`;
    await Deno.mkdir(work);
    const item = await haltedRun(api, url, fake, work);
    assert.equal(item.meta.risk, "medium");
    // SIGTERM: shutdown waits for the delivery seam to go idle, so every push has been sent.
    ended = await stop(outpost);
    assert.equal(ended.code, 0, ended.stderr);

    assert.deepEqual(push.rejected, [], "every request carried a valid JWT and decrypted");
    const inbox = push.received.filter((r) => (r.payload as { type: string }).type === "inbox");
    assert.equal(inbox.length, 1, JSON.stringify(push.received.map((r) => r.payload)));
    const got = inbox[0]!;
    assert.equal(got.sub, 1);
    assert.deepEqual(got.payload, {
      type: "inbox",
      id: item.id,
      title: capped(`${JOB_NAME} needs you`, 200),
      body: capped(QUESTION, 120),
      actions: [
        { action: "approve", title: "Approve" },
        { action: "dismiss", title: "Dismiss" },
      ],
    });
    const payload = got.payload as { title: string; body: string };
    assert.ok([...payload.title].length <= 200 && [...payload.body].length <= 120);
    assert.equal(got.vapidPublicKey, key.publicKey, "signed with the key from the file");
    assert.equal(got.claims.aud, push.origin);
    assert.equal(got.claims.sub, "mailto:operator@127.0.0.1");
    assert.equal(got.headers["topic"], `inbox-${item.id}`);
    assert.equal(got.headers["urgency"], "high");
    assert.equal(got.headers["ttl"], "86400");

    assert.equal(logLines(ended.stderr, /^push lane on$/).length, 1, ended.stderr);
    // The endpoint is a capability URL and the key a secret: neither is ever logged.
    assert.ok(!ended.stderr.includes(device.endpoint), "the endpoint is not logged");
    assert.ok(!ended.stderr.includes(`/push/${got.sub}`), "nor its path");
    const body = key.pem.split("\n").filter((l) => l && !l.startsWith("-----")).join("");
    assert.ok(!ended.stderr.includes(body.slice(0, 40)), "the private key is not logged");
  } finally {
    if (!ended) await stop(outpost);
    await fake.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("outpost process: without VAPID_PRIVATE_KEY_FILE the lane is dormant and nothing is pushed", async () => {
  const home = await tempHome();
  const fake = await startFakeModelServer({
    models: [{ id: "served-model", max_model_len: 32768 }],
  });
  await using push = await startPushService();
  const outpost = await startOutpost(home, {
    AGENT_BASE_URL: fake.url,
    AGENT_PROVIDER: "chat_completions",
    AGENT_MEMORY_REFLECT: "0",
    AGENT_PUSH_ALLOW_LOOPBACK: "1",
  });
  let ended: { code: number; stderr: string } | null = null;
  try {
    const { url } = outpost;
    const api = await dashboardApi(url);
    // A device may subscribe while the lane is dormant (the badge says so); nothing is sent.
    const subscribed = await api("POST", "api/push/subscribe", push.subscribe());
    assert.equal(subscribed.status, 201, subscribed.text);
    const status = await api("GET", "api/push/status");
    assert.deepEqual(status.json, {
      state: "dormant",
      devices: 1,
      missing: ["VAPID_PRIVATE_KEY_FILE"],
    });

    const work = `${home}/work`;
    await Deno.mkdir(work);
    const item = await haltedRun(api, url, fake, work);
    ended = await stop(outpost);
    assert.equal(ended.code, 0, ended.stderr);

    // The seam did fan the event out (the log adapter has it) ...
    const logged = (await Deno.readTextFile(`${home}/.agent/outpost/delivery.jsonl`))
      .split("\n").filter(Boolean).map((l) => JSON.parse(l));
    assert.ok(
      logged.some((e) => e.kind === "inbox_item" && e.item_id === item.id),
      JSON.stringify(logged),
    );
    // ... but no push adapter was registered: it said so at start-up, and nothing arrived.
    assert.equal(logLines(ended.stderr, /^push lane dormant/).length, 1, ended.stderr);
    assert.equal(logLines(ended.stderr, /^push lane on$/).length, 0, ended.stderr);
    assert.equal(push.received.length + push.rejected.length, 0);
  } finally {
    if (!ended) await stop(outpost);
    await fake.close();
    await Deno.remove(home, { recursive: true });
  }
});
