import assert from "node:assert/strict";
import { JSON_MAX_DEPTH, jsonDepthRefusal } from "./json_depth.ts";

Deno.test("jsonDepthRefusal: counts arrays and objects, not brackets inside strings", () => {
  const nest = (n: number) => "[".repeat(n) + "]".repeat(n);
  assert.equal(jsonDepthRefusal(nest(JSON_MAX_DEPTH)), null);
  assert.match(jsonDepthRefusal(nest(JSON_MAX_DEPTH + 1))!, /nested deeper than 64 levels/);
  assert.equal(jsonDepthRefusal('{"a":{"b":[1,2,{"c":null}]}}', 4), null);
  assert.notEqual(jsonDepthRefusal('{"a":{"b":[1,2,{"c":null}]}}', 3), null);
  // Brackets in strings, escaped quotes and backslashes do not count.
  const text = JSON.stringify({ s: '[[[[{{{{\\"[[[[', t: "\\\\", u: "]]]]" });
  assert.equal(jsonDepthRefusal(text, 1), null);
  assert.equal(jsonDepthRefusal(`{"a":"\\\\"}`, 1), null);
  // Siblings do not add up: depth is nesting, not count.
  assert.equal(jsonDepthRefusal(`[${"[],".repeat(1000)}[]]`, 2), null);
});
