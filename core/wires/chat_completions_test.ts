// The Chat Completions wire end to end against the fake model server.

import { deepEqual, equal, ok } from "node:assert/strict";
import { reply, startFakeModelServer } from "../../tests/fakes/model_server.ts";
import { defaultWireOptions, fakeEndpoint } from "../../tests/fakes/model_server_wiring.ts";
import { ChatCompletionsWire } from "./chat_completions.ts";
import { createWire } from "./create.ts";
import type { Message } from "./types.ts";
import {
  collectEvents as collect,
  doneEvent as done,
  userText as user,
  wireRequest as req,
} from "../../tests/fakes/model_server_wiring.ts";

Deno.test("chat wire: text, reasoning_content, usage and response.model", async () => {
  const fake = await startFakeModelServer({ models: [{ id: "qwen3-8b", max_model_len: 32768 }] });
  try {
    fake.enqueue(reply().reasoning("thinking…").text("Hello, wörld 🎉").usage(10, 5));
    const wire = createWire(fakeEndpoint(fake, "chat_completions"), defaultWireOptions());
    equal(wire.kind, "chat_completions");
    const events = await collect(wire.stream(req()));
    const d = done(events);
    deepEqual(d.message.parts, [
      { type: "reasoning", text: "thinking…" },
      { type: "text", text: "Hello, wörld 🎉" },
    ]);
    deepEqual(d.usage, { input_tokens: 10, output_tokens: 5 });
    equal(d.model, "qwen3-8b");
    equal(d.stop_reason, "end_turn");
    ok(events.filter((e) => e.type === "text").length >= 2, "text arrives in pieces");
    const sent = fake.requests[0];
    equal(sent?.path, "/v1/chat/completions");
    equal(sent?.body?.model, "default");
    equal(sent?.body?.stream, true);
    deepEqual(sent?.body?.stream_options, { include_usage: true });
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});

Deno.test("chat wire: reasoning under the newer `reasoning` field, and under both", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue(reply().reasoningField("reasoning").reasoning("r1").text("a"));
    fake.enqueue(reply().reasoningField("both").reasoning("r2").text("b"));
    const wire = createWire(fakeEndpoint(fake, "chat_completions"), defaultWireOptions());
    deepEqual(done(await collect(wire.stream(req()))).message.parts[0], {
      type: "reasoning",
      text: "r1",
    });
    deepEqual(done(await collect(wire.stream(req()))).message.parts[0], {
      type: "reasoning",
      text: "r2",
    });
  } finally {
    await fake.close();
  }
});

Deno.test("chat wire: tool calls split across chunks, then the tool result round trip", async () => {
  const fake = await startFakeModelServer({ chunkBytes: 7 });
  try {
    fake.enqueue(
      reply().text("Looking.").tool("view", { path: "a.txt", note: 'ü "q"' }, { fragments: 5 })
        .tool("grep", { pattern: "x" }),
    );
    fake.enqueue((r) => reply().text(`saw ${(r.body?.messages as unknown[]).length} messages`));
    const wire = createWire(fakeEndpoint(fake, "chat_completions"), defaultWireOptions());
    const first = await collect(wire.stream(req()));
    const d = done(first);
    equal(d.stop_reason, "tool_use");
    const calls = d.message.parts.filter((p) => p.type === "tool_call");
    deepEqual(calls.map((c) => c.type === "tool_call" && [c.name, c.input]), [
      ["view", { path: "a.txt", note: 'ü "q"' }],
      ["grep", { pattern: "x" }],
    ]);
    deepEqual(
      first.filter((e) => e.type === "tool_call").map((e) => e.type === "tool_call" && e.name),
      [
        "view",
        "grep",
      ],
    );
    const results: Message = {
      role: "user",
      parts: calls.map((c) => ({
        type: "tool_result",
        call_id: c.type === "tool_call" ? c.id : "",
        content: "ok",
      })),
    };
    const second = done(
      await collect(wire.stream(req({ messages: [user("hi"), d.message, results] }))),
    );
    deepEqual(second.message.parts, [{ type: "text", text: "saw 5 messages" }]);
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});

Deno.test("chat wire: a stray finish_reason stop after tool calls still means tool_use", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue(reply().tool("view", { path: "a" }).finishReason("stop"));
    const wire = createWire(fakeEndpoint(fake, "chat_completions"), defaultWireOptions());
    equal(done(await collect(wire.stream(req()))).stop_reason, "tool_use");
  } finally {
    await fake.close();
  }
});

