import assert from "node:assert/strict";
import type { DoneReason } from "../agent/types.ts";
import { envFrom } from "../ports.ts";
import type { Message } from "../wires/types.ts";
import {
  reflect,
  REFLECTION_REQUEST,
  REFLECTION_TIMEOUT_HEADLESS_MS,
  REFLECTION_TIMEOUT_INTERACTIVE_MS,
  reflectionMessages,
  type ReflectionRunner,
} from "./reflection.ts";
import { BOUNDED_PASS_MAX_TOOL_CALLS } from "./limits.ts";
import { FakeClock, flushMicrotasks } from "../../tests/fakes/clock.ts";
import { sandbox } from "../../tests/fixtures/memory/sandbox.ts";

const ctx = (signal: AbortSignal) => ({ workdir: "/w", signal });

function transcript(): Message[] {
  return [
    { role: "user", parts: [{ type: "text", text: "I always want tabs, never spaces." }] },
    {
      role: "assistant",
      parts: [
        { type: "reasoning", text: "noted", signature: "sig" },
        { type: "tool_call", id: "c1", name: "shell", input: { cmd: "ls" } },
      ],
    },
    { role: "user", parts: [{ type: "tool_result", call_id: "c1", content: "a b" }] },
    { role: "assistant", parts: [{ type: "text", text: "Done." }] },
  ];
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === "object") {
    for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
    Object.freeze(v);
  }
  return v;
}

Deno.test("reflection: timeouts are exported (interactive ~20 s, headless ~90 s)", () => {
  assert.equal(REFLECTION_TIMEOUT_INTERACTIVE_MS, 20_000);
  assert.equal(REFLECTION_TIMEOUT_HEADLESS_MS, 90_000);
});

Deno.test("reflection: skipped for every non-stop done reason", async () => {
  const sb = await sandbox();
  try {
    const reasons: DoneReason[] = [
      "error",
      "token_budget",
      "turn_cap",
      "loop_detected",
      "needs_human",
    ];
    for (const doneReason of reasons) {
      let called = false;
      const r = await reflect({
        transcript: transcript(),
        doneReason,
        memory: sb.store,
        run: () => {
          called = true;
          return Promise.resolve();
        },
        timeoutMs: 1000,
        clock: sb.clock,
      });
      assert.equal(r.ran, false, doneReason);
      assert.equal(r.skipped, `the run ended with done_reason ${doneReason}`);
      assert.equal(called, false);
    }
    // force (/memory) runs whatever the reason.
    let ran = 0;
    const r = await reflect({
      transcript: transcript(),
      doneReason: "turn_cap",
      memory: sb.store,
      run: () => Promise.resolve(void ran++),
      timeoutMs: 1000,
      clock: sb.clock,
      force: true,
    });
    assert.equal(r.ran, true);
    assert.equal(ran, 1);
    assert.equal(sb.clock.pending, 0, "the timeout timer was cancelled");
  } finally {
    await sb.cleanup();
  }
});

