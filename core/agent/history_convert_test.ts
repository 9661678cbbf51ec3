import assert from "node:assert/strict";
import type { Message } from "../wires/types.ts";
import {
  appendUserText,
  convertHistoryForWire,
  INTERRUPTED_RESULT,
  repairHistory,
} from "./history_convert.ts";

const user = (text: string): Message => ({ role: "user", parts: [{ type: "text", text }] });

const signedTurn: Message = {
  role: "assistant",
  parts: [
    { type: "reasoning", text: "think", signature: "sig-1" },
    { type: "redacted_reasoning", data: "opaque" },
    { type: "text", text: "hello" },
  ],
};

Deno.test("a swap drops signatures and redacted reasoning but keeps the conversation", () => {
  const history = [user("hi"), signedTurn];
  for (const target of ["messages", "chat_completions"] as const) {
    const out = convertHistoryForWire(history, target);
    assert.deepEqual(out, [
      user("hi"),
      {
        role: "assistant",
        parts: [{ type: "reasoning", text: "think" }, { type: "text", text: "hello" }],
      },
    ]);
  }
  // The input is untouched.
  assert.equal((history[1]!.parts[0] as { signature?: string }).signature, "sig-1");
});

Deno.test("the same Messages endpoint may keep its own signatures", () => {
  const out = convertHistoryForWire([user("hi"), signedTurn], "messages", {
    keepSignatures: true,
  });
  assert.deepEqual(out[1], signedTurn);
  assert.notEqual(out[1], signedTurn);
  // …but never on the other wire.
  const chat = convertHistoryForWire([user("hi"), signedTurn], "chat_completions", {
    keepSignatures: true,
  });
  assert.equal(chat[1]!.parts.some((p) => p.type === "redacted_reasoning"), false);
});

Deno.test("a reasoning-only turn disappears and the user turns around it merge", () => {
  const history: Message[] = [
    user("first"),
    { role: "assistant", parts: [{ type: "reasoning", text: "hmm", signature: "s" }] },
    user("second"),
  ];
  const out = convertHistoryForWire(history, "chat_completions");
  assert.deepEqual(out, [{
    role: "user",
    parts: [{ type: "text", text: "first" }, { type: "text", text: "second" }],
  }]);
});

Deno.test("tool calls without results get an interrupted result; orphans become text", () => {
  const history: Message[] = [
    user("go"),
    {
      role: "assistant",
      parts: [
        { type: "tool_call", id: "a", name: "view", input: { path: "x" } },
        { type: "tool_call", id: "b", name: "view", input: { path: "y" } },
      ],
    },
    { role: "user", parts: [{ type: "tool_result", call_id: "a", content: "ok" }] },
    { role: "user", parts: [{ type: "tool_result", call_id: "zz", content: "stray" }] },
    user("next"),
  ];
  const out = repairHistory(history);
  assert.equal(out.length, 3);
  assert.deepEqual(out[2], {
    role: "user",
    parts: [
      { type: "tool_result", call_id: "a", content: "ok" },
      { type: "tool_result", call_id: "b", content: INTERRUPTED_RESULT, is_error: true },
      { type: "text", text: "(earlier tool output) stray" },
      { type: "text", text: "next" },
    ],
  });
});

Deno.test("a trailing call without results is closed at the end", () => {
  const history: Message[] = [
    user("go"),
    { role: "assistant", parts: [{ type: "tool_call", id: "c", name: "shell", input: {} }] },
  ];
  const out = appendUserText(history, "stop that");
  assert.deepEqual(out.at(-1), {
    role: "user",
    parts: [
      { type: "tool_result", call_id: "c", content: INTERRUPTED_RESULT, is_error: true },
      { type: "text", text: "stop that" },
    ],
  });
});

Deno.test("an interrupted reply leaves a user turn; the next text merges into it", () => {
  const out = appendUserText([user("one")], "two");
  assert.deepEqual(out, [{
    role: "user",
    parts: [{ type: "text", text: "one" }, { type: "text", text: "two" }],
  }]);
});

Deno.test("empty and already well-formed histories pass through unchanged", () => {
  assert.deepEqual(convertHistoryForWire([], "messages"), []);
  const ok: Message[] = [user("a"), { role: "assistant", parts: [{ type: "text", text: "b" }] }];
  assert.deepEqual(repairHistory(ok), ok);
});
