// The fake model server's own contract: documented stream formats, invariants, scripting.

import { deepEqual, equal, ok } from "node:assert/strict";
import { SseParser } from "../../core/wires/sse.ts";
import {
  fakeCountTokens,
  fakeTokenizeCount,
  fakeTokens,
  httpError,
  reply,
  startFakeModelServer,
} from "./model_server.ts";

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function events(text: string) {
  const p = new SseParser();
  return [...p.feedText(text), ...p.end()];
}

const chatBody = (extra: Record<string, unknown> = {}) => ({
  model: "default",
  messages: [{ role: "user", content: "hi" }],
  stream: true,
  stream_options: { include_usage: true },
  ...extra,
});

const msgBody = (extra: Record<string, unknown> = {}) => ({
  model: "default",
  max_tokens: 100,
  messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }],
  stream: true,
  ...extra,
});
const V = { "anthropic-version": "2023-06-01" };

Deno.test("fake: Chat Completions stream in the documented chunk format", async () => {
  const fake = await startFakeModelServer({ models: [{ id: "qwen3-8b" }] });
  try {
    fake.enqueue(reply().text("Hi").tool("view", { path: "a" }, { id: "call_1" }).usage(3, 4));
    const res = await post(`${fake.url}/chat/completions`, chatBody());
    equal(res.status, 200);
    equal(res.headers.get("content-type"), "text/event-stream");
    const evs = events(res.text);
    equal(evs.at(-1)?.data, "[DONE]");
    const chunks = evs.slice(0, -1).map((e) => JSON.parse(e.data));
    equal(chunks[0].object, "chat.completion.chunk");
    equal(chunks[0].model, "qwen3-8b");
    deepEqual(chunks[0].choices[0].delta, { role: "assistant", content: "" });
    equal(chunks[0].usage, null); // include_usage: null on every chunk but the last
    const first = chunks.find((c) => c.choices[0]?.delta.tool_calls)?.choices[0].delta
      .tool_calls[0];
    deepEqual(first, {
      index: 0,
      id: "call_1",
      type: "function",
      function: { name: "view", arguments: "" },
    });
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    equal(finish.choices[0].finish_reason, "tool_calls");
    const last = chunks.at(-1);
    deepEqual(last.choices, []);
    deepEqual(last.usage, { prompt_tokens: 3, total_tokens: 7, completion_tokens: 4 });
  } finally {
    await fake.close();
  }
});

Deno.test("fake: no usage chunk unless include_usage is asked for", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue(reply().text("x"));
    const res = await post(`${fake.url}/chat/completions`, chatBody({ stream_options: undefined }));
    ok(!res.text.includes('"usage"'));
  } finally {
    await fake.close();
  }
});

Deno.test("fake: Messages stream in the documented event order", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue(reply().reasoning("t").text("a").tool("f", { x: 1 }));
    const res = await post(`${fake.url.replace(/\/v1$/, "")}/v1/messages`, msgBody(), V);
    equal(res.status, 200);
    const names = events(res.text).map((e) => e.event);
    deepEqual(names.slice(0, 2), ["message_start", "ping"]);
    deepEqual(names.slice(-2), ["message_delta", "message_stop"]);
    const types = events(res.text).map((e) => JSON.parse(e.data).type);
    deepEqual(types, names); // event name and data.type agree
    ok(names.filter((n) => n === "content_block_start").length === 3);
  } finally {
    await fake.close();
  }
});

Deno.test("fake: an empty queue is a clear 500 that says not to retry", async () => {
  const fake = await startFakeModelServer();
  try {
    const res = await post(`${fake.url}/chat/completions`, chatBody());
    equal(res.status, 500);
    equal(res.headers.get("x-should-retry"), "false");
    ok(res.text.includes("no reply was scripted"));
  } finally {
    await fake.close();
  }
});

Deno.test("fake: scripted HTTP errors carry their status, body and headers", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue(
      httpError(429, { error: { message: "slow" } }, { "retry-after": "7" }),
      httpError(502, "bad gateway"),
    );
    const a = await post(`${fake.url}/chat/completions`, chatBody());
    equal(a.status, 429);
    equal(a.headers.get("retry-after"), "7");
    equal(JSON.parse(a.text).error.message, "slow");
    const b = await post(`${fake.url}/chat/completions`, chatBody());
    equal(b.status, 502);
    equal(b.text, "bad gateway");
    equal(fake.pending, 0);
  } finally {
    await fake.close();
  }
});

