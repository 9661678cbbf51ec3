import assert from "node:assert/strict";
import { TypeAhead } from "./interactive_typeahead.ts";

Deno.test("lines ended with Enter queue in order; the unfinished rest is the draft", () => {
  const t = new TypeAhead();
  t.feed("first one\r");
  t.feed("sec");
  t.feed("ond");
  t.feed("\r");
  t.feed("third dra");
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
  for (const key of ["\x15", "gone", "\x15", "kept", "\r", "\r", "   ", "\r"]) t.feed(key);
  assert.equal(t.next(), "kept");
  assert.equal(t.queued, 0);
  t.feed("hel\x7flo wörld\b");
  assert.equal(t.takeDraft(), "helo wörl");
});

Deno.test("a paste (bracketed or in one read) is one message with its lines", () => {
  const t = new TypeAhead();
  t.feed("\x1b[200~line one\rline two\x1b[201~");
  t.feed("\r");
  t.feed("red\rgreen");
  t.feed("\r");
  assert.equal(t.next(), "line one\nline two");
  assert.equal(t.next(), "red\ngreen");
  assert.equal(t.queued, 0);
});
