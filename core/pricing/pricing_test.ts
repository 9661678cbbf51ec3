import assert from "node:assert/strict";
import { cacheSavingOf, costOf, formatCost, rateFor, sanitizeModelId } from "./pricing.ts";

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

Deno.test("cache writes are charged at the table's cache_write rate when it has one", () => {
  const withWrite = {
    messages: { "m-1": { input: 2, output: 10, cache_read: 0.2, cache_write: 2.5 } },
  };
  const usage = { input_tokens: 0, output_tokens: 0, cache_write_tokens: 1_000_000 };
  assert.equal(costOf("messages", "m-1", usage, withWrite), 2.5);
});

Deno.test("the shipped table prices Messages cache writes at 1.25x input, reads at 0.1x", () => {
  for (const model of ["claude-opus-4-5", "claude-sonnet-4-5", "claude-haiku-4-5"]) {
    const rate = rateFor("messages", model)!;
    assert.ok(Math.abs(rate.cache_write! - rate.input * 1.25) < 1e-9, model);
    assert.ok(Math.abs(rate.cache_read! - rate.input * 0.1) < 1e-9, model);
  }
});

Deno.test("the cache saving is the uncached cost minus the billed one; null when unpriced", () => {
  const withWrite = {
    messages: { "m-1": { input: 2, output: 10, cache_read: 0.2, cache_write: 2.5 } },
  };
  const usage = {
    input_tokens: 1_000_000,
    output_tokens: 0,
    cache_read_tokens: 9_000_000,
    cache_write_tokens: 1_000_000,
  };
  // Uncached: 11M at $2 = $22. Billed: $2 + 9 × $0.2 + $2.5 = $6.3.
  assert.ok(Math.abs(cacheSavingOf("messages", "m-1", usage, withWrite)! - 15.7) < 1e-9);
  // A write never read back costs more than no cache at all.
  const wrote = { input_tokens: 0, output_tokens: 0, cache_write_tokens: 1_000_000 };
  assert.ok(Math.abs(cacheSavingOf("messages", "m-1", wrote, withWrite)! - -0.5) < 1e-9);
  assert.equal(cacheSavingOf("messages", "nope", usage, withWrite), null);
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
