// The Messages wire end to end against the fake model server.

import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { fakeSignature, reply, startFakeModelServer } from "../../tests/fakes/model_server.ts";
import { defaultWireOptions, fakeEndpoint } from "../../tests/fakes/model_server_wiring.ts";
import { createWire } from "./create.ts";
import { WireError } from "./errors.ts";
import { ANTHROPIC_VERSION } from "./messages.ts";
import type { Message, Part } from "./types.ts";
import {
  collectEvents as collect,
  doneEvent as done,
  userText as user,
  wireRequest as req,
} from "../../tests/fakes/model_server_wiring.ts";

Deno.test("messages wire: path trimmed of /v1, headers, text, usage and response.model", async () => {
  const fake = await startFakeModelServer({ models: [{ id: "qwen3-8b" }] });
  try {
    fake.enqueue(reply().text("Hello 🎉").usage(100, 7, { read: 900, creation: 50 }));
    const wire = createWire(
      fakeEndpoint(fake, "messages", { api_key: "k1", auth_style: "x-api-key" }),
      defaultWireOptions(),
    );
    const events = await collect(wire.stream(req()));
    const d = done(events);
    deepEqual(d.message.parts, [{ type: "text", text: "Hello 🎉" }]);
    deepEqual(d.usage, {
      input_tokens: 100,
      output_tokens: 7,
      cache_read_tokens: 900,
      cache_write_tokens: 50,
    });
    equal(d.model, "qwen3-8b");
    equal(events[0]?.type, "usage");
    const sent = fake.requests[0];
    equal(sent?.path, "/v1/messages"); // fake.url ends in /v1; it was trimmed, not doubled
    equal(sent?.headers["anthropic-version"], ANTHROPIC_VERSION);
    equal(sent?.headers["x-api-key"], "k1");
    equal(sent?.headers.authorization, undefined);
    deepEqual(sent?.body?.thinking, { type: "adaptive", display: "summarized" });
    deepEqual(sent?.body?.system, [{
      type: "text",
      text: "sys",
      cache_control: { type: "ephemeral" },
    }]);
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});

Deno.test("messages wire: bearer auth style", async () => {
  const fake = await startFakeModelServer({ apiKey: "k2" });
  try {
    fake.enqueue(reply().text("ok"));
    const wire = createWire(
      fakeEndpoint(fake, "messages", { api_key: "k2", auth_style: "bearer" }),
      defaultWireOptions(),
    );
    await collect(wire.stream(req()));
    equal(fake.requests[0]?.headers.authorization, "Bearer k2");
    equal(fake.requests[0]?.headers["x-api-key"], undefined);
  } finally {
    await fake.close();
  }
});

Deno.test("messages wire: thinking signatures survive the round trip verbatim", async () => {
  const fake = await startFakeModelServer({ chunkBytes: 5 });
  try {
    fake.enqueue(
      reply().reasoning("Let me think — ü.").redactedThinking("opaque==").text("Calling.").tool(
        "view",
        { path: "a" },
      ),
    );
    fake.enqueue(reply().text("Done."));
    const wire = createWire(fakeEndpoint(fake, "messages"), defaultWireOptions());
    const first = done(await collect(wire.stream(req({ effort: "high" }))));
    equal(first.stop_reason, "tool_use");
    deepEqual(first.message.parts[0], {
      type: "reasoning",
      text: "Let me think — ü.",
      signature: fakeSignature("Let me think — ü."),
    });
    deepEqual(first.message.parts[1], { type: "redacted_reasoning", data: "opaque==" });
    const call = first.message.parts.find((p) => p.type === "tool_call");
    ok(call?.type === "tool_call");
    const results: Message = {
      role: "user",
      parts: [{ type: "tool_result", call_id: call.id, content: "file" }],
    };
    const second = done(
      await collect(
        wire.stream(req({ messages: [user("hi"), first.message, results], reminder: "recall" })),
      ),
    );
    deepEqual(second.message.parts, [{ type: "text", text: "Done." }]);
    const body = fake.requests[1]?.body;
    const assistant = (body?.messages as { content: Record<string, unknown>[] }[])[1];
    deepEqual(assistant?.content[0], {
      type: "thinking",
      thinking: "Let me think — ü.",
      signature: fakeSignature("Let me think — ü."),
    });
    deepEqual(assistant?.content[1], { type: "redacted_thinking", data: "opaque==" });
    deepEqual((body?.messages as { content: unknown[] }[])[2]?.content.at(-1), {
      type: "text",
      text: "recall",
    });
    deepEqual(fake.requests[0]?.body?.output_config, { effort: "high" });
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});

Deno.test("messages wire: edited thinking is refused by the server (400, not retried)", async () => {
  const fake = await startFakeModelServer();
  try {
    const tampered: Part = {
      type: "reasoning",
      text: "edited",
      signature: fakeSignature("original"),
    };
    const wire = createWire(fakeEndpoint(fake, "messages"), defaultWireOptions());
    await rejects(
      collect(
        wire.stream(
          req({
            messages: [user("q"), {
              role: "assistant",
              parts: [tampered, { type: "text", text: "a" }],
            }, user("again")],
          }),
        ),
      ),
      (e) =>
        e instanceof WireError && e.status === 400 && !e.retryable &&
        e.message.includes("Invalid signature"),
    );
    equal(fake.violations.length, 1);
  } finally {
    await fake.close();
  }
});

Deno.test("messages wire: a forced structuring call sends tool_choice without thinking", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue(reply().tool("answer", { ok: true }));
    const wire = createWire(
      fakeEndpoint(fake, "messages"),
      defaultWireOptions({ strict_tools: true }),
    );
    const tool = {
      name: "answer",
      description: "d",
      input_schema: { type: "object", properties: { ok: { type: "boolean" } } },
    };
    const d = done(await collect(wire.stream(req({ tools: [tool], force_tool: "answer" }))));
    deepEqual(d.message.parts.map((p) => p.type === "tool_call" && p.input), [{ ok: true }]);
    const body = fake.requests[0]?.body;
    deepEqual(body?.tool_choice, { type: "tool", name: "answer" });
    equal(body?.thinking, undefined);
    ok(!JSON.stringify(body?.tools).includes("strict"));
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});

Deno.test("messages wire: enabled thinking under a small cap is accepted (no budget >= max_tokens)", async () => {
  const fake = await startFakeModelServer();
  try {
    const wire = createWire(
      fakeEndpoint(fake, "messages"),
      defaultWireOptions({ thinking_type: "enabled" }),
    );
    // 1000: too small for any budget, thinking off; 1500: the 1024 minimum, below the cap.
    for (const max_tokens of [1000, 1500]) {
      fake.enqueue(reply().text("Hi."));
      const d = done(await collect(wire.stream(req({ max_tokens }))));
      deepEqual(d.message.parts, [{ type: "text", text: "Hi." }]);
    }
    equal(fake.requests[0]?.body?.thinking, undefined);
    deepEqual(fake.requests[1]?.body?.thinking, {
      type: "enabled",
      budget_tokens: 1024,
      display: "summarized",
    });
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});

Deno.test("messages wire: a history from the Chat Completions wire converts cleanly", async () => {
  const fake = await startFakeModelServer();
  try {
    fake.enqueue(reply().text("continuing"));
    const history: Message[] = [
      user("q"),
      {
        role: "assistant",
        parts: [
          { type: "reasoning", text: "unsigned chat-wire reasoning" },
          { type: "tool_call", id: "chatcmpl-tool-5c0d.7e", name: "view", input: {} },
        ],
      },
      {
        role: "user",
        parts: [{ type: "tool_result", call_id: "chatcmpl-tool-5c0d.7e", content: "x" }],
      },
    ];
    const wire = createWire(fakeEndpoint(fake, "messages"), defaultWireOptions());
    deepEqual(done(await collect(wire.stream(req({ messages: history })))).message.parts, [
      { type: "text", text: "continuing" },
    ]);
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});

Deno.test("messages wire: a recorded Messages stream replayed over HTTP", async () => {
  const fake = await startFakeModelServer({ chunkBytes: 11 });
  try {
    const sse = await Deno.readTextFile(
      new URL("../../tests/fixtures/streams/messages_thinking_tool.sse", import.meta.url),
    );
    fake.enqueue(reply().raw(sse));
    const wire = createWire(fakeEndpoint(fake, "messages"), defaultWireOptions());
    const d = done(await collect(wire.stream(req())));
    equal(d.model, "claude-opus-4-7");
    equal(d.message.parts.length, 3);
  } finally {
    await fake.close();
  }
});

Deno.test("messages wire: listModels sends the version header", async () => {
  const fake = await startFakeModelServer({ models: [{ id: "a" }] });
  try {
    const wire = createWire(fakeEndpoint(fake, "messages"), defaultWireOptions());
    deepEqual(await wire.listModels(), [{ id: "a" }]);
    const probe = fake.allRequests.find((r) => r.wire === "models");
    equal(probe?.headers["anthropic-version"], ANTHROPIC_VERSION);
  } finally {
    await fake.close();
  }
});
