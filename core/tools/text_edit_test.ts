import assert from "node:assert/strict";
import { capText, insertAfterLine, numberLines, replaceOnce, ToolInputError } from "./text_edit.ts";

Deno.test("numberLines numbers from 1 and ignores the final newline", () => {
  assert.equal(numberLines("a\nb\n"), "1\ta\n2\tb");
  assert.equal(numberLines("a\nb"), "1\ta\n2\tb");
  assert.equal(numberLines(""), "1\t");
  assert.equal(numberLines("a\n\n"), "1\ta\n2\t");
});

Deno.test("replaceOnce counts occurrences without overlap", () => {
  assert.equal(replaceOnce("aaa", "aa", "b"), "ba");
  assert.throws(() => replaceOnce("aaaa", "aa", "b"), /occurs more than once \(lines 1 and 1\)/);
  assert.throws(() => replaceOnce("abc", "x", "y"), ToolInputError);
});

Deno.test("insertAfterLine handles the edges", () => {
  assert.equal(insertAfterLine("", 0, "x"), "x\n");
  assert.equal(insertAfterLine("a", 1, "b"), "a\nb");
  assert.equal(insertAfterLine("a\n", 0, ""), "\na\n");
  assert.throws(() => insertAfterLine("", 1, "x"), /from 0 to 0; got 1/);
});

Deno.test("capText keeps short text and cuts long text in the middle", () => {
  assert.equal(capText("short", 10), "short");
  assert.equal(capText("0123456789abcdefghij", 10), "0123456\n… [11 characters cut] …\nij");
});