Deno.test("fake: Chat Completions invariants answer 400 and do not consume a reply", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue(reply().text("kept"));
    const orphan = await post(
      `${fake.url}/chat/completions`,
      chatBody({
        messages: [{ role: "user", content: "q" }, {
          role: "tool",
          tool_call_id: "nope",
          content: "r",
        }],
      }),
    );
    equal(orphan.status, 400);
    ok(orphan.text.includes("which no earlier assistant message called"));
    const priority = await post(`${fake.url}/chat/completions`, chatBody({ priority: 5 }));
    equal(priority.status, 400);
    ok(priority.text.includes("Priority scheduling is not enabled"));
    equal((await post(`${fake.url}/chat/completions`, chatBody({ priority: 0 }))).status, 200);
    equal((await post(`${fake.url}/chat/completions`, "{nope")).status, 400);
    equal((await post(`${fake.url}/chat/completions`, chatBody({ stream: false }))).status, 400);
    equal(fake.violations.length, 4);
    equal(fake.requests.length, 5);
    ok(fake.requests[0]?.rejection);
  } finally {
    await fake.close();
  }
});

Deno.test("fake: Messages invariants answer 400 with the real API's wording", async () => {
  const fake = await startFakeModelServer();
  const url = `${fake.url}/messages`;
  const cases: [unknown, Record<string, string>, string][] = [
    [msgBody(), {}, "anthropic-version"],
    [msgBody({ temperature: 0.5 }), V, "temperature"],
    [msgBody({ top_p: 0.5 }), V, "top_p"],
    [msgBody({ top_k: 5 }), V, "top_k"],
    [msgBody({ thinking: { type: "enabled", budget_tokens: 1024 } }), V, "budget_tokens"],
    [msgBody({ priority: 3 }), V, "Extra inputs are not permitted"],
    [msgBody({ max_tokens: undefined }), V, "max_tokens"],
    [
      msgBody({ tools: [{ name: "f", input_schema: {}, strict: true }] }),
      V,
      "never sends strict",
    ],
    [
      msgBody({
        tools: [{ name: "f", input_schema: {} }],
        tool_choice: { type: "tool", name: "f" },
        thinking: { type: "adaptive" },
      }),
      V,
      "Thinking may not be enabled",
    ],
    [
      msgBody({ messages: [{ role: "user", content: [{ type: "text", text: "" }] }] }),
      V,
      "non-empty",
    ],
    [
      msgBody({
        messages: [{
          role: "user",
          content: [{ type: "tool_result", tool_use_id: "x", content: "r" }],
        }],
      }),
      V,
      "corresponding tool_use",
    ],
    [
      msgBody({
        messages: [
          { role: "user", content: "q" },
          { role: "assistant", content: [{ type: "thinking", thinking: "t" }] },
        ],
      }),
      V,
      "signature",
    ],
    [
      msgBody({
        messages: [{
          role: "assistant",
          content: [{ type: "tool_use", id: "a.b", name: "f", input: {} }],
        }],
      }),
      V,
      "should match",
    ],
  ];
  try {
    for (const [body, headers, needle] of cases) {
      const res = await post(url, body, headers);
      equal(res.status, 400, needle);
      ok(res.text.includes(needle), `${needle} in ${res.text}`);
      equal(JSON.parse(res.text).type, "error");
    }
    equal(fake.violations.length, cases.length);
  } finally {
    await fake.close();
  }
});

Deno.test("fake: a required key is enforced per wire; models listing too", async () => {
  const fake = await startFakeModelServer({ apiKey: "sk-1" });
  try {
    fake.enqueue(reply().text("a"), reply().text("b"), reply().text("c"));
    equal((await post(`${fake.url}/chat/completions`, chatBody())).status, 401);
    equal(
      (await post(`${fake.url}/chat/completions`, chatBody(), { "x-api-key": "sk-1" })).status,
      401,
    );
    equal(
      (await post(`${fake.url}/chat/completions`, chatBody(), { authorization: "Bearer sk-1" }))
        .status,
      200,
    );
    equal(
      (await post(`${fake.url}/messages`, msgBody(), { ...V, "x-api-key": "sk-1" })).status,
      200,
    );
    equal(
      (await post(`${fake.url}/messages`, msgBody(), { ...V, authorization: "Bearer sk-1" }))
        .status,
      200,
    );
    equal(
      (await post(`${fake.url}/messages`, msgBody(), { ...V, "x-api-key": "bad" })).status,
      401,
    );
    equal(
      await fetch(`${fake.url}/models`).then(async (r) => (await r.body?.cancel(), r.status)),
      401,
    );
  } finally {
    await fake.close();
  }
});

