import assert from "node:assert/strict";
import { parseHeadlessResult } from "./headless_result.ts";

const full = {
  outcome: "needs_human",
  exit_code: 2,
  done_reason: "needs_human",
  session_id: "s-1",
  model: "qwen3",
  usage: {
    input_tokens: 1000,
    output_tokens: 50,
    cache_read_tokens: 9000,
    cache_write_tokens: 400,
  },
  cost_usd: null,
  final_text: "stopped",
  questions: [{ kind: "plan", text: "Apply the plan?", options: ["yes", 3, "no"] }, {
    kind: "question",
  }],
  duration_ms: 10,
};

Deno.test("the printed HeadlessResult is read back; malformed questions are dropped", () => {
  assert.deepEqual(parseHeadlessResult(JSON.stringify(full)), {
    session_id: "s-1",
    tokens_in: 1000,
    tokens_out: 50,
    cache_read_tokens: 9000,
    cache_write_tokens: 400,
    cost_usd: null,
    model: "qwen3",
    duration_ms: 10,
    done_reason: "needs_human",
    stop_reason: null,
    questions: [{ kind: "plan", text: "Apply the plan?", options: ["yes", "no"] }],
    error: null,
    setup_error: false,
    final_text: "stopped",
  });
});

Deno.test("chatter before the object is tolerated; the last JSON line wins", () => {
  const out = 'warming up\n{"partial": \n' + JSON.stringify({ ...full, session_id: "s-2" }) + "\n";
  assert.equal(parseHeadlessResult(out)!.session_id, "s-2");
});

Deno.test("nothing usable gives null; odd field types degrade to nulls", () => {
  assert.equal(parseHeadlessResult(""), null);
  assert.equal(parseHeadlessResult("[1,2]"), null);
  assert.equal(parseHeadlessResult("Traceback: boom"), null);
  const odd = parseHeadlessResult(
    JSON.stringify({
      usage: {
        input_tokens: -5,
        output_tokens: "9",
        cache_read_tokens: "1",
        cache_write_tokens: -2,
      },
      cost_usd: "1",
    }),
  )!;
  assert.equal(odd.tokens_in, null);
  assert.equal(odd.cache_read_tokens, null);
  assert.equal(odd.cache_write_tokens, null);
  assert.equal(odd.tokens_out, null);
  assert.equal(odd.cost_usd, null);
  assert.equal(odd.done_reason, null);
  assert.equal(odd.stop_reason, null);
  assert.deepEqual(odd.questions, []);
});

Deno.test("a truncated answer's done and stop reason are read back", () => {
  const r = parseHeadlessResult(JSON.stringify({
    ...full,
    outcome: "error",
    exit_code: 1,
    done_reason: "truncated",
    stop_reason: "max_tokens",
  }))!;
  assert.equal(r.done_reason, "truncated");
  assert.equal(r.stop_reason, "max_tokens");
});
