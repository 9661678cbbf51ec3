// The key decoder over the encodings terminals actually send, split across reads as a pty
// may split them.

import assert from "node:assert/strict";
import { KeyDecoder, type KeyEvent } from "./keys.ts";

function decode(...chunks: string[]): KeyEvent[] {
  const d = new KeyDecoder();
  return chunks.flatMap((c) => d.feed(c));
}

const names = (events: KeyEvent[]) =>
  events.map((e) =>
    e.type === "paste"
      ? `paste:${JSON.stringify(e.text)}`
      : `${e.shift ? "S-" : ""}${e.alt ? "M-" : ""}${e.ctrl ? "C-" : ""}${e.char ?? e.name}`
  );

Deno.test("keys: a bracketed paste is one event, its CRs and CSI u Enters as line breaks", () => {
  assert.deepEqual(names(decode("\x1b[200~a\rb\x1b[13;1uc\x1b[13ud\x1b[27;1;13~e\x1b[201~")), [
    'paste:"a\\nb\\nc\\nd\\ne"',
  ]);
});

Deno.test("keys: a paste split across reads, markers included, is still one event", () => {
  assert.deepEqual(names(decode("\x1b[20", "0~one\r", "two\x1b[2", "01~x")), [
    'paste:"one\\ntwo"',
    "x",
  ]);
});

Deno.test("keys: Shift+Enter in both encodings, Alt+Enter, Ctrl+Enter are line breaks", () => {
  assert.deepEqual(names(decode("\x1b[13;2u")), ["S-newline"]);
  assert.deepEqual(names(decode("\x1b[27;2;13~")), ["S-newline"]);
  assert.deepEqual(names(decode("\x1b\r")), ["M-newline"]);
  assert.deepEqual(names(decode("\x1b[13;5u")), ["C-newline"]);
  assert.deepEqual(names(decode("\r")), ["enter"]);
  assert.deepEqual(names(decode("\x1b[13u")), ["enter"]);
});

Deno.test("keys: kitty keyboard protocol letters, ctrl letters and releases", () => {
  assert.deepEqual(names(decode("\x1b[104u\x1b[105;2u\x1b[99;5u\x1b[104;1:3u")), [
    "h",
    "S-I",
    "C-c",
  ]);
});

Deno.test("keys: an unbracketed paste in one read keeps its lines and does not submit", () => {
  assert.deepEqual(names(decode("alpha\rbeta\r")), ['paste:"alpha\\nbeta\\n"']);
  // Typed text and Enter in one read (before raw mode: Enter is LF) is still a submit.
  assert.deepEqual(names(decode("ping\n")), ["p", "i", "n", "g", "enter"]);
});

Deno.test("keys: cursor keys in CSI and SS3 forms, with modifiers; a lone ESC is Escape", () => {
  assert.deepEqual(names(decode("\x1b[A\x1bOB\x1b[1;5D\x1b[H\x1b[4~\x1b[3~")), [
    "up",
    "down",
    "C-left",
    "home",
    "end",
    "delete",
  ]);
  assert.deepEqual(names(decode("\x1b")), ["escape"]);
  assert.deepEqual(names(decode("\x7f\t\x1b[Z")), ["backspace", "tab", "S-tab"]);
});
