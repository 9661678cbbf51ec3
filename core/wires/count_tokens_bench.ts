// The client side of /tokens' server count on a long session (400 messages, ~250 kB of history):
// building the count body from the real render, beside the real render alone (baseline), and
// one whole countTokens() round trip to the in-process fake (HTTP + JSON both ways).
// Target: the count body costs little more than the render it is derived from.

import { startFakeModelServer } from "../../tests/fakes/model_server.ts";
import { defaultWireOptions, fakeEndpoint } from "../../tests/fakes/model_server_wiring.ts";
import { ChatCompletionsWire } from "./chat_completions.ts";
import { MessagesWire } from "./messages.ts";
import type { Message, WireRequest } from "./types.ts";

function longHistory(turns: number): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < turns; i++) {
    out.push({ role: "user", parts: [{ type: "text", text: `question ${i} `.repeat(40) }] });
    out.push({
      role: "assistant",
      parts: [
        { type: "text", text: `answer ${i} `.repeat(40) },
        { type: "tool_call", id: `toolu_${i}`, name: "view", input: { path: `f${i}.ts` } },
      ],
    });
    out.push({
      role: "user",
      parts: [{ type: "tool_result", call_id: `toolu_${i}`, content: "x".repeat(1500) }],
    });
    out.push({ role: "assistant", parts: [{ type: "text", text: "ok" }] });
  }
  return out;
}

const req: WireRequest = {
  model: "default",
  system: "You are a careful agent. ".repeat(200),
  messages: [
    ...longHistory(100),
    { role: "user", parts: [{ type: "text", text: "." }] },
  ],
  tools: [{
    name: "view",
    description: "Read a file",
    input_schema: { type: "object", properties: { path: { type: "string" } } },
  }],
};

const fake = await startFakeModelServer();
const endpoint = (p: "messages" | "chat_completions") => fakeEndpoint(fake, p);
const messages = new MessagesWire(endpoint("messages"), defaultWireOptions());
const chat = new ChatCompletionsWire(endpoint("chat_completions"), defaultWireOptions());

Deno.bench({
  name: "messages: render (baseline)",
  group: "count-body",
  baseline: true,
  fn() {
    messages.render(req);
  },
});

Deno.bench({
  name: "messages: count_tokens body",
  group: "count-body",
  fn() {
    messages.renderCount(req);
  },
});

Deno.bench({
  name: "chat: /tokenize body",
  group: "count-body",
  fn() {
    chat.renderCount(req);
  },
});

Deno.bench({
  name: "messages: countTokens round trip to the fake",
  group: "round-trip",
  n: 200,
  async fn() {
    if ((await messages.countTokens(req)) === null) throw new Error(messages.countProblem);
  },
});

Deno.bench({
  name: "chat: countTokens round trip to the fake (/tokenize)",
  group: "round-trip",
  n: 200,
  async fn() {
    if ((await chat.countTokens(req)) === null) throw new Error(chat.countProblem);
  },
});

globalThis.addEventListener("unload", () => {
  fake.close();
});