Deno.test("fake: /v1/models and /metrics", async () => {
  const fake = await startFakeModelServer({ models: [{ id: "qwen3-8b", max_model_len: 32768 }] });
  try {
    const list = await (await fetch(`${fake.url}/models`)).json();
    equal(list.object, "list");
    deepEqual(list.data[0].id, "qwen3-8b");
    equal(list.data[0].max_model_len, 32768);
    equal(list.data[0].object, "model");
    fake.setWaiting(3);
    const metrics = await (await fetch(`${fake.origin}/metrics`)).text();
    ok(metrics.includes('vllm:num_requests_waiting{engine="0",model_name="qwen3-8b"} 3.0'));
    ok(metrics.includes("# TYPE vllm:num_requests_waiting gauge"));
    ok(metrics.includes("vllm:num_requests_running"));
    fake.setModels([]);
    deepEqual((await (await fetch(`${fake.url}/models`)).json()).data, []);
    equal(fake.requests.length, 0); // probes are not model calls
    equal(fake.allRequests.length, 3);
    const missing = await fetch(`${fake.origin}/nope`);
    equal(missing.status, 404);
    await missing.body?.cancel();
  } finally {
    await fake.close();
  }
});

Deno.test("fake: computed replies see the request; waitForRequests resolves on arrival", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue((r) =>
      reply().text(`you said ${JSON.stringify(r.body?.messages)}`).model("echo-model")
    );
    const waiting = fake.waitForRequests(1);
    const res = await post(`${fake.url}/chat/completions`, chatBody());
    await waiting;
    ok(res.text.includes("you said"));
    ok(res.text.includes('"model":"echo-model"'));
  } finally {
    await fake.close();
  }
});

Deno.test("fake: close() ends hung streams instead of waiting for them", async () => {
  const fake = await startFakeModelServer();
  fake.enqueue(reply().text("partial").hang());
  const res = await fetch(`${fake.url}/chat/completions`, {
    method: "POST",
    body: JSON.stringify(chatBody()),
  });
  const reader = res.body!.getReader();
  await reader.read(); // the part before the hang
  const closing = fake.close();
  for (;;) if ((await reader.read()).done) break;
  await closing;
});

Deno.test("fake: reachable from a child process", async () => {
  const fake = await startFakeModelServer({ models: [{ id: "child-visible" }] });
  try {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `const r = await fetch(${
          JSON.stringify(`${fake.url}/models`)
        }); console.log((await r.json()).data[0].id);`,
      ],
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(new TextDecoder().decode(out.stdout).trim(), "child-visible");
  } finally {
    await fake.close();
  }
});

const countBody = (extra: Record<string, unknown> = {}) => ({
  model: "default",
  system: [{ type: "text", text: "sys" }],
  messages: [{ role: "user", content: [{ type: "text", text: "héllo" }] }],
  ...extra,
});

Deno.test("fake: count_tokens answers the documented count and refuses what the API refuses", async () => {
  const fake = await startFakeModelServer({ apiKey: "sk-c" });
  const url = `${fake.url}/messages/count_tokens`;
  const key = { ...V, "x-api-key": "sk-c" };
  try {
    fake.enqueue(reply().text("kept for the model call"));
    const ok1 = await post(url, countBody(), key);
    equal(ok1.status, 200);
    const body = countBody();
    const expected = fakeTokens(JSON.stringify([body.system, body.messages, null]));
    deepEqual(JSON.parse(ok1.text), { input_tokens: expected });
    equal(fakeCountTokens(body), expected);
    equal((await post(url, countBody(), { ...V, authorization: "Bearer sk-c" })).status, 200);
    const cases: [unknown, Record<string, string>, number, string][] = [
      [countBody(), V, 401, "invalid x-api-key"],
      [countBody(), { "x-api-key": "sk-c" }, 400, "anthropic-version"],
      [countBody({ max_tokens: 100 }), key, 400, "max_tokens: Extra inputs are not permitted"],
      [countBody({ stream: true }), key, 400, "stream: Extra inputs are not permitted"],
      [countBody({ temperature: 1 }), key, 400, "temperature: Extra inputs are not permitted"],
      [countBody({ model: undefined }), key, 400, "model: Field required"],
      [countBody({ messages: [] }), key, 400, "at least one message"],
      [
        countBody({
          tools: [{ name: "f", input_schema: {} }],
          tool_choice: { type: "tool", name: "f" },
          thinking: { type: "adaptive" },
        }),
        key,
        400,
        "Thinking may not be enabled",
      ],
    ];
    for (const [b, headers, status, needle] of cases) {
      const res = await post(url, b, headers);
      equal(res.status, status, needle);
      ok(res.text.includes(needle), `${needle} in ${res.text}`);
      equal(JSON.parse(res.text).type, "error");
    }
    equal(fake.violations.length, cases.length);
    equal(fake.countRequests.length, cases.length + 2);
    equal(fake.countRequests[0]?.wire, "count_tokens");
    deepEqual(fake.countRequests[0]?.body, countBody());
    equal(fake.requests.length, 0, "counting is not a model call");
    equal(fake.pending, 1, "and consumes no scripted reply");
  } finally {
    await fake.close();
  }
});

