// The token budget is enforced before each request (budget.ts): a request that cannot fit is
// never sent, a sent one has its reply cap lowered to what is left, and the estimate after
// the first turn leans on the server's own count.

import assert from "node:assert/strict";
import { budgetGate, PromptEstimator, UNKNOWN_CAP_FLOOR } from "./budget.ts";
import { type LoopConfig, runLoop } from "./loop.ts";
import { call, ScriptedWire, text } from "../../tests/fakes/scripted_wire.ts";
import { workspaceTools } from "../tools/registry.ts";
import { testSandbox } from "../../tests/fakes/test_workspace.ts";

/** The real tool set; no test here runs a shell command (plan mode denies the one call). */
const WORKSPACE_TOOLS = workspaceTools(testSandbox("/nonexistent-workdir"));
import { requestTokens } from "../wires/token_estimate.ts";
import type { Message } from "../wires/types.ts";

const task = (t: string): Message[] => [{ role: "user", parts: [{ type: "text", text: t }] }];

async function workspace(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "budget-" }));
  await Deno.writeTextFile(`${dir}/a.txt`, "alpha\n");
  return dir;
}

function config(wire: ScriptedWire, workdir: string, extra: Partial<LoopConfig>): LoopConfig {
  return {
    wire,
    model: "default",
    system: "You are a test agent.",
    tools: WORKSPACE_TOOLS,
    mode: "auto",
    workdir,
    context_window: 32_768,
    ...extra,
  };
}

const specs = WORKSPACE_TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  input_schema: t.input_schema,
}));

Deno.test("budgetGate: no room for the prompt means no request; the cap is lowered, never raised", () => {
  const used = { input_tokens: 600, output_tokens: 100 };
  const refused = budgetGate(1000, used, 300, undefined);
  assert.equal(refused.send, false);
  assert.match(
    (refused as { error: string }).error,
    /token budget of 1000 reached: 700 used, and the next request's prompt alone is about 300 tokens/,
  );
  assert.deepEqual(budgetGate(1000, used, 200, undefined), { send: true, max_tokens: 100 });
  assert.deepEqual(budgetGate(1000, used, 200, 50), { send: true, max_tokens: undefined });
  // No cap known: lowered only below the floor every model accepts.
  assert.deepEqual(budgetGate(100_000, used, 200, undefined), {
    send: true,
    max_tokens: undefined,
  });
  assert.deepEqual(budgetGate(700 + 200 + UNKNOWN_CAP_FLOOR - 1, used, 200, undefined), {
    send: true,
    max_tokens: UNKNOWN_CAP_FLOOR - 1,
  });
  // A known cap above the floor is lowered whenever what is left is below it.
  assert.deepEqual(budgetGate(10_000, used, 200, 32_000), { send: true, max_tokens: 9_100 });
});

Deno.test("PromptEstimator: the whole request at first, then the server's count plus what was added", () => {
  const estimator = new PromptEstimator();
  const messages: Message[] = task("read a.txt");
  const req = { system: "sys", tools: specs, messages };
  assert.equal(estimator.estimate(req), requestTokens(req));
  messages.push({
    role: "assistant",
    parts: [{ type: "tool_call", id: "1", name: "view", input: { path: "a.txt" } }],
  });
  estimator.anchor({ input_tokens: 5000, output_tokens: 20, cache_read_tokens: 1000 }, messages);
  messages.push({
    role: "user",
    parts: [{ type: "tool_result", call_id: "1", content: "x".repeat(400) }],
  });
  assert.equal(estimator.estimate({ ...req, reminder: "y".repeat(40) }), 6020 + 100 + 10);
  estimator.reset();
  assert.equal(estimator.estimate(req), requestTokens(req));
});

Deno.test("a request whose prompt would not fit in what is left is never sent", async () => {
  const dir = await workspace();
  const wire = new ScriptedWire([
    { ...call("view", { path: "a.txt" }), usage: { input_tokens: 6000, output_tokens: 100 } },
    text("never asked for"),
  ]);
  const r = await runLoop(task("read a.txt"), config(wire, dir, { token_budget: 10_000 }));
  assert.equal(r.done_reason, "token_budget");
  // The next prompt holds at least the 6,100 tokens of the last one: 12,200 > 10,000.
  assert.equal(wire.requests.length, 1);
  assert.deepEqual(r.usage, { input_tokens: 6000, output_tokens: 100 });
  assert.match(r.error!, /token budget of 10000 reached: 6100 used/);
});

Deno.test("a budget smaller than the first prompt sends nothing at all", async () => {
  const dir = await workspace();
  const wire = new ScriptedWire([text("never asked for")]);
  const r = await runLoop(task("hi"), config(wire, dir, { token_budget: 20 }));
  assert.equal(r.done_reason, "token_budget");
  assert.equal(wire.requests.length, 0);
  assert.equal(r.turns, 0);
  assert.deepEqual(r.usage, { input_tokens: 0, output_tokens: 0 });
});

Deno.test("each sent request's reply cap is what the budget leaves after its prompt", async () => {
  const dir = await workspace();
  const wire = new ScriptedWire([
    { ...call("view", { path: "a.txt" }), usage: { input_tokens: 1000, output_tokens: 50 } },
    { ...text("alpha"), usage: { input_tokens: 1100, output_tokens: 5 } },
  ]);
  const r = await runLoop(task("read a.txt"), config(wire, dir, { token_budget: 3000 }));
  assert.equal(r.done_reason, "stop");
  assert.equal(wire.requests.length, 2);
  const first = requestTokens({
    system: "You are a test agent.",
    tools: specs,
    messages: task("read a.txt"),
  });
  assert.equal(wire.requests[0]!.max_tokens, 3000 - first);
  // Second: 1,050 used, and the prompt is the 1,050 counted plus the tool result.
  const second = wire.requests[1]!.max_tokens!;
  assert.ok(second > 0 && second <= 3000 - 1050 - 1050, String(second));
  assert.ok(r.usage.input_tokens + r.usage.output_tokens <= 3000);
});

Deno.test("a reply the budget's cap cut short ends with token_budget and its calls are not run", async () => {
  const dir = await workspace();
  const wire = new ScriptedWire([{
    ...call("create", { path: "b.txt", file_text: "half" }),
    stop_reason: "max_tokens",
  }]);
  const r = await runLoop(task("make b"), config(wire, dir, { token_budget: 3000 }));
  assert.equal(r.done_reason, "token_budget");
  assert.match(r.error!, /the reply was cut at the \d+ tokens left/);
  await assert.rejects(Deno.stat(`${dir}/b.txt`));
});

Deno.test("without a budget the request's cap is left alone", async () => {
  const dir = await workspace();
  const wire = new ScriptedWire([text("ok")]);
  await runLoop(task("hi"), config(wire, dir, { max_tokens: 777 }));
  assert.equal(wire.requests[0]!.max_tokens, 777);
});

Deno.test("a served model name echoing the default sentinel is not reported as the model", async () => {
  const dir = await workspace();
  const echoed = await runLoop(
    task("hi"),
    config(new ScriptedWire([{ ...text("ok"), model: "default" }]), dir, {}),
  );
  assert.equal(echoed.model, undefined);
  const named = await runLoop(
    task("hi"),
    config(new ScriptedWire([{ ...text("ok"), model: "qwen3-8b" }]), dir, {}),
  );
  assert.equal(named.model, "qwen3-8b");
});
