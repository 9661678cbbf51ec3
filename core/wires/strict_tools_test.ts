import { deepEqual, equal, ok } from "node:assert/strict";
import {
  normalizeStrict,
  parseToolArguments,
  stripNullOptionals,
  validateStructured,
} from "./strict_tools.ts";
import type { JsonSchema } from "./types.ts";
import { moduleGraph } from "../../tests/module_graph.ts";

function normalized(schema: JsonSchema): JsonSchema {
  const r = normalizeStrict(schema);
  if (!r.ok) throw new Error(`expected normalizable: ${r.reason}`);
  return r.schema;
}

function reason(schema: unknown): string {
  const r = normalizeStrict(schema as JsonSchema);
  if (r.ok) throw new Error("expected a refusal");
  return r.reason;
}

Deno.test("strict: all properties required, optionals nullable, additionalProperties false", () => {
  const schema = {
    type: "object",
    description: "view a file",
    properties: {
      path: { type: "string", description: "file" },
      range: { type: "array", items: { type: "integer" }, minItems: 2, maxItems: 2 },
      mode: { type: "string", enum: ["a", "b"] },
    },
    required: ["path"],
  };
  deepEqual(normalized(schema), {
    type: "object",
    description: "view a file",
    properties: {
      path: { type: "string", description: "file" },
      range: { type: ["array", "null"], items: { type: "integer" }, minItems: 2, maxItems: 2 },
      mode: { type: ["string", "null"], enum: ["a", "b", null] },
    },
    required: ["path", "range", "mode"],
    additionalProperties: false,
  });
  // The input is not mutated.
  equal((schema as Record<string, unknown>).additionalProperties, undefined);
});

Deno.test("strict: nested objects, items, anyOf, $defs and $ref are normalized recursively", () => {
  const schema = {
    type: "object",
    properties: {
      edits: {
        type: "array",
        items: {
          type: "object",
          properties: {
            old: { type: "string" },
            new: { type: "string" },
            note: { $ref: "#/$defs/note" },
          },
          required: ["old", "new"],
        },
      },
      value: { anyOf: [{ type: "string" }, { type: "number" }] },
      flag: { const: true },
    },
    required: ["edits"],
    $defs: { note: { type: "object", properties: { text: { type: "string" } } } },
  };
  deepEqual(normalized(schema), {
    type: "object",
    properties: {
      edits: {
        type: "array",
        items: {
          type: "object",
          properties: {
            old: { type: "string" },
            new: { type: "string" },
            note: { anyOf: [{ $ref: "#/$defs/note" }, { type: "null" }] },
          },
          required: ["old", "new", "note"],
          additionalProperties: false,
        },
      },
      value: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
      flag: { anyOf: [{ const: true }, { type: "null" }] },
    },
    required: ["edits", "value", "flag"],
    additionalProperties: false,
    $defs: {
      note: {
        type: "object",
        properties: { text: { type: ["string", "null"] } },
        required: ["text"],
        additionalProperties: false,
      },
    },
  });
});

Deno.test("strict: an already nullable optional and an implicit object type", () => {
  deepEqual(
    normalized({ properties: { a: { type: ["string", "null"] } } }),
    {
      type: "object",
      properties: { a: { type: ["string", "null"] } },
      required: ["a"],
      additionalProperties: false,
    },
  );
});

Deno.test("strict: schemas that cannot be normalized losslessly are refused with a reason", () => {
  const obj = (props: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
    type: "object",
    properties: props,
    ...extra,
  });
  equal(
    reason(obj({ a: { type: "string" } }, { additionalProperties: true })),
    "/: open additionalProperties",
  );
  ok(
    reason(obj({ a: { type: "object", additionalProperties: { type: "string" } } })).includes(
      "/properties/a: open additionalProperties",
    ),
  );
  ok(reason(obj({ a: { type: "string", enum: [] } })).includes("empty enum"));
  ok(reason(obj({ a: { anyOf: [] } })).includes("empty anyOf"));
  ok(reason(obj({ a: { oneOf: [{ type: "string" }] } })).includes('keyword "oneOf"'));
  ok(reason(obj({ a: { allOf: [{ type: "string" }] } })).includes('keyword "allOf"'));
  ok(reason(obj({ a: { type: "string", not: { const: "x" } } })).includes('keyword "not"'));
  ok(reason(obj({ a: { type: "object", patternProperties: {} } })).includes("patternProperties"));
  ok(reason(obj({ a: { type: "array", prefixItems: [] } })).includes("prefixItems"));
  ok(reason(obj({ a: { type: "string", "x-custom": 1 } })).includes('keyword "x-custom"'));
  ok(reason(obj({ a: {} })).includes("without a type"));
  ok(reason(obj({ a: true })).includes("boolean"));
  ok(reason(obj({ a: { type: "array" } })).includes("single items schema"));
  ok(reason(obj({ a: { type: "array", items: [{ type: "string" }] } })).includes("single items"));
  ok(reason(obj({ a: { type: "object" } })).includes("free-form object"));
  ok(reason(obj({ a: { type: "date" } })).includes("unsupported type"));
  ok(reason(obj({ a: { $ref: "https://x/y.json" } })).includes("only local $ref"));
  ok(reason({ type: "string" }).includes("root"));
  ok(reason({ anyOf: [{ type: "object", properties: {} }] }).includes("root"));
});

