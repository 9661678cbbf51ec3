// The fake's prompt cache against the providers' documented rules (prompt_cache.ts), and the
// fake model server reporting it in each wire's own usage fields.

import { deepEqual, equal, ok } from "node:assert/strict";
import {
  AutomaticPromptCache,
  cachedTokens,
  MessagesPromptCache,
  MIN_CACHEABLE_TOKENS,
} from "./prompt_cache.ts";
import { reply, startFakeModelServer } from "./model_server.ts";
import {
  collectEvents,
  defaultWireOptions,
  doneEvent,
  fakeEndpoint,
} from "./model_server_wiring.ts";
import { createWire } from "../../core/wires/create.ts";

const EPHEMERAL = { type: "ephemeral" };
/** A text block of about `n` tokens (4 characters a token). */
const block = (n: number, mark = false, fill = "x") => ({
  type: "text",
  text: fill.repeat(n * 4 - 30),
  ...(mark ? { cache_control: EPHEMERAL } : {}),
});
const body = (system: unknown[], content: unknown[]) => ({
  model: "m",
  max_tokens: 10,
  system,
  messages: [{ role: "user", content }],
});

Deno.test("messages cache: a prefix under 1,024 tokens is never cached", () => {
  const cache = new MessagesPromptCache();
  const small = body([block(500, true)], [block(100, true)]);
  const first = cache.use(small);
  deepEqual([first.read, first.written], [0, 0]);
  deepEqual(cache.use(small), first);
});

Deno.test("messages cache: a breakpoint writes its prefix, the same prefix is read back", () => {
  const cache = new MessagesPromptCache();
  const first = cache.use(body([block(2000, true)], [block(300)]));
  equal(first.read, 0);
  ok(first.written >= 2000 && first.written < 2100, `${first.written}`);
  const second = cache.use(body([block(2000, true)], [block(300, false, "y")]));
  equal(second.read, first.written);
  equal(second.written, 0);
  // A changed system prompt shares nothing.
  equal(cache.use(body([block(2000, true, "z")], [block(300)])).read, 0);
});

Deno.test("messages cache: the lookback finds a write up to 20 blocks before a breakpoint, not 21", () => {
  for (const [later, found] of [[20, true], [21, false]] as const) {
    const cache = new MessagesPromptCache();
    const head = [block(1500, true)];
    cache.use(body([], head));
    const grown = [
      block(1500),
      ...Array.from({ length: later }, (_, i) => block(10, i === later - 1, `${i % 10}`)),
    ];
    const u = cache.use(body([], grown));
    equal(u.read > 0, found, `${later} blocks later`);
  }
});

Deno.test("messages cache: more than four breakpoints is refused", () => {
  const four = body([block(10, true), block(10, true)], [block(10, true), block(10, true)]);
  equal(MessagesPromptCache.check(four), null);
  const five = body([block(10, true), block(10, true)], [
    block(10, true),
    block(10, true),
    block(10, true),
  ]);
  equal(
    MessagesPromptCache.check(five),
    "A maximum of 4 blocks with cache_control may be provided. Found 5.",
  );
});

Deno.test("automatic cache: the common prefix counts in 128-token steps from 1,024", () => {
  equal(cachedTokens(1023, 5000), 0);
  equal(cachedTokens(1024, 5000), 1024);
  equal(cachedTokens(1151, 5000), 1024);
  equal(cachedTokens(1152, 5000), 1152);
  equal(cachedTokens(4000, 1000), 0, "a prompt under 1,024 tokens is not cached");
  const cache = new AutomaticPromptCache();
  const chat = (n: number) => ({
    messages: [{ role: "system", content: "s".repeat(n * 4) }, { role: "user", content: "q" }],
  });
  equal(cache.use(chat(3000)).read, 0);
  const again = cache.use(chat(3000));
  ok(again.read >= MIN_CACHEABLE_TOKENS && again.read % 128 === 0, `${again.read}`);
  ok(again.input < 128 + 20, `${again.input}`);
});

Deno.test("fake server: promptCache reports cache usage in each wire's own fields", async () => {
  // The wires read cache_read_input_tokens / cache_creation_input_tokens (Messages) and
  // prompt_tokens_details.cached_tokens (Chat Completions): what they see is what the fake sent.
  const fake = await startFakeModelServer({ promptCache: true });
  try {
    const system = "You are a careful assistant. ".repeat(400);
    for (const kind of ["messages", "chat_completions"] as const) {
      const wire = createWire(fakeEndpoint(fake, kind), defaultWireOptions());
      const req = {
        model: "default",
        system,
        messages: [{ role: "user" as const, parts: [{ type: "text" as const, text: "hi" }] }],
        tools: [],
      };
      fake.enqueue(reply().text("one"), reply().text("two"));
      const first = doneEvent(await collectEvents(wire.stream(req))).usage;
      const second = doneEvent(await collectEvents(wire.stream(req))).usage;
      equal(first.cache_read_tokens, 0, kind);
      ok(second.cache_read_tokens! >= 2000, `${kind}: ${JSON.stringify(second)}`);
      if (kind === "messages") {
        ok(first.cache_write_tokens! >= 2000, JSON.stringify(first));
        equal(second.cache_write_tokens, 0);
      } else equal(second.cache_write_tokens, undefined);
    }
    fake.assertNoViolations();
  } finally {
    await fake.close();
  }
});
