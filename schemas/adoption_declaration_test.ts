// The adoption declaration schema (spec 2.10) accepts what the spec allows and refuses the rest.

import assert from "node:assert/strict";
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
