// The one rule every door applies to an MCP form answer (core/mcp/elicitation.ts): defaults for
// what was left out, each field checked, and a written answer read as decline, cancel or JSON.

import assert from "node:assert/strict";
import {
  checkedAnswer,
  elicitationQuestion,
  formProblem,
  type FormSchema,
  parseWrittenAnswer,
  withDefaults,
} from "./elicitation.ts";

const FORM: FormSchema = {
  type: "object",
  properties: {
    email: { type: "string", format: "email" },
    seats: { type: "integer", minimum: 1, maximum: 10, default: 2 },
    size: { type: "string", enum: ["s", "m", "l"], default: "m" },
    extras: { type: "array", items: { type: "string", enum: ["wifi", "tea"] } },
    agree: { type: "boolean" },
  },
  required: ["email"],
};

Deno.test("defaults fill what was left out, never what was given", () => {
  assert.deepEqual(withDefaults(FORM, { email: "a@b.c", seats: 5 }), {
    email: "a@b.c",
    seats: 5,
    size: "m",
  });
});

Deno.test("each kind of field is checked; every problem is named", () => {
  assert.equal(formProblem(FORM, { email: "a@b.c", extras: ["tea"], agree: true }), null);
  assert.equal(
    formProblem(FORM, {
      seats: 2.5,
      size: "xl",
      extras: ["beer"],
      agree: "yes",
      other: 1,
    }),
    "other: not a field of the form; email: required; seats: expected a whole number; " +
      "size: must be one of s, m, l; extras: each item must be one of wifi, tea; " +
      "agree: expected true or false",
  );
  assert.equal(formProblem(FORM, { email: "nope" }), "email: expected an email address");
  assert.equal(formProblem(FORM, { email: "a@b.c", seats: 0 }), "seats: at least 1");
});

Deno.test("a written answer: decline, cancel, or a JSON object that fits", () => {
  assert.deepEqual(parseWrittenAnswer(FORM, " Decline "), { action: "decline" });
  assert.deepEqual(parseWrittenAnswer(FORM, "cancel"), { action: "cancel" });
  assert.deepEqual(parseWrittenAnswer(FORM, '{"email":"a@b.c"}'), {
    action: "accept",
    content: { email: "a@b.c", seats: 2, size: "m" },
  });
  assert.throws(() => parseWrittenAnswer(FORM, "yes please"), /decline, cancel or a JSON object/);
  assert.throws(() => parseWrittenAnswer(FORM, "[1]"), /JSON object/);
  assert.throws(() => parseWrittenAnswer(FORM, '{"seats":3}'), /email: required/);
});

Deno.test("an accepted answer that does not fit is cancelled, never sent", () => {
  const request = { server: "s", message: "m", requestedSchema: FORM };
  assert.deepEqual(checkedAnswer(request, { action: "accept", content: { email: 3 } as never }), {
    action: "cancel",
  });
  assert.deepEqual(checkedAnswer(request, { action: "decline" }), { action: "decline" });
});

Deno.test("the needs-human question names the server, each field and how to answer", () => {
  const q = elicitationQuestion({ server: "s", message: "Details?", requestedSchema: FORM });
  assert.equal(q.kind, "elicitation");
  assert.equal(q.text, "MCP server s asks: Details?");
  assert.match(q.detail!, /- size \(one of s \| m \| l; optional, default "m"\)/);
  assert.match(q.detail!, /- extras \(some of wifi \| tea; optional\)/);
  assert.match(q.detail!, /or decline, or cancel/);
});
