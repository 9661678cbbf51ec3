// Real token counting (spec 4.3 rule 5) on both wires, against the fake model server.

import { deepEqual, equal, match, ok, rejects } from "node:assert/strict";
import {
  fakeCountTokens,
  type FakeModelServer,
  fakeTokenizeCount,
  httpError,
  startFakeModelServer,
} from "../../tests/fakes/model_server.ts";
import {
  defaultWireOptions,
  fakeEndpoint,
  userText,
  wireRequest as req,
} from "../../tests/fakes/model_server_wiring.ts";
import { ChatCompletionsWire } from "./chat_completions.ts";
import { ABSENT_REASON, UNUSABLE_REASON } from "./count_tokens.ts";
import { ANTHROPIC_VERSION, MessagesWire } from "./messages.ts";
import type { Endpoint, ToolSpec, WireOptions, WireRequest } from "./types.ts";

const VIEW: ToolSpec = {
  name: "view",
  description: "Read a file",
  input_schema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

function messagesWire(endpoint: Endpoint, options: WireOptions = defaultWireOptions()) {
  return new MessagesWire(endpoint, options);
}

function chatWire(endpoint: Endpoint, options: WireOptions = defaultWireOptions()) {
  return new ChatCompletionsWire(endpoint, options);
}

async function withFake(
  opts: Parameters<typeof startFakeModelServer>[0],
  fn: (fake: FakeModelServer) => Promise<void>,
): Promise<void> {
  const fake = await startFakeModelServer(opts);
  try {
    await fn(fake);
  } finally {
    await fake.close();
  }
}

/** A base URL on a port nothing listens on. */
function refusedBase(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return `http://127.0.0.1:${port}/v1`;
}

function without(body: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const out = { ...body };
  for (const k of keys) delete out[k];
  return out;
}

const toolTurn: Partial<WireRequest> = {
  tools: [VIEW],
  messages: [
    userText("read a.txt"),
    {
      role: "assistant",
      parts: [{ type: "tool_call", id: "toolu_1", name: "view", input: { path: "a.txt" } }],
    },
    { role: "user", parts: [{ type: "tool_result", call_id: "toolu_1", content: "héllo 🎉" }] },
  ],
};

Deno.test("count (messages): the documented body from the real render, x-api-key", async () => {
  await withFake({ apiKey: "k1" }, async (fake) => {
    const wire = messagesWire(fakeEndpoint(fake, "messages", {
      api_key: "k1",
      auth_style: "x-api-key",
    }));
    const request = req({ ...toolTurn, effort: "high", max_tokens: 500 });
    const n = await wire.countTokens(request);
    const sent = fake.countRequests[0];
    equal(fake.countRequests.length, 1);
    equal(sent?.method, "POST");
    equal(sent?.path, "/v1/messages/count_tokens"); // the base's /v1 trimmed, not doubled
    equal(sent?.headers["anthropic-version"], ANTHROPIC_VERSION);
    equal(sent?.headers["x-api-key"], "k1");
    equal(sent?.headers.authorization, undefined);
    equal(sent?.headers["content-type"], "application/json");
    // Exactly the real request minus what count_tokens refuses.
    deepEqual(sent?.body, without(wire.render(request), "max_tokens", "stream"));
    deepEqual(Object.keys(sent?.body ?? {}).sort(), [
      "messages",
      "model",
      "output_config",
      "system",
      "thinking",
      "tools",
    ]);
    equal(n, fakeCountTokens(sent!.body!));
    ok(n! > 0);
    equal(wire.countProblem, undefined);
    equal(fake.requests.length, 0, "counting is not a model call");
    fake.assertNoViolations();
  });
});

Deno.test("count (messages): bearer auth; a forced tool sends tool_choice and no thinking", async () => {
  await withFake({ apiKey: "k2" }, async (fake) => {
    const wire = messagesWire(fakeEndpoint(fake, "messages", { api_key: "k2" }));
    const n = await wire.countTokens(req({ tools: [VIEW], force_tool: "view" }));
    const sent = fake.countRequests[0];
    equal(sent?.headers.authorization, "Bearer k2");
    equal(sent?.headers["x-api-key"], undefined);
    deepEqual(sent?.body?.tool_choice, { type: "tool", name: "view" });
    equal(sent?.body?.thinking, undefined);
    equal(n, fakeCountTokens(sent!.body!));
    fake.assertNoViolations();
  });
});

Deno.test("count (chat): vLLM /tokenize with the rendered messages, tools and template switch", async () => {
  await withFake({ apiKey: "k3" }, async (fake) => {
    const options = defaultWireOptions({ strict_tools: true, temperature: 0.2, max_tokens: 99 });
    const wire = chatWire(fakeEndpoint(fake, "chat_completions", { api_key: "k3" }), options);
    const request = req({ ...toolTurn, effort: "off", reminder: "recall: x" });
    const n = await wire.countTokens(request);
    const sent = fake.countRequests[0];
    equal(sent?.path, "/tokenize"); // at the server root, beside /v1
    equal(sent?.headers.authorization, "Bearer k3");
    const real = wire.render(request).body;
    deepEqual(sent?.body, {
      model: "default",
      messages: real.messages,
      tools: real.tools, // strict-normalized exactly as the real request sends them
      chat_template_kwargs: { enable_thinking: false },
      add_generation_prompt: true,
    });
    match(JSON.stringify(sent?.body?.messages), /recall: x/);
    equal(n, fakeTokenizeCount(sent!.body!));
    equal(wire.countProblem, undefined);
    equal(fake.requests.length, 0);
    fake.assertNoViolations();
  });
});

Deno.test("count (chat): no tools and no template switch send only model, messages and the flag", async () => {
  await withFake({}, async (fake) => {
    const wire = chatWire(fakeEndpoint(fake, "chat_completions"));
    const n = await wire.countTokens(req());
    deepEqual(fake.countRequests[0]?.body, {
      model: "default",
      messages: [{ role: "system", content: "sys" }, { role: "user", content: "hi" }],
      add_generation_prompt: true,
    });
    equal(fake.countRequests[0]?.headers.authorization, undefined); // no key, no header
    equal(n, fakeTokenizeCount(fake.countRequests[0]!.body!));
  });
});

for (const provider of ["messages", "chat_completions"] as const) {
  const make = (e: Endpoint) => provider === "messages" ? messagesWire(e) : chatWire(e);

  Deno.test(`count (${provider}): a 404 is null, silent, and never asked again`, async () => {
    await withFake({ countTokens: false, tokenize: false }, async (fake) => {
      const wire = make(fakeEndpoint(fake, provider));
      equal(await wire.countTokens(req()), null);
      equal(wire.countProblem, ABSENT_REASON);
      equal(await wire.countTokens(req()), null);
      equal(await wire.countTokens(req({ messages: [userText("again")] })), null);
      equal(fake.countRequests.length, 1, "the absent endpoint was asked once");
      equal(wire.countProblem, ABSENT_REASON);
      fake.assertNoViolations();
    });
  });

  Deno.test(`count (${provider}): a 405 counts as an absent endpoint too`, async () => {
    await withFake({}, async (fake) => {
      fake.enqueueCount(httpError(405, { detail: "Method Not Allowed" }));
      const wire = make(fakeEndpoint(fake, provider));
      equal(await wire.countTokens(req()), null);
      equal(await wire.countTokens(req()), null);
      equal(fake.countRequests.length, 1);
    });
  });

  Deno.test(`count (${provider}): a 500 is null with the status, and asked again later`, async () => {
    await withFake({}, async (fake) => {
      fake.enqueueCount(httpError(500, { error: { message: "tokenizer crashed" } }));
      const wire = make(fakeEndpoint(fake, provider));
      equal(await wire.countTokens(req()), null);
      equal(wire.countProblem, "HTTP 500: tokenizer crashed");
      const n = await wire.countTokens(req());
      ok(typeof n === "number" && n > 0, "a passing failure is not remembered");
      equal(wire.countProblem, undefined);
      equal(fake.countRequests.length, 2);
    });
  });

  Deno.test(`count (${provider}): a wrong key is null (401), not remembered`, async () => {
    await withFake({ apiKey: "right" }, async (fake) => {
      const wire = make(fakeEndpoint(fake, provider, { api_key: "wrong" }));
      equal(await wire.countTokens(req()), null);
      match(wire.countProblem ?? "", /^HTTP 401: /);
      equal(await wire.countTokens(req()), null);
      equal(fake.countRequests.length, 2);
    });
  });

  Deno.test(`count (${provider}): malformed answers are null`, async () => {
    await withFake({}, async (fake) => {
      fake.enqueueCount(
        httpError(200, "not json at all"),
        httpError(200, { tokens: [1, 2, 3] }),
        httpError(200, { input_tokens: "12", count: "12" }),
        httpError(200, { input_tokens: -1, count: -1 }),
        httpError(200, { input_tokens: 1.5, count: 1.5 }),
        httpError(200, [12]),
      );
      const wire = make(fakeEndpoint(fake, provider));
      for (let i = 0; i < 6; i++) {
        equal(await wire.countTokens(req()), null, `answer ${i}`);
        match(wire.countProblem ?? "", /the answer had no "(input_tokens|count)" number/);
      }
      ok((await wire.countTokens(req()) ?? 0) > 0, "the endpoint is still used afterwards");
    });
  });

  Deno.test(`count (${provider}): a refused connection is null`, async () => {
    const wire = make({ provider, base_url: refusedBase(), auth_style: "bearer" });
    equal(await wire.countTokens(req()), null);
    match(wire.countProblem ?? "", /^the server could not be reached/);
  });

  Deno.test(`count (${provider}): an abort rejects with the signal's reason`, async () => {
    await withFake({}, async (fake) => {
      const wire = make(fakeEndpoint(fake, provider));
      const stop = new Error("stop counting");
      await rejects(wire.countTokens(req(), AbortSignal.abort(stop)), (e) => e === stop);
      // WireRequest.signal is the default.
      await rejects(wire.countTokens(req({ signal: AbortSignal.abort(stop) })), (e) => e === stop);
    });
  });
}

Deno.test("count (chat): llama-server's /tokenize answering {tokens: []} is remembered as unusable", async () => {
  // llama-server's /tokenize reads only `content`; the chat-form body gets an empty list.
  await withFake({ dialect: "llama-server" }, async (fake) => {
    const wire = chatWire(fakeEndpoint(fake, "chat_completions"));
    equal(await wire.countTokens(req()), null);
    equal(wire.countProblem, UNUSABLE_REASON);
    equal(await wire.countTokens(req()), null);
    equal(fake.countRequests.length, 1, "not asked again on every /tokens");
  });
});
