// Whole processes, issue 37 §1: a stored provider key goes only to the origin it was stored
// for. A recording listener (the fake model server, which keeps every request's headers)
// stands at another origin than the stored key's endpoint. `agent -p` pointed at it by
// AGENT_BASE_URL, and an outpost job whose base_url points at it, must send it no
// Authorization and no x-api-key; with a key stored for the listener's own origin (a
// [[providers]] row the job or caller names), that key arrives.

import assert from "node:assert/strict";
import { type FakeModelServer, reply, startFakeModelServer } from "../fakes/model_server.ts";
import { runAgent, tempHome } from "./agent_process.ts";
import { closeStack, dashboardApi, startOutpost, waitForRunEnd } from "./outpost_process_kit.ts";

const CANARY = "sk-canary-default-endpoint-93f1";
const CANARY_SHARED = "sk-canary-shared-api-key-41aa";
const LISTENER_KEY = "sk-listener-own-key-2c7e";

/** Keys stored for the default endpoint, plus a preset (and key) for the listener's origin. */
async function writeSettings(home: string, listener: FakeModelServer): Promise<void> {
  await Deno.mkdir(`${home}/.agent`, { recursive: true });
  await Deno.writeTextFile(
    `${home}/.agent/settings.toml`,
    `provider_preset = "hosted-messages"\napi_key = "${CANARY_SHARED}"\n` +
      `[[providers]]\nid = "listener"\nprovider = "messages"\nbase_url = "${listener.url}"\n` +
      `[provider_keys]\nhosted-messages = "${CANARY}"\nlistener = "${LISTENER_KEY}"\n`,
    { mode: 0o600 },
  );
}

function credentials(listener: FakeModelServer): string[] {
  return listener.allRequests.flatMap((r) =>
    [r.headers.authorization, r.headers["x-api-key"]].filter((v): v is string => v !== undefined)
  );
}

Deno.test("agent -p: AGENT_BASE_URL at another origin gets no stored key; a named preset for that origin sends its own", async () => {
  const listener = await startFakeModelServer({ models: [{ id: "served-model" }] });
  const home = await tempHome();
  try {
    await writeSettings(home, listener);
    const env = { home, AGENT_MEMORY_REFLECT: "0", AGENT_BASE_URL: listener.url };
    listener.enqueue(reply().text("hello from the listener"));
    const run = await runAgent(["-p", "--", "say hello"], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /hello from the listener/);
    assert.ok(listener.requests.length >= 1, "the run reached the listener");
    assert.deepEqual(credentials(listener), [], "no stored key reached the listener");

    // Naming the preset whose key was stored for the listener's origin sends that key.
    listener.enqueue(reply().text("keyed"));
    const named = await runAgent(["-p", "--", "say hello"], { ...env, AGENT_PRESET: "listener" });
    assert.equal(named.code, 0, named.stderr);
    assert.equal(listener.requests.at(-1)!.headers["x-api-key"], LISTENER_KEY);
    const all = credentials(listener);
    assert.ok(!all.includes(CANARY) && !all.includes(CANARY_SHARED), JSON.stringify(all));
    listener.assertNoViolations();
  } finally {
    await listener.close();
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("outpost: a job whose base_url is the listener sends it no stored key; naming the listener's preset sends its key", async () => {
  const listener = await startFakeModelServer({ models: [{ id: "served-model" }] });
  const home = await tempHome();
  await writeSettings(home, listener);
  const work = `${home}/work`;
  await Deno.mkdir(work);
  const outpost = await startOutpost(home, { AGENT_MEMORY_REFLECT: "0" });
  try {
    const api = await dashboardApi(outpost.url);
    const schedule = { kind: "every", expr: "1h", tz: "UTC" };
    const created = await api("POST", "api/jobs", {
      name: "pointed elsewhere",
      prompt: "say hello",
      schedule,
      workdir: work,
      base_url: listener.url,
      model: "served-model",
    });
    assert.equal(created.status, 201, created.text);
    listener.enqueue(reply().text("unkeyed run"));
    const fired = await api("POST", `api/jobs/${created.json.job.id}/trigger`);
    assert.equal(fired.status, 202, fired.text);
    assert.equal(await waitForRunEnd(outpost.url, fired.json.run.id), "ok");
    assert.ok(listener.requests.length >= 1, "the run reached the listener");
    assert.deepEqual(credentials(listener), [], "no stored key reached the listener");
    // The API said so when the job was made.
    assert.equal(created.json.key.stored_key, null);
    assert.match(created.json.key.note, /not sent to/);
    assert.ok(!created.text.includes(CANARY));

    const named = await api("POST", "api/jobs", {
      name: "named key",
      prompt: "say hello",
      schedule,
      workdir: work,
      base_url: listener.url,
      model: "served-model",
      provider_preset: "listener",
    });
    assert.equal(named.status, 201, named.text);
    assert.match(named.json.key.stored_key, /^provider_keys\[listener\]/);
    listener.enqueue(reply().text("keyed run"));
    const again = await api("POST", `api/jobs/${named.json.job.id}/trigger`);
    assert.equal(again.status, 202, again.text);
    assert.equal(await waitForRunEnd(outpost.url, again.json.run.id), "ok");
    assert.equal(listener.requests.at(-1)!.headers["x-api-key"], LISTENER_KEY);
    const all = credentials(listener);
    assert.ok(!all.includes(CANARY) && !all.includes(CANARY_SHARED), JSON.stringify(all));
    listener.assertNoViolations();
  } finally {
    await closeStack({ home, fake: listener, outpost });
  }
});
