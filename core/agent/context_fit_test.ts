import assert from "node:assert/strict";
import { overflowExcess, shedTokens } from "./context_fit.ts";
import { WireError } from "../wires/errors.ts";
import type { Message, Part } from "../wires/types.ts";

const overflow = (body: unknown) =>
  new WireError("400", {
    kind: "http",
    url: "http://x",
    retryable: false,
    status: 400,
    body: JSON.stringify(body),
  });

Deno.test("overflow excess: llama-server, vLLM and Messages wordings", () => {
  assert.equal(
    overflowExcess(overflow({
      error: {
        message: "request (12553 tokens) exceeds the available context size (12288 tokens)",
        type: "exceed_context_size_error",
        n_prompt_tokens: 12553,
        n_ctx: 12288,
      },
    })),
    265,
  );
  assert.equal(
    overflowExcess(overflow({
      error: {
        message: "This model's maximum context length is 32768 tokens. However, you requested " +
          "33000 tokens (32000 in the messages, 1000 in the completion).",
      },
    })),
    232,
  );
  assert.equal(
    overflowExcess(overflow({
      type: "error",
      error: { message: "prompt is too long: 208310 tokens > 200000 maximum" },
    })),
    8310,
  );
  assert.equal(overflowExcess(overflow({ error: { message: "context_length_exceeded" } })), null);
});

Deno.test("overflow excess: llama-server's error as the LiteLLM proxy passes it on", () => {
  // Captured from LiteLLM 1.106.2 in front of `llama-server -c 12288`
  // (tests/e2e/peers_litellm_cases.ts): on /v1/chat/completions the wording is in LiteLLM's
  // message, the numeric fields gone; on /v1/messages llama-server's JSON is inside the message
  // as an escaped string.
  const tail = "\nmodel=peer-small. context_window_fallbacks=None. fallbacks=None.";
  assert.equal(
    overflowExcess(overflow({
      error: {
        message: "litellm.ContextWindowExceededError: litellm.BadRequestError: " +
          "ContextWindowExceededError: OpenAIException - request (18109 tokens) exceeds the " +
          "available context size (12288 tokens), try increasing it" + tail,
        type: null,
        param: null,
        code: "400",
      },
    })),
    5821,
  );
  const inner = {
    error: {
      code: 400,
      message: "request (18109 tokens) exceeds the available context size (12288 tokens), " +
        "try increasing it",
      type: "exceed_context_size_error",
      n_prompt_tokens: 18109,
      n_ctx: 12288,
    },
  };
  assert.equal(
    overflowExcess(overflow({
      type: "error",
      error: {
        type: "invalid_request_error",
        message: "litellm.ContextWindowExceededError: litellm.BadRequestError: " +
          `ContextWindowExceededError: OpenAIException - ${JSON.stringify(inner)}${tail}`,
      },
    })),
    5821,
  );
});

Deno.test("shed tokens: the largest results are cut by enough characters, with a note", () => {
  const big = "b".repeat(20_000);
  const messages: Message[] = [{
    role: "user",
    parts: [
      { type: "tool_result", call_id: "1", content: "small" },
      { type: "tool_result", call_id: "2", content: big },
    ],
  }];
  assert.equal(shedTokens(messages, 1000, 12288), true);
  const [small, cut] = messages[0]!.parts as Extract<Part, { type: "tool_result" }>[];
  assert.equal(small!.content, "small");
  assert.ok(cut!.content.length <= 20_000 - 4000, `${cut!.content.length}`);
  assert.match(cut!.content, /\[cut: this tool result was 20000 characters/);
});
