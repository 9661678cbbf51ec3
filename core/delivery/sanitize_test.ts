import assert from "node:assert/strict";
import { sanitizeBody, sanitizeText, sanitizeTitle } from "./sanitize.ts";

Deno.test("control, zero-width and bidi-override characters are stripped; tabs and newlines kept in bodies", () => {
  assert.equal(
    sanitizeBody("ok\u0000\u0007 \u200Bhid\u202Eden\u2066 \ttab\r\nline\u009B"),
    "ok hidden \ttab\nline",
  );
  assert.equal(sanitizeBody("a\n\n\n\n\nb"), "a\n\nb", "runs of blank lines collapse");
});

Deno.test("titles are one line", () => {
  assert.equal(sanitizeTitle("  job\n  failed\tbadly  "), "job failed badly");
});

Deno.test("length caps count characters (not UTF-16 units) and end with an ellipsis", () => {
  assert.equal(sanitizeText("abcdef", { max: 4 }), "abc…");
  assert.equal(sanitizeText("abcd", { max: 4 }), "abcd");
  const emoji = "😀".repeat(10);
  const cut = sanitizeText(emoji, { max: 5 });
  assert.equal(Array.from(cut).length, 5);
  assert.ok(!cut.includes("\uFFFD"), "no split surrogate pair");
  assert.equal(Array.from(sanitizeTitle("x".repeat(500))).length, 200);
  assert.equal(Array.from(sanitizeBody("x".repeat(5000))).length, 1500);
  assert.equal(sanitizeText("abc", { max: 0 }), "");
});

Deno.test("non-strings become text; nullish becomes empty", () => {
  assert.equal(sanitizeBody(undefined), "");
  assert.equal(sanitizeBody(null), "");
  assert.equal(sanitizeBody(42), "42");
});