Deno.test("reflection: one turn over the live memory tool with the transcript in context", async () => {
  const sb = await sandbox({ workspace: "/repo" });
  try {
    sb.store.create(
      "/memories/preferences/indent.md",
      "---\ncategory: preference\n---\n# Indentation\nspaces\n",
    );
    const input = deepFreeze(transcript());
    const snapshot = JSON.stringify(input);
    let seen: Parameters<ReflectionRunner>[0] | undefined;
    const r = await reflect({
      transcript: input,
      doneReason: "stop",
      memory: sb.store,
      clock: sb.clock,
      timeoutMs: REFLECTION_TIMEOUT_HEADLESS_MS,
      env: envFrom({ AGENT_JOB_ID: "7", AGENT_JOB_NAME: "nightly" }),
      run: async (inp) => {
        seen = inp;
        // The model updates the existing file through the tool it was given.
        const out = await inp.tools[0]!.execute(
          {
            command: "str_replace",
            path: "/memories/preferences/indent.md",
            old_str: "spaces",
            new_str: "tabs",
          },
          ctx(inp.signal),
        );
        assert.equal(out.type === "result" && out.is_error, undefined);
        // Mutating what the runner got must not reach the caller's transcript.
        inp.messages[0]!.parts.push({ type: "text", text: "runner scribble" });
      },
    });
    assert.deepEqual(r, { ran: true, tool_calls: 1 });
    assert.equal(JSON.stringify(input), snapshot, "the transcript was not mutated");
    assert.ok(seen);
    assert.match(seen.system, /memory reflection pass/);
    assert.match(seen.system, /Writing nothing is the right outcome/);
    assert.match(seen.system, /prefer updating an existing file/i);
    assert.match(seen.system, /\/memories\/preferences\/indent\.md — Indentation/);
    assert.match(seen.system, /scheduled job nightly \(id 7\)/);
    assert.equal(seen.tools.length, 1);
    assert.equal(seen.tools[0]?.name, "memory");
    assert.equal(seen.messages.length, 5);
    assert.deepEqual(seen.messages.at(-1), {
      role: "user",
      parts: [{ type: "text", text: REFLECTION_REQUEST }],
    });
    assert.match(Deno.readTextFileSync(`${sb.root}/preferences/indent.md`), /tabs/);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("reflection: bounded — a runner that never finishes is aborted at the timeout", async () => {
  const sb = await sandbox();
  try {
    const clock = new FakeClock("2026-03-01T00:00:00Z");
    let runnerSignal: AbortSignal | undefined;
    let tool: Parameters<ReflectionRunner>[0]["tools"][0] | undefined;
    const pending = reflect({
      transcript: transcript(),
      doneReason: "stop",
      memory: sb.store,
      clock,
      timeoutMs: REFLECTION_TIMEOUT_HEADLESS_MS,
      run: (inp) => {
        runnerSignal = inp.signal;
        tool = inp.tools[0];
        return new Promise(() => {}); // hangs forever, ignoring the signal
      },
    });
    await flushMicrotasks();
    assert.equal(clock.pending, 1, "the timeout is armed on the injected clock");
    await clock.advance(REFLECTION_TIMEOUT_HEADLESS_MS - 1);
    assert.equal(runnerSignal?.aborted, false);
    await clock.advance(1);
    const r = await pending;
    assert.deepEqual(r, { ran: true, timed_out: true, tool_calls: 0 });
    assert.equal(runnerSignal?.aborted, true);
    assert.equal((runnerSignal?.reason as DOMException).name, "TimeoutError");
    // The runner is still alive, but the memory tool it holds is now closed.
    const late = await tool!.execute(
      { command: "create", path: "/memories/late.md", file_text: "x" },
      ctx(new AbortController().signal),
    );
    assert.equal(late.type === "result" && late.is_error, true);
    assert.match(late.type === "result" ? late.content : "", /pass has ended/);
    assert.throws(() => Deno.statSync(`${sb.root}/late.md`), Deno.errors.NotFound);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("reflection: an external signal (second ctrl+c) aborts the pass", async () => {
  const sb = await sandbox();
  try {
    const ac = new AbortController();
    let runnerSignal: AbortSignal | undefined;
    const pending = reflect({
      transcript: transcript(),
      doneReason: "stop",
      memory: sb.store,
      clock: sb.clock,
      timeoutMs: REFLECTION_TIMEOUT_INTERACTIVE_MS,
      signal: ac.signal,
      run: (inp) => {
        runnerSignal = inp.signal;
        return new Promise(() => {});
      },
    });
    await flushMicrotasks();
    ac.abort(new Error("second ctrl+c"));
    const r = await pending;
    assert.equal(r.aborted, true);
    assert.equal(r.timed_out, undefined);
    assert.equal(runnerSignal?.aborted, true);
    assert.equal(sb.clock.pending, 0, "the timeout timer was cancelled");

    // Already aborted: skipped without calling the runner.
    const again = await reflect({
      transcript: transcript(),
      doneReason: "stop",
      memory: sb.store,
      clock: sb.clock,
      timeoutMs: 1,
      signal: ac.signal,
      run: () => Promise.reject(new Error("must not run")),
    });
    assert.deepEqual(again, { ran: false, skipped: "aborted before it started" });
  } finally {
    await sb.cleanup();
  }
});

Deno.test("reflection: runner failures, empty transcripts and the call budget", async () => {
  const sb = await sandbox();
  try {
    const failed = await reflect({
      transcript: transcript(),
      doneReason: "stop",
      memory: sb.store,
      clock: sb.clock,
      timeoutMs: 1000,
      run: () => Promise.reject(new TypeError("model server unreachable")),
    });
    assert.equal(failed.ran, true);
    assert.equal(failed.error, "TypeError: model server unreachable");

    const empty = await reflect({
      transcript: [],
      doneReason: "stop",
      memory: sb.store,
      clock: sb.clock,
      timeoutMs: 1000,
      run: () => Promise.reject(new Error("must not run")),
    });
    assert.deepEqual(empty, { ran: false, skipped: "the transcript is empty" });

    const r = await reflect({
      transcript: transcript(),
      doneReason: "stop",
      memory: sb.store,
      clock: sb.clock,
      timeoutMs: 1000,
      run: async (inp) => {
        for (let i = 0; i < BOUNDED_PASS_MAX_TOOL_CALLS + 3; i++) {
          const out = await inp.tools[0]!.execute(
            { command: "view", path: "/memories" },
            ctx(inp.signal),
          );
          if (i >= BOUNDED_PASS_MAX_TOOL_CALLS) {
            assert.match(out.type === "result" ? out.content : "", /used its 24 memory calls/);
          }
        }
      },
    });
    assert.equal(r.tool_calls, BOUNDED_PASS_MAX_TOOL_CALLS);
  } finally {
    await sb.cleanup();
  }
});

Deno.test("reflection: a dangling tool call gets a result in the copy only", () => {
  const input = deepFreeze<Message[]>([
    { role: "user", parts: [{ type: "text", text: "hi" }] },
    { role: "assistant", parts: [{ type: "tool_call", id: "x9", name: "shell", input: {} }] },
  ]);
  const out = reflectionMessages(input, "reflect now");
  assert.equal(input.length, 2);
  assert.deepEqual(out.at(-1), {
    role: "user",
    parts: [
      {
        type: "tool_result",
        call_id: "x9",
        content: "Not run: the session ended.",
        is_error: true,
      },
      { type: "text", text: "reflect now" },
    ],
  });
  // A transcript ending on a user turn gets the request appended to that turn (a copy).
  const userLast = deepFreeze<Message[]>([{ role: "user", parts: [{ type: "text", text: "q" }] }]);
  const out2 = reflectionMessages(userLast, "reflect now");
  assert.equal(out2.length, 1);
  assert.equal(out2[0]?.parts.length, 2);
  assert.equal(userLast[0]?.parts.length, 1);
});

Deno.test("reflection: a broken memory index does not stop the pass", async () => {
  const sb = await sandbox();
  try {
    let system = "";
    const r = await reflect({
      transcript: transcript(),
      doneReason: "stop",
      memory: {
        tool: () => sb.store.tool(),
        cachedIndex: () => {
          throw new Error("disk on fire");
        },
      },
      clock: sb.clock,
      timeoutMs: 1000,
      run: (inp) => Promise.resolve(void (system = inp.system)),
    });
    assert.equal(r.ran, true);
    assert.match(system, /memory index could not be read: disk on fire/);
  } finally {
    await sb.cleanup();
  }
});
