// The job API says which stored key a job's runs send and where (issue 37 §1): a base_url of
// another origin than the stored key's gets none, and says how to name a key stored for it; a
// named preset that does not exist or was stored for another origin is refused with 400.

import assert from "node:assert/strict";
import { jobInput } from "../../tests/fakes/scheduler_kit.ts";
import { jsonOf, makeTestOutpost, type TestOutpost } from "../../tests/fakes/test_outpost.ts";

const CANARY = "sk-canary-default-endpoint-5b1d";
const LISTENER = "http://127.0.0.1:9/v1";

async function withKeys(t: TestOutpost): Promise<void> {
  await Deno.writeTextFile(
    `${t.home}/settings.toml`,
    `provider_preset = "hosted-messages"\n` +
      `[[providers]]\nid = "listener"\nprovider = "chat_completions"\nbase_url = "${LISTENER}"\n` +
      `[provider_keys]\nhosted-messages = "${CANARY}"\nlistener = "sk-listener-7a"\n`,
  );
}

Deno.test("job API: a base_url of another origin runs with no stored key, and the response says so", async () => {
  await using t = await makeTestOutpost();
  await withKeys(t);
  const res = await t.request("POST", "/api/jobs", jobInput({ base_url: LISTENER }));
  assert.equal(res.status, 201);
  const text = await res.text();
  assert.ok(!text.includes(CANARY), "no key in the response");
  const body = JSON.parse(text);
  assert.equal(body.job.provider_preset, "");
  assert.equal(body.key.endpoint, "http://127.0.0.1:9");
  assert.equal(body.key.stored_key, null);
  assert.match(
    body.key.note,
    /^runs send no stored key to http:\/\/127\.0\.0\.1:9: provider_keys\[hosted-messages\] .*stored for https:\/\/api\.anthropic\.com; not sent to http:\/\/127\.0\.0\.1:9.*provider_preset/,
  );
  // The default endpoint: the stored key goes there, and the note names where it comes from.
  const plain = await jsonOf(await t.request("POST", "/api/jobs", jobInput({ name: "default" })));
  assert.equal(plain.key.endpoint, "https://api.anthropic.com");
  assert.match(plain.key.stored_key, /^provider_keys\[hosted-messages\] in /);
  // GET answers the same note.
  const got = await jsonOf(await t.request("GET", `/api/jobs/${body.job.id}`));
  assert.deepEqual(got.key, body.key);
});

Deno.test("job API: naming the preset stored for the base_url's origin uses its key; another is refused", async () => {
  await using t = await makeTestOutpost();
  await withKeys(t);
  const named = await t.request(
    "POST",
    "/api/jobs",
    jobInput({ base_url: LISTENER, provider_preset: "listener" }),
  );
  assert.equal(named.status, 201);
  const body = await jsonOf(named);
  assert.equal(body.job.provider_preset, "listener");
  assert.match(body.key.stored_key, /^provider_keys\[listener\] in /);
  assert.match(
    body.key.note,
    /^runs send the key from provider_keys\[listener\] .* to http:\/\/127\.0\.0\.1:9$/,
  );

  const refusals: Array<[Record<string, unknown>, RegExp]> = [
    [
      { base_url: LISTENER, provider_preset: "hosted-messages" },
      /stored for https:\/\/api\.anthropic\.com/,
    ],
    [
      { base_url: "http://127.0.0.1:10/v1", provider_preset: "listener" },
      /stored for http:\/\/127\.0\.0\.1:9/,
    ],
    [{ provider_preset: "nope" }, /Unknown provider preset "nope"/],
  ];
  for (const [fields, message] of refusals) {
    const res = await t.request("POST", "/api/jobs", jobInput(fields));
    assert.equal(res.status, 400, JSON.stringify(fields));
    const err = (await jsonOf(res)).error;
    assert.equal(err.field, "provider_preset");
    assert.match(err.message, message);
  }
  // Moving a named job's base_url to another origin is refused too; the job is unchanged.
  const put = await t.request("PUT", `/api/jobs/${body.job.id}`, {
    base_url: "https://elsewhere.example/v1",
  });
  assert.equal(put.status, 400);
  assert.equal((await jsonOf(put)).error.field, "provider_preset");
  assert.equal(t.store.getJob(body.job.id)!.base_url, LISTENER);
  assert.equal(t.store.countJobs(), 1);
  // Clearing the preset with the move is accepted, and the note says no key goes there.
  const cleared = await t.request("PUT", `/api/jobs/${body.job.id}`, {
    base_url: "https://elsewhere.example/v1",
    provider_preset: "",
  });
  assert.equal(cleared.status, 200);
  assert.equal((await jsonOf(cleared)).key.stored_key, null);
});

Deno.test("job API: an unreadable settings file makes the note say so, never a silent no", async () => {
  await using t = await makeTestOutpost();
  await Deno.writeTextFile(`${t.home}/settings.toml`, "provider_preset = [broken\n");
  const res = await t.request("POST", "/api/jobs", jobInput());
  assert.equal(res.status, 201);
  const key = (await jsonOf(res)).key;
  assert.equal(key.endpoint, null);
  assert.match(key.note, /^cannot tell which stored key runs use: /);
});

Deno.test("job API: with AGENT_GPU_PRIORITY the note names the Chat Completions endpoint the child uses", async () => {
  // GPU priority switches each child to the Chat Completions wire (headless_command.ts): the
  // note must judge the key for that endpoint, not for the operator's own provider.
  await using t = await makeTestOutpost({
    env: { AGENT_GPU_PRIORITY: "1", AGENT_PROVIDER: "messages" },
  });
  const body = await jsonOf(await t.request("POST", "/api/jobs", jobInput({ name: "gpu" })));
  assert.equal(body.key.endpoint, "https://api.openai.com");
  assert.match(body.key.note, /^runs find no stored key for https:\/\/api\.openai\.com /);
});