Deno.test("chat wire: a recorded vLLM stream replayed over HTTP", async () => {
  const fake = await startFakeModelServer({ chunkBytes: 3 });
  try {
    const sse = await Deno.readTextFile(
      new URL("../../tests/fixtures/streams/chat_vllm_reasoning_tool.sse", import.meta.url),
    );
    fake.enqueue(reply().raw(sse));
    const wire = createWire(fakeEndpoint(fake, "chat_completions"), defaultWireOptions());
    const d = done(await collect(wire.stream(req())));
    equal(d.stop_reason, "tool_use");
    deepEqual(d.usage, { input_tokens: 412, output_tokens: 58 });
  } finally {
    await fake.close();
  }
});

Deno.test("chat wire: knobs reach the server as vLLM expects; auth is a bearer key", async () => {
  const fake = await startFakeModelServer({ priorityScheduling: true, apiKey: "sk-local" });
  try {
    fake.enqueue(reply().text("ok"));
    const wire = createWire(
      fakeEndpoint(fake, "chat_completions", { api_key: "sk-local" }),
      defaultWireOptions({
        temperature: 0.7,
        top_k: 20,
        request_priority: 5,
        enable_thinking: false,
      }),
    );
    await collect(wire.stream(req({ effort: "on", max_tokens: 512 })));
    const sent = fake.requests[0];
    equal(sent?.headers.authorization, "Bearer sk-local");
    equal(sent?.body?.temperature, 0.7);
    equal(sent?.body?.top_k, 20);
    equal(sent?.body?.priority, 5);
    equal(sent?.body?.max_tokens, 512);
    deepEqual(sent?.body?.chat_template_kwargs, { enable_thinking: false }); // hard off wins
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});

Deno.test("chat wire: a forced strict call sends strict and drops null optionals on return", async () => {
  const fake = await startFakeModelServer();
  try {
    const tool = {
      name: "answer",
      description: "Structured answer",
      input_schema: {
        type: "object",
        properties: {
          summary: { type: "string" },
          risk: { type: "string", enum: ["low", "high"] },
        },
        required: ["summary"],
      },
    };
    fake.enqueue(reply().tool("answer", { summary: "fine", risk: null }));
    const wire = new ChatCompletionsWire(
      fakeEndpoint(fake, "chat_completions"),
      defaultWireOptions(),
    );
    const d = done(await collect(wire.stream(req({ tools: [tool], force_tool: "answer" }))));
    deepEqual(d.message.parts, [
      {
        type: "tool_call",
        id: d.message.parts[0]?.type === "tool_call" ? d.message.parts[0].id : "",
        name: "answer",
        input: { summary: "fine" },
      },
    ]);
    const fn = (fake.requests[0]?.body?.tools as { function: Record<string, unknown> }[])[0]
      ?.function;
    equal(fn?.strict, true);
    deepEqual((fn?.parameters as { required: string[] }).required, ["summary", "risk"]);
  } finally {
    await fake.close();
  }
});

Deno.test("chat wire: listModels uses GET /v1/models with the key", async () => {
  const fake = await startFakeModelServer({
    models: [{ id: "m1", max_model_len: 4096 }],
    apiKey: "k",
  });
  try {
    const wire = createWire(
      fakeEndpoint(fake, "chat_completions", { api_key: "k" }),
      defaultWireOptions(),
    );
    deepEqual(await wire.listModels(), [{ id: "m1", max_model_len: 4096 }]);
    const noKey = createWire(fakeEndpoint(fake, "chat_completions"), defaultWireOptions());
    equal(await noKey.listModels(), null); // 401 is a silent no-op
  } finally {
    await fake.close();
  }
});

// Stopping a stream early releases the connection: transport_test.ts, for both wires and clients.
