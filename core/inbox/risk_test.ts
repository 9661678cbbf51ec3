import assert from "node:assert/strict";
import { classifyRisk } from "./risk.ts";

Deno.test("question and elicitation kinds alone are medium risk", () => {
  assert.equal(classifyRisk([{ kind: "question", text: "Which branch?" }]), "medium");
  assert.equal(
    classifyRisk([
      { kind: "question", text: "a" },
      { kind: "elicitation", text: "b", options: ["x", "y"] },
    ]),
    "medium",
  );
});

Deno.test("approval, plan and proposal kinds are high risk, even mixed with questions", () => {
  for (const kind of ["approval", "plan", "proposal"]) {
    assert.equal(classifyRisk([{ kind, text: "t" }]), "high", kind);
    assert.equal(
      classifyRisk([{ kind: "question", text: "q" }, { kind, text: "t" }]),
      "high",
      kind,
    );
  }
});

Deno.test("no questions, unknown or missing kinds and junk fail closed to high", () => {
  assert.equal(classifyRisk([]), "high");
  assert.equal(classifyRisk([{ kind: "Question", text: "case matters" }]), "high");
  assert.equal(classifyRisk([{ kind: "shell", text: "unknown kind" }]), "high");
  assert.equal(classifyRisk([{ text: "no kind" }]), "high");
  assert.equal(classifyRisk([{ kind: 1, text: "numeric kind" }]), "high");
  assert.equal(classifyRisk([null]), "high");
  assert.equal(classifyRisk(["question"]), "high");
  assert.equal(classifyRisk(null), "high");
  assert.equal(classifyRisk(undefined), "high");
  assert.equal(classifyRisk({ kind: "question" }), "high");
});
