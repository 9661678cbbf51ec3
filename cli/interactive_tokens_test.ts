import assert from "node:assert/strict";
import { FakeClock } from "../tests/fakes/clock.ts";
import { ScriptedWire } from "../tests/fakes/scripted_wire.ts";
import type { Message } from "../core/wires/types.ts";
import {
  COUNT_TIMEOUT_MS,
  countPrompt,
  estimateTokens,
  formatTokens,
  NEXT_MESSAGE_PLACEHOLDER,
  promptForCount,
  renderTokenReport,
  type TokenBreakdown,
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
    "Context by component (estimates at ~4 characters per token):",
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

Deno.test("the report says what the prompt cache read and wrote, this turn and this session", () => {
  const lines = renderTokenReport({
    breakdown: BREAKDOWN,
    lastTurn: {
      input_tokens: 50,
      output_tokens: 7,
      cache_read_tokens: 400,
      cache_write_tokens: 30,
    },
    session: {
      input_tokens: 100,
      output_tokens: 9,
      cache_read_tokens: 800,
      cache_write_tokens: 100,
    },
  }).join("\n");
  assert.match(lines, /Last turn \(server\): prompt 480 \(400 cached, 30 written\) · output 7/);
  assert.match(lines, /Session: input 1,000 · output 9/);
  assert.match(
    lines,
    /Prompt cache: 80% of the session's prompt tokens read from the cache \(800 read, 100 written\)/,
  );
  // No cache use reported: no line about it.
  const none = renderTokenReport({ breakdown: BREAKDOWN, session: SESSION }).join("\n");
  assert.ok(!none.includes("Prompt cache"));
});

const BREAKDOWN: TokenBreakdown = {
  system: 100,
  memoryIndex: 0,
  tools: 300,
  history: 80,
  total: 480,
  messages: 2,
  contextWindow: 2000,
};
const SESSION = { input_tokens: 0, output_tokens: 0 };

Deno.test("the report shows the server's count of the whole prompt under the estimates", () => {
  const lines = renderTokenReport({
    breakdown: BREAKDOWN,
    serverCount: { tokens: 1234 },
    session: SESSION,
  });
  assert.match(lines[0]!, /estimates/);
  assert.match(lines[5]!, /^ {2}total/);
  assert.equal(lines[6], "Counted by the server: 1,234 tokens (whole prompt, 62% of 2,000)");
});

Deno.test("the report says why the server's count is missing", () => {
  const lines = renderTokenReport({
    breakdown: { ...BREAKDOWN, contextWindow: 0 },
    serverCount: { tokens: null, reason: "the server has no token-counting endpoint" },
    session: SESSION,
  });
  assert.equal(
    lines[6],
    "Counted by the server: not available (the server has no token-counting endpoint)",
  );
  const unasked = renderTokenReport({ breakdown: BREAKDOWN, session: SESSION });
  assert.ok(!unasked.join("\n").includes("Counted by the server"));
});

const said = (role: Message["role"], text: string): Message => ({
  role,
  parts: [{ type: "text", text }],
});

Deno.test("the counted prompt is the next request's: a user turn stands in for the next message", () => {
  const tools = [{ name: "view", description: "d", input_schema: {} }];
  const base = { model: "m", system: "sys", tools };
  const after = promptForCount({
    ...base,
    history: [said("user", "q"), said("assistant", "a")],
    effort: "high",
  });
  assert.deepEqual(after, {
    model: "m",
    system: "sys",
    tools,
    effort: "high",
    messages: [said("user", "q"), said("assistant", "a"), said("user", NEXT_MESSAGE_PLACEHOLDER)],
  });
  assert.deepEqual(promptForCount({ ...base, history: [] }).messages, [
    said("user", NEXT_MESSAGE_PLACEHOLDER),
  ]);
  const pending = [said("user", "q")];
  const asIs = promptForCount({ ...base, history: pending });
  assert.deepEqual(asIs.messages, pending);
  assert.equal("effort" in asIs, false);
});

Deno.test("countPrompt: a number, or null with the wire's reason", async () => {
  const clock = new FakeClock();
  const wire = new ScriptedWire([]);
  const req = promptForCount({ model: "m", system: "s", tools: [], history: [] });
  wire.count = 4321;
  assert.deepEqual(await countPrompt(wire, req, { clock }), { tokens: 4321 });
  assert.deepEqual(wire.countRequests[0]?.messages, req.messages);
  wire.count = null;
  wire.problem = "HTTP 500: down";
  assert.deepEqual(await countPrompt(wire, req, { clock }), {
    tokens: null,
    reason: "HTTP 500: down",
  });
  wire.count = () => Promise.reject(new Error("render failed: bad effort"));
  assert.deepEqual(await countPrompt(wire, req, { clock }), {
    tokens: null,
    reason: "render failed: bad effort",
  });
  assert.equal(clock.pending, 0, "the timeout timer is stopped once the count is in");
});

Deno.test("countPrompt: gives up after the timeout even if the wire ignores the abort", async () => {
  const clock = new FakeClock();
  const wire = new ScriptedWire([]);
  let seen: AbortSignal | undefined;
  wire.count = (_req, signal) => {
    seen = signal;
    return new Promise(() => {/* never answers, ignores the signal */});
  };
  const req = promptForCount({ model: "m", system: "s", tools: [], history: [] });
  const counting = countPrompt(wire, req, { clock });
  await clock.advance(COUNT_TIMEOUT_MS - 1);
  assert.equal(seen?.aborted, false);
  await clock.advance(1);
  assert.deepEqual(await counting, { tokens: null, reason: "no answer within 5 s" });
  assert.equal(seen?.aborted, true, "the wire's request was aborted too");
});

Deno.test("countPrompt: ctrl+c (the caller's signal) interrupts the count", async () => {
  const clock = new FakeClock();
  const wire = new ScriptedWire([]);
  wire.count = (_req, signal) =>
    new Promise((_, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
  const stop = new AbortController();
  const req = promptForCount({ model: "m", system: "s", tools: [], history: [] });
  const counting = countPrompt(wire, req, { clock, signal: stop.signal });
  stop.abort(new Error("interrupted"));
  assert.deepEqual(await counting, { tokens: null, reason: "interrupted" });
  assert.equal(clock.pending, 0);
});
