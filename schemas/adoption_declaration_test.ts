// The adoption declaration schema (spec 2.10) accepts what the spec allows and refuses the rest,
// checked with ajv and, as a second opinion, with @cfworker/json-schema (an independent
// 2020-12 implementation, test-only import), so a quirk of one validator cannot hide a rule.

import assert from "node:assert/strict";
import { Validator } from "@cfworker/json-schema";
import Ajv2020 from "ajv/dist/2020.js";
import schema from "./adoption-declaration.schema.json" with { type: "json" };

// deno-lint-ignore no-explicit-any
const ajv = new (Ajv2020 as any)({ allErrors: true, strict: true, strictRequired: false });
const validate = ajv.compile(schema);

const PATTERNS = [
  "front_door",
  "status_lines",
  "status_document",
  "authority_boundary",
  "evidence_hygiene",
  "frozen_archive",
  "decision_records",
  "current_projection",
  "human_index",
  "governed_read",
  "sealed_baseline",
  "declared_versus_observed",
  "untrusted_intake",
  "evidence_packet",
  "change_packet",
  "atomic_transition",
  "exact_review",
  "publication_freeze",
  "generated_artifacts",
];

Deno.test("the schema lists exactly the 19 pattern keys of spec 2.10", () => {
  assert.deepEqual(Object.keys(schema.properties.patterns.properties).sort(), [...PATTERNS].sort());
});

Deno.test("valid declarations pass", () => {
  const ok = [
    { spec_version: "1.0.0", patterns: {} },
    {
      spec_version: "12.3.40",
      patterns: {
        front_door: { adopted: true, path: "README.md" },
        decision_records: {
          adopted: true,
          paths: ["docs/adr", "docs/rfc"],
          index: "docs/adr/README.md",
          notes: "n",
        },
        frozen_archive: { adopted: false, reason: "no archive yet" },
      },
    },
  ];
  for (const doc of ok) assert.ok(validate(doc), JSON.stringify(validate.errors));
});

Deno.test("each rule of the spec refuses what it should", () => {
  const bad: Array<[string, unknown]> = [
    ["missing spec_version", { patterns: {} }],
    ["missing patterns", { spec_version: "1.0.0" }],
    ["two-part version", { spec_version: "1.0", patterns: {} }],
    ["version with a suffix", { spec_version: "1.0.0-rc1", patterns: {} }],
    ["extra top-level key", { spec_version: "1.0.0", patterns: {}, extra: 1 }],
    ["unknown pattern", { spec_version: "1.0.0", patterns: { nonsense: { adopted: true } } }],
    ["adopted missing", { spec_version: "1.0.0", patterns: { front_door: { path: "README.md" } } }],
    ["adopted not boolean", {
      spec_version: "1.0.0",
      patterns: { front_door: { adopted: "yes" } },
    }],
    ["not adopted without reason", {
      spec_version: "1.0.0",
      patterns: { front_door: { adopted: false } },
    }],
    ["empty path", {
      spec_version: "1.0.0",
      patterns: { front_door: { adopted: true, path: "" } },
    }],
    ["empty paths", {
      spec_version: "1.0.0",
      patterns: { front_door: { adopted: true, paths: [] } },
    }],
    ["duplicate paths", {
      spec_version: "1.0.0",
      patterns: { front_door: { adopted: true, paths: ["a", "a"] } },
    }],
    ["empty item in paths", {
      spec_version: "1.0.0",
      patterns: { front_door: { adopted: true, paths: [""] } },
    }],
    ["empty reason", {
      spec_version: "1.0.0",
      patterns: { front_door: { adopted: false, reason: "" } },
    }],
    ["extra pattern key", {
      spec_version: "1.0.0",
      patterns: { front_door: { adopted: true, owner: "x" } },
    }],
  ];
  for (const [why, doc] of bad) assert.equal(validate(doc), false, why);
});

// A second, independent 2020-12 validator (test-only import in deno.json).
const second = new Validator(schema as never, "2020-12", false);

Deno.test("the schema is a valid JSON Schema 2020-12 document (meta-schema check)", () => {
  // deno-lint-ignore no-explicit-any
  const meta = new (Ajv2020 as any)({ strict: true, strictRequired: false });
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.ok(meta.validateSchema(schema), JSON.stringify(meta.errors));
  // And a broken copy is caught by the same check (the check is not vacuous).
  assert.equal(meta.validateSchema({ ...schema, required: "spec_version" }), false);
});

