import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { workspaceTools } from "./registry.ts";
import { testSandbox } from "../../tests/fakes/test_workspace.ts";

/** The real tool set; no test here runs a shell command (plan mode denies the one call). */
const WORKSPACE_TOOLS = workspaceTools(testSandbox("/nonexistent-workdir"));
import type { ToolKind } from "./types.ts";
import { normalizeStrict } from "../wires/strict_tools.ts";

const KINDS: readonly ToolKind[] = ["read", "edit", "shell", "ask"];

/** One valid input per tool, to check schema and summary agree with what the tool accepts. */
const SAMPLES: Record<string, Record<string, unknown>> = {
  view: { path: "a.txt", view_range: [1, 10] },
  create: { path: "a.txt", file_text: "x" },
  str_replace: { path: "a.txt", old_str: "a", new_str: "b" },
  insert: { path: "a.txt", insert_line: 0, insert_text: "x" },
  search: { pattern: "x", glob: "*.ts" },
  shell: { command: "ls", timeout_s: 5 },
  ask: { questions: [{ kind: "question", text: "Which branch?" }] },
  propose_settings: { effort: "high", reason: "hard bug" },
};

Deno.test("the registry lists the documented workspace tools in order, with unique names", () => {
  const names = WORKSPACE_TOOLS.map((t) => t.name);
  assert.deepEqual(names, Object.keys(SAMPLES));
  assert.equal(new Set(names).size, names.length);
  // Both wires accept only these characters in a tool name.
  for (const name of names) assert.match(name, /^[a-zA-Z0-9_-]{1,64}$/);
});

Deno.test("every tool has a kind, a non-empty description and a summary", () => {
  for (const tool of WORKSPACE_TOOLS) {
    const sample = SAMPLES[tool.name]!;
    const kind = typeof tool.kind === "function" ? tool.kind(sample) : tool.kind;
    assert.ok(KINDS.includes(kind), `${tool.name} has kind ${kind}`);
    assert.ok(tool.description.trim().length >= 40, `${tool.name} needs a real description`);
    assert.ok(!tool.description.includes("TODO"), `${tool.name} description is unfinished`);
    const summary = tool.summarize?.(sample);
    assert.ok(summary && summary.trim() !== "", `${tool.name} summarizes a call`);
  }
  const kindOf = Object.fromEntries(WORKSPACE_TOOLS.map((t) => [t.name, t.kind]));
  assert.deepEqual(kindOf, {
    view: "read",
    create: "edit",
    str_replace: "edit",
    insert: "edit",
    search: "read",
    shell: "shell",
    ask: "ask",
    propose_settings: "ask",
  });
});

Deno.test("every input schema is a valid, closed JSON Schema object that accepts its sample", () => {
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  for (const tool of WORKSPACE_TOOLS) {
    const schema = tool.input_schema;
    assert.equal(schema.type, "object", `${tool.name} schema root`);
    assert.equal(schema.additionalProperties, false, `${tool.name} refuses unknown inputs`);
    const properties = schema.properties as Record<string, unknown>;
    for (const req of (schema.required ?? []) as string[]) {
      assert.ok(req in properties, `${tool.name} requires undeclared ${req}`);
    }
    const validate = ajv.compile(schema);
    assert.ok(validate(SAMPLES[tool.name]), `${tool.name}: ${ajv.errorsText(validate.errors)}`);
    assert.equal(validate({ ...SAMPLES[tool.name], bogus: 1 }), false);
  }
});

Deno.test("every input schema can be made strict losslessly", () => {
  for (const tool of WORKSPACE_TOOLS) {
    const result = normalizeStrict(tool.input_schema);
    assert.ok(result.ok, `${tool.name}: ${result.ok ? "" : result.reason}`);
  }
});
