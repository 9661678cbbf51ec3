import assert from "node:assert/strict";
import {
  estimateTokens,
  formatTokens,
  renderTokenReport,
  tokenBreakdown,
} from "./interactive_tokens.ts";

Deno.test("the breakdown splits the memory index out of the system prompt", () => {
  const index = "## Memory\n" + "x".repeat(390);
  const system = "y".repeat(400) + "\n\n" + index;
  const b = tokenBreakdown({
    system,
    memoryIndex: index,
    tools: [{ name: "view", description: "d".repeat(80), input_schema: {} }],
    history: [
      { role: "user", parts: [{ type: "text", text: "a".repeat(40) }] },
      {
        role: "assistant",
        parts: [{ type: "tool_call", id: "1", name: "view", input: { path: "x" } }],
      },
      { role: "user", parts: [{ type: "tool_result", call_id: "1", content: "b".repeat(400) }] },
    ],
    contextWindow: 1000,
  });
  assert.equal(b.memoryIndex, 100);
  assert.equal(b.system, estimateTokens(system) - 100);
  assert.equal(b.history, 10 + estimateTokens('view{"path":"x"}') + 100);
  assert.equal(b.total, b.system + b.memoryIndex + b.tools + b.history);
  assert.equal(b.messages, 3);
});

Deno.test("an index no longer in the prompt (changed since) is not subtracted", () => {
  const b = tokenBreakdown({
    system: "s".repeat(40),
    memoryIndex: "other",
    tools: [],
    history: [],
    contextWindow: 10,
  });
  assert.equal(b.memoryIndex, 0);
  assert.equal(b.system, 10);
});

Deno.test("token counts read short", () => {
  assert.deepEqual([0, 950, 1200, 12_345, 65_536, 1_000_000, 1_500_000].map(formatTokens), [
    "0",
    "950",
    "1.2k",
    "12k",
    "66k",
    "1M",
    "1.5M",
  ]);
});

Deno.test("the report shows every component, the server's figures and the cost", () => {
  const lines = renderTokenReport({
    breakdown: {
      system: 100,
      memoryIndex: 20,
      tools: 300,
      history: 80,
      total: 500,
      messages: 2,
      contextWindow: 2000,
    },
    lastTurn: { input_tokens: 50, output_tokens: 7, cache_read_tokens: 400 },
    session: { input_tokens: 900, output_tokens: 30 },
    cost: "$0.0100 on local",
    footnotes: ["* before the swap: $0.20 on hosted"],
  });
  assert.deepEqual(lines.slice(0, 6), [
    "Context (estimated at ~4 characters per token):",
    "  system prompt        100",
    "  memory index          20",
    "  tools                300",
    "  history               80  (2 messages)",
    "  total                500  of 2,000 (25%)",
  ]);
  assert.match(lines.join("\n"), /Last turn \(server\): prompt 450 \(400 cached\) · output 7/);
  assert.match(lines.join("\n"), /Session: input 900 · output 30/);
  assert.ok(lines.join("\n").includes("Running cost: $0.0100 on local\n  * before the swap"));
});