Deno.test("fake: vLLM /tokenize, chat and prompt forms, with vLLM's rules", async () => {
  const fake = await startFakeModelServer({
    apiKey: "sk-t",
    models: [{ id: "qwen3-8b", max_model_len: 4096 }],
  });
  const url = `${fake.origin}/tokenize`;
  const key = { authorization: "Bearer sk-t" };
  const messages = [{ role: "user", content: "hi" }];
  const tools = [{ type: "function", function: { name: "f", parameters: {} } }];
  try {
    const chat = await post(
      url,
      { model: "default", messages, tools, add_generation_prompt: true },
      key,
    );
    equal(chat.status, 200);
    const answer = JSON.parse(chat.text);
    equal(answer.count, fakeTokens(JSON.stringify([messages, tools])));
    equal(answer.count, fakeTokenizeCount({ messages, tools }));
    equal(answer.max_model_len, 4096);
    equal(answer.tokens.length, answer.count);
    const prompt = JSON.parse(
      (await post(url, { prompt: "abcdefghi", return_token_strs: true }, key)).text,
    );
    equal(prompt.count, 3);
    equal(prompt.token_strs.length, 3);
    const cases: [unknown, Record<string, string>, number, string][] = [
      [{ messages }, { "x-api-key": "sk-t" }, 401, "Incorrect API key"],
      [{ model: "default" }, key, 400, "`messages` (chat form) or `prompt`"],
      [
        { messages, add_generation_prompt: true, continue_final_message: true },
        key,
        400,
        "Cannot set both `continue_final_message` and `add_generation_prompt` to True.",
      ],
      [{ messages, stream: true }, key, 400, "`stream` is not a /tokenize field"],
      [{ messages, max_tokens: 9 }, key, 400, "`max_tokens` is not a /tokenize field"],
      [{ messages: [{ role: "tool", tool_call_id: "x", content: "r" }] }, key, 400, "no earlier"],
      [{ messages, tools: [{ name: "f" }] }, key, 400, "tools[0]"],
    ];
    for (const [b, headers, status, needle] of cases) {
      const res = await post(url, b, headers);
      equal(res.status, status, needle);
      ok(res.text.includes(needle), `${needle} in ${res.text}`);
    }
    equal(fake.violations.length, cases.length);
    equal(fake.countRequests.at(-1)?.wire, "tokenize");
    equal(fake.requests.length, 0);
  } finally {
    await fake.close();
  }
});

Deno.test("fake: counting endpoints can be absent (404) or scripted", async () => {
  const bare = await startFakeModelServer({ countTokens: false, tokenize: false });
  const fake = await startFakeModelServer();
  try {
    const a = await post(`${bare.url}/messages/count_tokens`, countBody(), V);
    const b = await post(`${bare.origin}/tokenize`, { messages: [] });
    deepEqual([a.status, b.status], [404, 404]);
    equal(bare.violations.length, 0, "a missing route is not a client mistake");
    equal(bare.countRequests.length, 2);

    fake.enqueueCount(httpError(500, { error: { message: "down" } }), httpError(200, "nonsense"));
    const url = `${fake.origin}/tokenize`;
    equal((await post(url, { prompt: "x" })).status, 500);
    equal((await post(url, { prompt: "x" })).text, "nonsense");
    deepEqual(JSON.parse((await post(url, { prompt: "x" })).text).count, 1);
  } finally {
    await bare.close();
    await fake.close();
  }
});
