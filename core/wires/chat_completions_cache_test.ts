// Prompt caching on the Chat Completions wire: the provider caches the longest common prefix
// of a session's requests by itself, so what the wire controls is that prefix's stability and
// the routing key hosted OpenAI documents (prompt_cache_key).

import { deepEqual, equal, ok } from "node:assert/strict";
import { renderChatRequest } from "./chat_completions_render.ts";
import type { Message, ToolSpec, WireOptions, WireRequest } from "./types.ts";

const backend = { wire: "chat_completions", tier: "self_hosted" } as const;
const opts: WireOptions = { thinking_type: "adaptive", strict_tools: false };
const TOOLS: ToolSpec[] = [
  {
    name: "view",
    description: "Read a file.",
    input_schema: {
      type: "object",
      properties: { path: { type: "string" }, view_range: { type: "array" } },
      required: ["path"],
    },
  },
  { name: "shell", description: "Run a command.", input_schema: { type: "object" } },
];

const req = (messages: Message[], extra: Partial<WireRequest> = {}): WireRequest => ({
  model: "m",
  system: "You are terse.",
  messages,
  tools: TOOLS,
  ...extra,
});

/** A session after `turns` tool rounds. */
function session(turns: number): Message[] {
  const messages: Message[] = [{ role: "user", parts: [{ type: "text", text: "go" }] }];
  for (let i = 0; i < turns; i++) {
    messages.push({
      role: "assistant",
      parts: [{
        type: "tool_call",
        id: `c${i}`,
        name: "view",
        input: { view_range: [1, 9], path: `f${i}` },
      }],
    });
    messages.push({
      role: "user",
      parts: [{ type: "tool_result", call_id: `c${i}`, content: `body ${i}` }],
    });
  }
  return messages;
}

Deno.test("chat cache: prompt_cache_key goes to hosted OpenAI only", () => {
  const key = { cache_key: "20261128-061500-abcd" };
  const body = (base: string, extra: Partial<WireRequest> = key) =>
    renderChatRequest(req(session(1), extra), opts, backend, base).body;
  equal(body("https://api.openai.com/v1").prompt_cache_key, "20261128-061500-abcd");
  equal(body("https://API.OpenAI.com/v1").prompt_cache_key, "20261128-061500-abcd");
  // Not documented elsewhere: a strict server (Azure, a gateway) may refuse an unknown field.
  for (
    const base of [
      "http://127.0.0.1:8080/v1",
      "https://x.openai.azure.com/openai/v1",
      "https://api.openai.com.evil.example/v1",
    ]
  ) {
    ok(!("prompt_cache_key" in body(base)), base);
  }
  ok(!("prompt_cache_key" in body("https://api.openai.com/v1", {})), "no key, no field");
});

Deno.test("chat cache: each turn repeats the previous turn's prompt byte for byte", () => {
  for (const strict of [false, true]) {
    const o = { ...opts, strict_tools: strict };
    let previous: Record<string, unknown> | undefined;
    for (let turns = 0; turns <= 6; turns++) {
      // The reminder (memory recall) rides on the newest user turn and only there.
      const body =
        renderChatRequest(req(session(turns), { reminder: "recall" }), o, backend, "http://h/v1")
          .body;
      const messages = body.messages as unknown[];
      if (previous) {
        equal(JSON.stringify(body.tools), JSON.stringify(previous.tools));
        const before = previous.messages as unknown[];
        // All of the previous prompt but its newest user turn (which carried the reminder) is
        // sent again unchanged; after a tool round the reminder is a message of its own.
        const stable = before.slice(0, -1);
        equal(JSON.stringify(messages.slice(0, stable.length)), JSON.stringify(stable));
        ok(JSON.stringify(before.at(-1)).includes("recall"));
        if (turns > 1) deepEqual(before.at(-1), { role: "user", content: "recall" });
      }
      previous = body;
    }
  }
});

Deno.test("chat cache: no cache_prompt field: llama-server's own default (on) stays", () => {
  const body = renderChatRequest(req(session(2)), opts, backend, "http://127.0.0.1:8080/v1").body;
  ok(!("cache_prompt" in body));
});
