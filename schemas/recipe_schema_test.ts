// The recipe schema (spec 2.7) accepts every recipe the outpost ships and refuses malformed
// ones at the part that is wrong. Checked with ajv, configured as core/recipes/catalog.ts
// configures it, and, as a second opinion, with @cfworker/json-schema (an independent 2020-12
// implementation, test-only import), so a quirk of one validator cannot hide a rule. What a
// schema cannot say (placeholders name fields, a workdir field exists) is catalog_test's.

import assert from "node:assert/strict";
import { Validator } from "@cfworker/json-schema";
import Ajv2020 from "ajv/dist/2020.js";
import schema from "./recipe.schema.json" with { type: "json" };

// deno-lint-ignore no-explicit-any
const ajv = new (Ajv2020 as any)({ allErrors: true, strict: true, strictRequired: false });
const validate = ajv.compile(schema) as ((doc: unknown) => boolean) & {
  errors?: { instancePath: string; message?: string }[] | null;
};
const second = new Validator(schema as never, "2020-12", false);

const RECIPES_DIR = new URL("../recipes/", import.meta.url);

async function shippedRecipes(): Promise<[string, unknown][]> {
  const out: [string, unknown][] = [];
  for await (const entry of Deno.readDir(RECIPES_DIR)) {
    if (!entry.isFile || !entry.name.endsWith(".json")) continue;
    out.push([entry.name, JSON.parse(await Deno.readTextFile(new URL(entry.name, RECIPES_DIR)))]);
  }
  return out.sort(([a], [b]) => a.localeCompare(b));
}

Deno.test("the schema is a valid JSON Schema 2020-12 document (meta-schema check)", () => {
  // deno-lint-ignore no-explicit-any
  const meta = new (Ajv2020 as any)({ strict: true, strictRequired: false });
  assert.equal(schema.$schema, "https://json-schema.org/draft/2020-12/schema");
  assert.ok(meta.validateSchema(schema), JSON.stringify(meta.errors));
  // And a broken copy is caught by the same check (the check is not vacuous).
  assert.equal(meta.validateSchema({ ...schema, required: "id" }), false);
});

Deno.test("every recipe shipped in recipes/ matches the schema", async () => {
  const recipes = await shippedRecipes();
  // The six of recipes/README.md: a missing file must not make this pass on fewer.
  assert.deepEqual(recipes.map(([name]) => name), [
    "daily-brief-9am.json",
    "daily-kin-digest.json",
    "issue-triage.json",
    "morning-pr-review.json",
    "standup-from-git.json",
    "weekly-repo-health.json",
  ]);
  for (const [name, doc] of recipes) {
    assert.ok(validate(doc), `ajv: ${name}: ${JSON.stringify(validate.errors)}`);
    assert.ok(second.validate(doc).valid, `@cfworker/json-schema: ${name}`);
    assert.equal(`${(doc as { id: string }).id}.json`, name, "a recipe's file is named by its id");
  }
});

/** A small valid recipe the table below breaks one part of at a time. */
function base(): Record<string, unknown> {
  return {
    id: "nightly-notes",
    version: 1,
    title: "Nightly notes",
    description: "Writes notes.",
    prompt_template: "Write notes about {{workdir}}.",
    binding: { kind: "schedule", schedule: { kind: "cron", expr: "0 2 * * *", tz: "UTC" } },
    output_surface: "report",
    job: { mode: "auto", timeout_s: 600 },
    config_fields: [{ name: "workdir", label: "Workspace", type: "path" }],
  };
}

type Edit = (r: Record<string, unknown>) => void;
const field = (f: Record<string, unknown>): Edit => (r) => {
  r.config_fields = [f];
};
const trigger = { kind: "trigger", source: "github", event: "issues.opened" };

