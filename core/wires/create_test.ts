import { equal, ok } from "node:assert/strict";
import { ChatCompletionsWire } from "./chat_completions.ts";
import { createWire } from "./create.ts";
import { MessagesWire } from "./messages.ts";
import type { Endpoint } from "./types.ts";

const options = { thinking_type: "adaptive", strict_tools: false } as const;

Deno.test("createWire: picks the implementation from endpoint.provider", () => {
  const base: Endpoint = { provider: "messages", base_url: "http://h/v1", auth_style: "x-api-key" };
  const m = createWire(base, options);
  ok(m instanceof MessagesWire);
  equal(m.kind, "messages");
  equal((m as MessagesWire).url, "http://h/v1/messages");
  const c = createWire({ ...base, provider: "chat_completions" }, options);
  ok(c instanceof ChatCompletionsWire);
  equal((c as ChatCompletionsWire).url, "http://h/v1/chat/completions");
  equal(c.endpoint.base_url, "http://h/v1");
});

Deno.test("createWire: the injected fetch is used for every call", async () => {
  const seen: string[] = [];
  const fakeFetch: typeof fetch = (input) => {
    seen.push(String(input));
    return Promise.resolve(Response.json({ data: [{ id: "x" }] }));
  };
  const wire = createWire(
    { provider: "chat_completions", base_url: "http://h/v1", auth_style: "bearer" },
    options,
    fakeFetch,
  );
  equal((await wire.listModels())?.[0]?.id, "x");
  equal(seen[0], "http://h/v1/models");
});
