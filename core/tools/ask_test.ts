import assert from "node:assert/strict";
import { askTool, parseQuestions } from "./ask.ts";
import { proposeSettingsTool } from "./propose_settings.ts";
import { ToolInputError } from "./text_edit.ts";

const ctx = { workdir: "/nonexistent-workspace", signal: new AbortController().signal };

Deno.test("ask hands its questions to a human, trimmed, with options", async () => {
  const out = await askTool.execute({
    questions: [
      { kind: "approval", text: "  Delete build/?  ", options: ["yes", "no"] },
      { kind: "question", text: "Which branch?" },
    ],
  }, ctx);
  assert.deepEqual(out, {
    type: "needs_human",
    questions: [
      { kind: "approval", text: "Delete build/?", options: ["yes", "no"] },
      { kind: "question", text: "Which branch?" },
    ],
    content: "Waiting for the operator's answer.",
  });
});

Deno.test("ask refuses malformed questions with the index and field at fault", () => {
  const bad: [unknown, RegExp][] = [
    [undefined, /questions must be a non-empty array/],
    [[], /questions must be a non-empty array/],
    ["why?", /questions must be a non-empty array/],
    [[{ kind: "question", text: "ok" }, { kind: "question", text: "  " }], /questions\[1\]\.text/],
    [[null], /questions\[0\]\.text must be a non-empty string/],
    [[{ kind: "gossip", text: "hi" }], /questions\[0\]\.kind must be one of question, elicitation/],
  ];
  for (const [questions, message] of bad) {
    assert.throws(
      () => parseQuestions({ questions }),
      (err: unknown) => err instanceof ToolInputError && message.test(err.message),
    );
  }
});

Deno.test("a bad ask call rejects its promise instead of throwing synchronously", async () => {
  const pending = askTool.execute({ questions: [] }, ctx);
  assert.ok(pending instanceof Promise);
  await assert.rejects(pending, ToolInputError);
});

Deno.test("propose_settings asks for approval and changes nothing itself", async () => {
  const out = await proposeSettingsTool.execute({ effort: " high ", reason: "tricky" }, ctx);
  assert.deepEqual(out, {
    type: "needs_human",
    questions: [{
      kind: "proposal",
      text: 'Change reasoning effort to "high"? tricky',
      options: ["approve", "reject"],
    }],
    content: "Proposal sent to the operator.",
  });
  const pending = proposeSettingsTool.execute({ effort: "", reason: "x" }, ctx);
  assert.ok(pending instanceof Promise);
  await assert.rejects(pending, /effort must be a non-empty string/);
});