/** [what is wrong, the edit, the JSON pointer the refusal names]. */
const BAD: [string, Edit, string][] = [
  ["id missing", (r) => delete r.id, ""],
  ["id in capitals", (r) => (r.id = "Nightly"), "/id"],
  ["id with a trailing dash", (r) => (r.id = "nightly-"), "/id"],
  ["id over 64 characters", (r) => (r.id = "a".repeat(65)), "/id"],
  ["version 0", (r) => (r.version = 0), "/version"],
  ["version a string", (r) => (r.version = "1"), "/version"],
  ["version a fraction", (r) => (r.version = 1.5), "/version"],
  ["empty title", (r) => (r.title = ""), "/title"],
  ["title over 80 characters", (r) => (r.title = "t".repeat(81)), "/title"],
  ["description over 500 characters", (r) => (r.description = "d".repeat(501)), "/description"],
  ["empty prompt_template", (r) => (r.prompt_template = ""), "/prompt_template"],
  ["an unknown top-level key", (r) => (r.owner = "me"), ""],
  ["binding of an unknown kind", (r) => (r.binding = { kind: "webhook" }), "/binding"],
  ["schedule kind at", (r) => {
    r.binding = { kind: "schedule", schedule: { kind: "at", expr: "x", tz: "UTC" } };
  }, "/binding/schedule/kind"],
  ["schedule without tz", (r) => {
    r.binding = { kind: "schedule", schedule: { kind: "cron", expr: "0 2 * * *" } };
  }, "/binding/schedule"],
  ["schedule with an empty expr", (r) => {
    r.binding = { kind: "schedule", schedule: { kind: "every", expr: "", tz: "UTC" } };
  }, "/binding/schedule/expr"],
  ["trigger from another source", (r) => {
    r.binding = { ...trigger, source: "gitlab" };
    r.output_surface = "github_pr_comment";
  }, "/binding/source"],
  ["trigger on another event", (r) => {
    r.binding = { ...trigger, event: "push" };
    r.output_surface = "github_pr_comment";
  }, "/binding/event"],
  ["output_surface email", (r) => (r.output_surface = "email"), "/output_surface"],
  [
    "a PR comment from a schedule",
    (r) => (r.output_surface = "github_pr_comment"),
    "/binding/kind",
  ],
  ["a trigger writing a report", (r) => (r.binding = trigger), "/output_surface"],
  ["job mode yolo", (r) => (r.job = { mode: "yolo" }), "/job/mode"],
  ["job timeout under a minute", (r) => (r.job = { timeout_s: 59 }), "/job/timeout_s"],
  ["job retries over 10", (r) => (r.job = { max_retries: 11 }), "/job/max_retries"],
  ["an unknown job key", (r) => (r.job = { priority: 1 }), "/job"],
  ["no config_fields", (r) => (r.config_fields = []), "/config_fields"],
  ["21 config_fields", (r) => {
    r.config_fields = Array.from({ length: 21 }, (_, i) => ({
      name: `f${i}`,
      label: "F",
      type: "path",
    }));
  }, "/config_fields"],
  [
    "field name in capitals",
    field({ name: "Workdir", label: "W", type: "path" }),
    "/config_fields/0/name",
  ],
  ["field without a label", field({ name: "workdir", type: "path" }), "/config_fields/0"],
  ["field of type file", field({ name: "f", label: "F", type: "file" }), "/config_fields/0/type"],
  [
    "text field without max_length",
    field({ name: "t", label: "T", type: "text" }),
    "/config_fields/0",
  ],
  [
    "text default over max",
    field({ name: "t", label: "T", type: "text", max_length: 5, default: "x".repeat(501) }),
    "/config_fields/0/default",
  ],
  [
    "integer field without min",
    field({ name: "n", label: "N", type: "integer", max: 3 }),
    "/config_fields/0",
  ],
  [
    "integer default a string",
    field({ name: "n", label: "N", type: "integer", min: 1, max: 3, default: "2" }),
    "/config_fields/0/default",
  ],
  [
    "enum field with no values",
    field({ name: "e", label: "E", type: "enum", values: [] }),
    "/config_fields/0/values",
  ],
  [
    "enum field with a repeated value",
    field({ name: "e", label: "E", type: "enum", values: ["a", "a"] }),
    "/config_fields/0/values",
  ],
  [
    "enum value with a quote",
    field({ name: "e", label: "E", type: "enum", values: ['a"b'] }),
    "/config_fields/0/values/0",
  ],
  [
    "repo field with an empty default",
    field({ name: "r", label: "R", type: "repo", default: "" }),
    "/config_fields/0/default",
  ],
  [
    "a key of another field type",
    field({ name: "p", label: "P", type: "path", max_length: 9 }),
    "/config_fields/0",
  ],
];

/**
 * True when an error at `path` blames the top-level part holding `at` (or the recipe as a
 * whole, where required, additionalProperties and the if/then rules report). Within a part,
 * oneOf also reports why each other branch did not match.
 */
function blames(path: string, at: string): boolean {
  const part = at.split("/").slice(0, 2).join("/");
  return path === "" || path === part || path.startsWith(`${part}/`);
}

Deno.test("the table of bad recipes: each is refused, at the part that is wrong", () => {
  assert.ok(validate(base()), `the base recipe is valid: ${JSON.stringify(validate.errors)}`);
  for (const [why, edit, at] of BAD) {
    const doc = base();
    edit(doc);
    assert.equal(validate(doc), false, `ajv accepted: ${why}`);
    const paths = (validate.errors ?? []).map((e) => e.instancePath);
    assert.ok(paths.includes(at), `${why}: no error at "${at}": ${JSON.stringify(paths)}`);
    assert.deepEqual(paths.filter((p) => !blames(p, at)), [], `${why}: errors outside its part`);
    assert.equal(second.validate(doc).valid, false, `@cfworker/json-schema accepted: ${why}`);
  }
});
