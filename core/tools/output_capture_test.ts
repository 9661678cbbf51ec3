import assert from "node:assert/strict";
import { OutputCapture } from "./output_capture.ts";

const bytes = (...b: number[]) => new Uint8Array(b);

Deno.test("output within the limit comes back whole, whatever the chunking", () => {
  const cap = new OutputCapture(10);
  for (const piece of ["abc", "", "defg", "hij"]) cap.add(piece);
  assert.equal(cap.text(), "abcdefghij");
  assert.equal(cap.total, 10);
});

Deno.test("longer output keeps 70% head and 25% tail with the exact cut count", () => {
  const cap = new OutputCapture(100);
  const all = Array.from({ length: 1000 }, (_, i) => String.fromCharCode(65 + (i % 26))).join("");
  // Uneven chunks, some larger than the whole budget.
  for (let i = 0; i < all.length;) {
    const n = [1, 7, 150, 3, 64][i % 5]!;
    cap.add(all.slice(i, i + n));
    i += n;
  }
  assert.equal(cap.total, 1000);
  assert.equal(cap.text(), `${all.slice(0, 70)}\n… [905 characters cut] …\n${all.slice(975)}`);
});

Deno.test("one character over the limit is cut", () => {
  const cap = new OutputCapture(10);
  cap.add("0123456789X");
  assert.equal(cap.text(), "0123456\n… [2 characters cut] …\n9X");
});

Deno.test("each stream decodes on its own, so split UTF-8 sequences survive interleaving", () => {
  const cap = new OutputCapture(100);
  cap.push("stdout", bytes(0xc3)); // first half of "é"
  cap.push("stderr", bytes(0xe2, 0x82)); // first two thirds of "€"
  cap.push("stdout", bytes(0xa9, 0x21)); // rest of "é", then "!"
  cap.push("stderr", bytes(0xac));
  assert.equal(cap.text(), "é!€");
});

Deno.test("an incomplete sequence at the end becomes one replacement character", () => {
  const cap = new OutputCapture(100);
  cap.push("stdout", bytes(0x6f, 0x6b, 0xe2, 0x82));
  assert.equal(cap.text(), "ok\ufffd");
});

Deno.test("memory stays bounded on a large output", () => {
  const cap = new OutputCapture(1000);
  const chunk = "z".repeat(4096);
  for (let i = 0; i < 2000; i++) cap.add(chunk);
  const text = cap.text();
  assert.equal(cap.total, 2000 * 4096);
  assert.equal(
    text,
    `${"z".repeat(700)}\n… [${2000 * 4096 - 950} characters cut] …\n${"z".repeat(250)}`,
  );
});
