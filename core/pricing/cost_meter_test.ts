import assert from "node:assert/strict";
import { CostMeter } from "./cost_meter.ts";

const prices = {
  messages: { "m-1": { input: 2, output: 10, cache_read: 0.2 } },
  chat_completions: { "c-1": { input: 1, output: 4 } },
};
const million = { input_tokens: 1_000_000, output_tokens: 1_000_000 };

function meter(enabled = true) {
  return new CostMeter({ enabled, provider: "messages", label: "hosted", prices });
}

Deno.test("the meter sums what the prompt cache saved, and resets it with the total", () => {
  const m = new CostMeter({
    enabled: true,
    provider: "messages",
    label: "hosted",
    prices: { messages: { "m-1": { input: 2, output: 10, cache_read: 0.2, cache_write: 2.5 } } },
  });
  // 1M written: $0.50 more than no cache; then 1M read: $1.80 less.
  m.add("m-1", { input_tokens: 0, output_tokens: 0, cache_write_tokens: 1e6 });
  assert.ok(Math.abs(m.cacheSaving! - -0.5) < 1e-9);
  m.add("m-1", { input_tokens: 0, output_tokens: 0, cache_read_tokens: 1e6 });
  assert.ok(Math.abs(m.cacheSaving! - 1.3) < 1e-9);
  m.add("mystery", million);
  assert.equal(m.cacheSaving, null);
  m.swapProvider("messages", "other");
  assert.equal(m.cacheSaving, 0);
});

Deno.test("the running total adds each priced turn; cache creation is charged as input", () => {
  const m = meter();
  assert.equal(m.total, 0);
  assert.equal(m.add("m-1", million), 12);
  assert.equal(
    m.add("M-1[1m]", { input_tokens: 0, output_tokens: 0, cache_write_tokens: 1e6 }),
    2,
  );
  assert.equal(m.total, 14);
  assert.equal(m.turns, 2);
});

Deno.test("an unpriced model makes the total unknown, never zero", () => {
  const m = meter();
  assert.equal(m.priced("mystery"), false);
  assert.equal(m.add("mystery", million), null);
  assert.equal(m.add("m-1", million), 12);
  assert.equal(m.total, null);
  assert.deepEqual(m.unpricedModels, ["mystery"]);
});

Deno.test("off counts nothing and resets; on starts from zero", () => {
  const m = meter();
  m.add("m-1", million);
  m.disable();
  assert.equal(m.enabled, false);
  assert.equal(m.add("m-1", million), null);
  assert.equal(m.total, 0);
  m.enable();
  assert.equal(m.total, 0);
  m.add("m-1", million);
  assert.equal(m.total, 12);
});

Deno.test("a provider swap resets the total and footnotes the prior one", () => {
  const m = meter();
  m.add("m-1", million);
  m.swapProvider("chat_completions", "local");
  assert.equal(m.total, 0);
  assert.equal(m.provider, "chat_completions");
  assert.deepEqual(m.footnotes, [{ provider: "messages", label: "hosted", usd: 12 }]);
  m.add("c-1", million);
  assert.equal(m.total, 5);
  // A swap with nothing counted leaves no footnote.
  m.swapProvider("messages", "hosted");
  m.swapProvider("chat_completions", "local");
  assert.equal(m.footnotes.length, 2);
  assert.deepEqual(m.footnotes[1], { provider: "chat_completions", label: "local", usd: 5 });
});

Deno.test("a fresh meter (a resumed session) starts at zero", () => {
  assert.equal(meter().total, 0);
  assert.equal(meter(false).total, 0);
  assert.equal(meter(false).enabled, false);
});
