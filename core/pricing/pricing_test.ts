import assert from "node:assert/strict";
import { costOf, formatCost, sanitizeModelId } from "./pricing.ts";

const prices = { messages: { "m-1": { input: 2, output: 10, cache_read: 0.2 } } };

Deno.test("cost uses input rate for cache creation and the cache-read rate for reads", () => {
  const cost = costOf("messages", "M-1[1m]", {
    input_tokens: 1_000_000,
    output_tokens: 100_000,
    cache_write_tokens: 500_000,
    cache_read_tokens: 1_000_000,
  }, prices);
  assert.equal(cost, 2 + 1 + 0.2 + 1);
});

Deno.test("a model missing from the table has no cost, never zero", () => {
  assert.equal(costOf("messages", "unknown", { input_tokens: 5, output_tokens: 5 }, prices), null);
  assert.equal(costOf("nope", "m-1", { input_tokens: 5, output_tokens: 5 }, prices), null);
  assert.equal(formatCost(null), "");
});

Deno.test("model ids are sanitized before lookup", () => {
  assert.equal(sanitizeModelId(" OpenAI/GPT-5 "), "gpt-5");
  assert.equal(sanitizeModelId("claude-sonnet-4-5[1m]"), "claude-sonnet-4-5");
});
