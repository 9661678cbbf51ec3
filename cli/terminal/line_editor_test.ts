// The message box's editing, without a terminal: keys in, text and events out.

import assert from "node:assert/strict";
import { type Completer, LineEditor } from "./line_editor.ts";
import { KeyDecoder } from "./keys.ts";
import type { InputEvent } from "./terminal.ts";

const ONE_KEY = new RegExp(`${"\x1b"}\\[[0-9;:]*[A-Za-z~]|${"\x1b"}.|[\\s\\S]`, "gu");

async function type(editor: LineEditor, raw: string): Promise<InputEvent | undefined> {
  const decoder = new KeyDecoder();
  let last: InputEvent | undefined;
  // One key per read, as a person types (a read with a CR inside would be a paste).
  for (const ch of raw.match(ONE_KEY) ?? []) {
    for (const event of decoder.feed(ch)) last = (await editor.handle(event)) ?? last;
  }
  return last;
}

Deno.test("editor: a large paste is one placeholder, sent whole; backspace removes it whole", async () => {
  const editor = new LineEditor();
  const lines = Array.from({ length: 30 }, (_, i) => `row ${i}`).join("\n");
  await editor.handle({ type: "paste", text: lines });
  assert.equal(editor.text, "[pasted 30 lines #1]");
  assert.equal(editor.value, lines);
  await type(editor, "\x7f");
  assert.equal(editor.text, "");
  assert.equal(editor.value, "");
});

Deno.test("editor: up walks lines first, then history; a multi-line entry is one step", async () => {
  const editor = new LineEditor({ history: ["old one", "two\nlines"] });
  await type(editor, "draft");
  await type(editor, "\x1b[A");
  assert.equal(editor.text, "two\nlines");
  await type(editor, "\x1b[A");
  assert.equal(editor.text, "old one");
  await type(editor, "\x1b[B");
  assert.equal(editor.text, "two\nlines");
  await type(editor, "\x1b[B\x1b[B");
  assert.equal(editor.text, "draft", "walking back down restores the draft");
});

Deno.test("editor: ctrl+r finds the newest match, again finds older, esc restores", async () => {
  const editor = new LineEditor({ history: ["deploy staging", "run tests", "deploy prod"] });
  await type(editor, "typed");
  await type(editor, "\x12depl");
  assert.equal(editor.text, "deploy prod");
  await type(editor, "\x12");
  assert.equal(editor.text, "deploy staging");
  await type(editor, "\x1b");
  assert.equal(editor.text, "typed");
  await type(editor, "\x12tests");
  const sent = await type(editor, "\r");
  assert.deepEqual(sent, { type: "line", text: "run tests" });
});

Deno.test("editor: Tab completes one candidate, the common start of several, then cycles", async () => {
  const complete: Completer = (text, cursor) =>
    Promise.resolve({
      from: 0,
      to: cursor,
      candidates: ["/model ", "/mode ", "/memory "].filter((c) => c.startsWith(text)),
    });
  const editor = new LineEditor({ complete });
  await type(editor, "/mem\t");
  assert.equal(editor.text, "/memory ");
  const other = new LineEditor({ complete });
  await type(other, "/mod\t");
  assert.equal(other.text, "/mode");
  assert.deepEqual(other.footer, ["  /model", "  /mode"]);
  await type(other, "\t");
  assert.equal(other.text, "/model ");
  assert.deepEqual(other.footer, ["› /model", "  /mode"]);
  await type(other, "\t");
  assert.equal(other.text, "/mode ");
});

Deno.test("editor: ctrl+c cancels typed text, quits on empty; ctrl+d quits only when empty", async () => {
  assert.deepEqual(await type(new LineEditor(), "abc\x03"), { type: "cancel" });
  assert.deepEqual(await type(new LineEditor(), "\x03"), { type: "quit", key: "ctrl+c" });
  const editor = new LineEditor();
  assert.equal(await type(editor, "ab\x1b[D\x04"), undefined);
  assert.equal(editor.text, "a");
  assert.deepEqual(await type(new LineEditor(), "\x04"), { type: "quit", key: "ctrl+d" });
});
