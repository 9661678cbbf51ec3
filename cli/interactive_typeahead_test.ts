import assert from "node:assert/strict";
import { TypeAhead } from "./interactive_typeahead.ts";

Deno.test("lines ended with Enter queue in order; the unfinished rest is the draft", () => {
  const t = new TypeAhead();
  t.feed("first one\r");
  t.feed("sec");
  t.feed("ond\rthird dra");
  assert.equal(t.queued, 2);
  assert.equal(t.next(), "first one");
  assert.equal(t.next(), "second");
  assert.equal(t.next(), undefined);
  assert.equal(t.takeDraft(), "third dra");
  assert.equal(t.takeDraft(), "");
});

Deno.test("backspace and ctrl+u edit; arrows and control characters are dropped", () => {
  const t = new TypeAhead();
  t.feed("helo\x7f\x7flo\x1b[A\x1b[D\x1bOB\t!");
  t.feed("\x15gone\x15kept\r\n\r   \r");
  assert.equal(t.next(), "kept");
  assert.equal(t.queued, 0);
  t.feed("hel\x7flo wörld\b");
  assert.equal(t.takeDraft(), "helo wörl");
});
