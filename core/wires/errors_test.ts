import { equal, ok } from "node:assert/strict";
import { httpError, type HttpFailure, isContextOverflow, isUnknownModel } from "./errors.ts";
import type { Endpoint } from "./types.ts";

const endpoint: Endpoint = {
  provider: "messages",
  base_url: "http://127.0.0.1:4000",
  auth_style: "bearer",
};

function failure(extra: Partial<HttpFailure>): HttpFailure {
  return {
    wire: "messages",
    endpoint,
    url: "http://127.0.0.1:4000/v1/messages",
    status: 400,
    bodyText: "",
    keySent: true,
    attempts: 1,
    ...extra,
  };
}

Deno.test("http error: a server message ending in a full stop gets no second one", () => {
  const err = httpError(failure({
    status: 429,
    bodyText: JSON.stringify({ error: { message: "Rate limit exceeded, retry attempted." } }),
    attempts: 4,
  }));
  ok(!err.message.includes(".."), err.message);
  ok(err.message.includes("attempted. Gave up after 4 attempts"), err.message);
});

Deno.test("http error: a 400 naming reasoning_effort points at thinking.type", () => {
  const err = httpError(failure({
    bodyText: JSON.stringify({
      error: {
        message: "litellm.BadRequestError: OpenAIException - Unrecognized request argument " +
          "supplied: reasoning_effort",
      },
    }),
  }));
  ok(err.message.includes('thinking.type = "disabled"'), err.message);
});

Deno.test("http error: a 400 naming budget_tokens points at thinking.type, not sampling", () => {
  const err = httpError(failure({
    bodyText: JSON.stringify({ error: { message: "budget_tokens: Extra inputs" } }),
  }));
  ok(err.message.includes('thinking.type = "adaptive"'), err.message);
});

Deno.test("context overflow: llama-server, vLLM, OpenAI and Messages wordings", () => {
  const bodies = [
    {
      error: {
        code: 400,
        message: "the request exceeds the available context size, try increasing it",
        type: "exceed_context_size_error",
        n_prompt_tokens: 13000,
        n_ctx: 12288,
      },
    },
    {
      error: {
        message: "This model's maximum context length is 32768 tokens. However, you requested " +
          "40000 tokens. Please reduce the length of the messages or completion.",
        type: "BadRequestError",
        code: 400,
      },
    },
    { error: { message: "too long", code: "context_length_exceeded" } },
    { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } },
  ];
  for (const body of bodies) {
    ok(isContextOverflow(httpError(failure({ bodyText: JSON.stringify(body) }))));
  }
  equal(isContextOverflow(httpError(failure({ bodyText: '{"error":{"message":"nope"}}' }))), false);
  equal(
    isContextOverflow(httpError(failure({ status: 500, bodyText: "context_length_exceeded" }))),
    false,
  );
});

Deno.test("unknown model: LiteLLM's and vLLM's wordings", () => {
  ok(isUnknownModel(httpError(failure({
    bodyText: JSON.stringify({
      error: { message: "/v1/messages: Invalid model name passed in model=default." },
    }),
  }))));
  ok(isUnknownModel(httpError(failure({
    status: 404,
    bodyText: JSON.stringify({ error: { message: "The model `default` does not exist." } }),
  }))));
  equal(isUnknownModel(httpError(failure({ bodyText: '{"error":{"message":"bad"}}' }))), false);
});

Deno.test("http error: LiteLLM's 400 No connected db is explained as a key problem", () => {
  const err = httpError(failure({
    bodyText: JSON.stringify({ error: { message: "No connected db.", type: "no_db_connection" } }),
  }));
  ok(err.message.includes("No connected db. A LiteLLM proxy"), err.message);
  ok(err.message.includes("check the API key"), err.message);
});
