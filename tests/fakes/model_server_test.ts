// The fake model server's own contract: documented stream formats, invariants, scripting.

import { deepEqual, equal, ok } from "node:assert/strict";
import { SseParser } from "../../core/wires/sse.ts";
import { httpError, reply, startFakeModelServer } from "./model_server.ts";

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
