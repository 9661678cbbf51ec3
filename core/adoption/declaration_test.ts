// Each violation names the JSON pointer of the value at fault and a one-line fix.

import assert from "node:assert/strict";
import { checkDeclaration, checkDeclarationText } from "./declaration.ts";

Deno.test("a valid declaration has no violations", async () => {
  assert.deepEqual(
    await checkDeclaration({
      spec_version: "1.2.3",
      patterns: { front_door: { adopted: true, path: "README.md" } },
    }),
    [],
  );
});

Deno.test("a declaration carrying $schema for editor support is valid; a misplaced $schema is not", async () => {
  const doc = {
    $schema: "https://agent.invalid/schemas/adoption-declaration.schema.json",
    spec_version: "1.0.0",
    patterns: { front_door: { adopted: true, path: "README.md" } },
  };
  assert.deepEqual(await checkDeclaration(doc), []);
  const bad = await checkDeclaration({ ...doc, patterns: { $schema: "x" } });
  assert.deepEqual(bad.map((v) => v.pointer), ["/patterns/$schema"]);
});

Deno.test("violations carry the JSON pointer and a fix, one per problem", async () => {
  const got = await checkDeclaration({
    spec_version: "v1",
    extra: true,
    patterns: {
      front_dor: { adopted: true },
      "a/b~c": { adopted: true },
      decision_records: { adopted: false, paths: ["x", "x"], owner: "me" },
      status_lines: { adopted: "yes", path: "" },
      human_index: { path: "docs" },
    },
  });
  const byPointer = Object.fromEntries(got.map((v) => [v.pointer, v]));
  assert.deepEqual(Object.keys(byPointer).sort(), [
    "/extra",
    "/patterns/a~1b~0c",
    "/patterns/decision_records/owner",
    "/patterns/decision_records/paths",
    "/patterns/decision_records/reason",
    "/patterns/front_dor",
    "/patterns/human_index/adopted",
    "/patterns/status_lines/adopted",
    "/patterns/status_lines/path",
    "/spec_version",
  ]);
  assert.match(byPointer["/patterns/front_dor"]!.fix, /rename it to "front_door"/);
  assert.match(byPointer["/patterns/a~1b~0c"]!.fix, /remove it; pattern keys are front_door/);
  assert.match(byPointer["/spec_version"]!.fix, /"1\.0\.0"/);
  assert.match(byPointer["/extra"]!.fix, /spec_version, patterns and \$schema only/);
  assert.match(
    byPointer["/patterns/decision_records/reason"]!.fix,
    /required when adopted is false/,
  );
  assert.match(byPointer["/patterns/decision_records/paths"]!.message, /same path/);
  assert.match(byPointer["/patterns/decision_records/owner"]!.fix, /adopted, path, paths/);
  assert.match(byPointer["/patterns/status_lines/adopted"]!.fix, /true or false/);
  assert.match(byPointer["/patterns/status_lines/path"]!.message, /empty string/);
  assert.match(byPointer["/patterns/human_index/adopted"]!.message, /required key adopted/);
  for (const v of got) assert.ok(!v.fix.includes("\n"), "a fix is one line");
});

Deno.test("missing top-level keys and bad JSON are violations at their pointer", async () => {
  const missing = await checkDeclaration({});
  assert.deepEqual(missing.map((v) => v.pointer), ["/patterns", "/spec_version"]);
  const [bad] = await checkDeclarationText('{ "spec_version": "1.0.0", }');
  assert.equal(bad!.pointer, "");
  assert.match(bad!.message, /not valid JSON/);
  const [notObject] = await checkDeclaration([]);
  assert.equal(notObject!.pointer, "");
  assert.match(notObject!.fix, /one JSON object/);
});