const p = (pattern: Record<string, unknown>) => ({
  spec_version: "1.0.0",
  patterns: { front_door: pattern },
});

/** [label, document, valid] covering every rule of spec 2.10, both ways where it has two. */
const DECLARATION_TABLE: Array<[string, unknown, boolean]> = [
  ["minimal", { spec_version: "1.0.0", patterns: {} }, true],
  ["multi-digit version", { spec_version: "10.20.30", patterns: {} }, true],
  ["all 19 patterns adopted", {
    spec_version: "1.0.0",
    patterns: Object.fromEntries(PATTERNS.map((k) => [k, { adopted: true }])),
  }, true],
  [
    "every field of a pattern",
    p({
      adopted: true,
      path: "README.md",
      paths: ["a", "b"],
      index: "docs/index.md",
      reason: "r",
      notes: "n",
    }),
    true,
  ],
  ["not adopted with reason", p({ adopted: false, reason: "later" }), true],
  [
    "$schema at the top level (editor support)",
    { $schema: "./schemas/adoption-declaration.schema.json", spec_version: "1.0.0", patterns: {} },
    true,
  ],
  ["$schema an absolute URI", { $schema: schema.$id, spec_version: "1.0.0", patterns: {} }, true],
  ["$schema not a string", { $schema: 1, spec_version: "1.0.0", patterns: {} }, false],
  ["$schema empty", { $schema: "", spec_version: "1.0.0", patterns: {} }, false],
  ["$schema inside patterns", { spec_version: "1.0.0", patterns: { $schema: "x" } }, false],
  ["$schema inside a pattern", p({ adopted: true, $schema: "x" }), false],
  ["not an object", [], false],
  ["missing spec_version", { patterns: {} }, false],
  ["missing patterns", { spec_version: "1.0.0" }, false],
  ["spec_version a number", { spec_version: 1, patterns: {} }, false],
  ["two-part version", { spec_version: "1.0", patterns: {} }, false],
  ["v prefix", { spec_version: "v1.0.0", patterns: {} }, false],
  ["suffix", { spec_version: "1.0.0-rc1", patterns: {} }, false],
  ["trailing newline", { spec_version: "1.0.0\n", patterns: {} }, false],
  ["negative part", { spec_version: "1.-1.0", patterns: {} }, false],
  ["extra top-level key", { spec_version: "1.0.0", patterns: {}, x: 1 }, false],
  ["patterns an array", { spec_version: "1.0.0", patterns: [] }, false],
  [
    "unknown pattern key",
    { spec_version: "1.0.0", patterns: { front_doors: { adopted: true } } },
    false,
  ],
  ["pattern value not an object", { spec_version: "1.0.0", patterns: { front_door: true } }, false],
  ["adopted missing", p({ path: "README.md" }), false],
  ["adopted a string", p({ adopted: "true" }), false],
  ["not adopted without reason", p({ adopted: false }), false],
  ["not adopted, empty reason", p({ adopted: false, reason: "" }), false],
  ["empty path", p({ adopted: true, path: "" }), false],
  ["path not a string", p({ adopted: true, path: ["a"] }), false],
  ["empty paths", p({ adopted: true, paths: [] }), false],
  ["duplicate paths", p({ adopted: true, paths: ["a", "a"] }), false],
  ["empty item in paths", p({ adopted: true, paths: [""] }), false],
  ["non-string item in paths", p({ adopted: true, paths: [1] }), false],
  ["empty index", p({ adopted: true, index: "" }), false],
  ["empty notes", p({ adopted: true, notes: "" }), false],
  ["extra pattern key", p({ adopted: true, owner: "x" }), false],
];

Deno.test("the table of declarations: ajv and @cfworker/json-schema agree with the spec on every row", () => {
  for (const [label, doc, valid] of DECLARATION_TABLE) {
    assert.equal(validate(doc), valid, `ajv: ${label}`);
    assert.equal(second.validate(doc).valid, valid, `@cfworker/json-schema: ${label}`);
  }
});