Deno.test("strict: an explicitly empty closed object is fine", () => {
  deepEqual(normalized({ type: "object", properties: {}, additionalProperties: false }), {
    type: "object",
    properties: {},
    required: [],
    additionalProperties: false,
  });
});

Deno.test("strict: stripNullOptionals undoes the nullable rewrite only where the original said optional", () => {
  const original = {
    type: "object",
    properties: {
      path: { type: "string" },
      limit: { type: "integer" },
      note: { type: ["string", "null"] },
      nested: {
        type: "object",
        properties: { a: { type: "string" }, b: { $ref: "#/$defs/b" } },
        required: ["a"],
      },
      list: { type: "array", items: { type: "object", properties: { x: { type: "string" } } } },
    },
    required: ["path", "nested"],
    $defs: { b: { type: "string" } },
  };
  deepEqual(
    stripNullOptionals(original, {
      path: "p",
      limit: null,
      note: null,
      nested: { a: "x", b: null },
      list: [{ x: null }, { x: "y" }],
    }),
    { path: "p", note: null, nested: { a: "x" }, list: [{}, { x: "y" }] },
  );
});

Deno.test("parseToolArguments: objects pass, everything else is {}", () => {
  deepEqual(parseToolArguments('{"a": 1}'), { a: 1 });
  deepEqual(parseToolArguments(""), {});
  deepEqual(parseToolArguments("   "), {});
  deepEqual(parseToolArguments("{broken"), {});
  deepEqual(parseToolArguments("[1, 2]"), {});
  deepEqual(parseToolArguments("null"), {});
  deepEqual(parseToolArguments('"text"'), {});
  deepEqual(parseToolArguments("42"), {});
});

Deno.test("validateStructured: validates against the original schema (draft 2020-12, formats)", async () => {
  const schema = {
    type: "object",
    properties: {
      email: { type: "string", format: "email" },
      tags: { type: "array", items: { type: "string" }, prefixItems: [{ const: "first" }] },
    },
    required: ["email"],
    additionalProperties: false,
  };
  deepEqual(await validateStructured(schema, { email: "a@b.co", tags: ["first", "x"] }), {
    ok: true,
  });
  const bad = await validateStructured(schema, { email: "nope", tags: ["second"], extra: 1 });
  ok(!bad.ok);
  ok(bad.errors.some((e) => e.includes("/email") && e.includes("format")));
  ok(bad.errors.some((e) => e.includes("additional properties")));
  ok(bad.errors.some((e) => e.includes("/tags/0")));
  const missing = await validateStructured(schema, {});
  ok(!missing.ok && missing.errors.some((e) => e.includes("email")));
});

Deno.test("validateStructured: an invalid schema is reported, not thrown", async () => {
  const r = await validateStructured({ type: "no-such-type" }, {});
  ok(!r.ok);
  ok(r.errors[0]?.includes("schema itself is invalid"));
});

Deno.test("ajv stays off the start-up path: only a dynamic import reaches it", async () => {
  const isAjv = (s: string) => /(^|\/)ajv(-formats)?@/.test(s);
  for (const entry of ["core/wires/strict_tools.ts", "cli/headless.ts"]) {
    const graph = await moduleGraph(entry);
    // The controls: the headless path does load strict_tools.ts, and the graph does see ajv
    // where it is imported, so an empty answer below is not a blind one.
    ok(graph.staticModules.some((m) => m.endsWith("/core/wires/strict_tools.ts")), entry);
    ok(graph.dynamicImports.some(isAjv), `${entry}: ajv's dynamic import not seen`);
    deepEqual(graph.staticModules.filter(isAjv), [], `${entry} imports ajv statically`);
    deepEqual(graph.staticPackages.filter(isAjv), [], `${entry} loads a package that loads ajv`);
  }
});
