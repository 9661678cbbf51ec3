import { equal } from "node:assert/strict";
import { Utf8StreamDecoder } from "./utf8_stream.ts";

/**
 * The reference: all the bytes decoded in one call. Streaming must not change the result.
 * (Not TextDecoder's stream mode: Deno's drops a U+FEFF that starts any read, where the
 * Encoding spec drops only the one at the start of the stream.)
 */
function reference(reads: Uint8Array[]): string {
  const all = new Uint8Array(reads.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const r of reads) {
    all.set(r, at);
    at += r.length;
  }
  return new TextDecoder().decode(all);
}

function decodeAll(reads: Uint8Array[]): string {
  const decoder = new Utf8StreamDecoder();
  let out = "";
  for (const r of reads) {
    decoder.decode(r);
    out += decoder.head + decoder.body;
  }
  return out + decoder.end();
}

const show = (s: string) => JSON.stringify(s);
const hex = (b: Uint8Array) => [...b].map((x) => x.toString(16).padStart(2, "0")).join(" ");

/** Every way to cut `bytes` into two reads, and into reads of every size from 1 to 4. */
function assertEverySplit(bytes: Uint8Array): void {
  const expected = reference([bytes]);
  equal(show(decodeAll([bytes])), show(expected), hex(bytes));
  for (let i = 0; i <= bytes.length; i++) {
    const reads = [bytes.subarray(0, i), bytes.subarray(i)];
    equal(show(decodeAll(reads)), show(expected), `${hex(bytes)} cut at ${i}`);
  }
  for (let n = 1; n <= 4; n++) {
    const reads: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += n) reads.push(bytes.subarray(i, i + n));
    equal(show(decodeAll(reads)), show(expected), `${hex(bytes)} in reads of ${n}`);
  }
}

const bytes = (...b: number[]) => new Uint8Array(b);
const utf8 = (s: string) => new TextEncoder().encode(s);

Deno.test("utf8 stream: valid text decodes the same at every cut", () => {
  assertEverySplit(utf8("plain ascii"));
  assertEverySplit(utf8("Grüße 🎉 — 東京 \u{10FFFF} \u0080 \u07FF \u0800 \uFFFF"));
});

Deno.test("utf8 stream: invalid and truncated sequences give the same U+FFFD at every cut", () => {
  const cases = [
    bytes(0x80), // a lone continuation byte
    bytes(0xbf, 0x80, 0x41),
    bytes(0xc0, 0x80), // overlong lead bytes
    bytes(0xc1, 0xbf),
    bytes(0xc2), // truncated at the end of the stream
    bytes(0xe2, 0x82),
    bytes(0xf0, 0x9f, 0x8e),
    bytes(0xe2, 0x82, 0x41), // truncated before ASCII
    bytes(0xf0, 0x9f, 0xe2, 0x82, 0xac), // truncated before another lead
    bytes(0xe0, 0x80, 0x80), // E0 needs A0..BF next
    bytes(0xe0, 0x9f, 0xbf),
    bytes(0xed, 0xa0, 0x80), // an encoded surrogate
    bytes(0xf0, 0x8f, 0xbf, 0xbf), // F0 needs 90..BF next
    bytes(0xf4, 0x90, 0x80, 0x80), // above U+10FFFF
    bytes(0xf5, 0x80, 0x80, 0x80),
    bytes(0xff, 0xfe, 0x41),
    bytes(0xf0, 0x9f, 0x8e, 0x89, 0x89), // a complete sequence, then a stray continuation
    bytes(0x41, 0xf0, 0x9f, 0x8e),
  ];
  for (const b of cases) assertEverySplit(b);
});

Deno.test("utf8 stream: a BOM is dropped only at the very start, even when split", () => {
  const bom = [0xef, 0xbb, 0xbf];
  equal(decodeAll([bytes(...bom, 0x41)]), "A");
  assertEverySplit(bytes(...bom, 0x41, ...bom, 0x42)); // the second BOM is text
  assertEverySplit(bytes(...bom));
  assertEverySplit(bytes(0x41, ...bom));
  assertEverySplit(bytes(0xff, ...bom)); // not at the start once U+FFFD came out
  equal(decodeAll([bytes(), bytes(), bytes(...bom, 0x41)]), "A");
  equal(decodeAll([bytes(0xef), bytes(0xbb), bytes(0xbf), bytes(0x41)]), "A");
  // A U+FEFF later in the stream is text (a zero-width no-break space), also at the start of
  // a read, where Deno's TextDecoder stream mode would drop it.
  equal(decodeAll([bytes(0x41), bytes(...bom, 0x42)]), "A\uFEFFB");
});

Deno.test("utf8 stream: random bytes in random reads decode as if in one piece", () => {
  // Bytes chosen to hit every branch: ASCII, continuations at the range edges, every kind of
  // lead byte (valid, overlong, out of range) and whole characters.
  const alphabet = [
    0x41,
    0x0a,
    0x80,
    0x8f,
    0x90,
    0x9f,
    0xa0,
    0xbb,
    0xbf,
    0xc0,
    0xc2,
    0xdf,
    0xe0,
    0xe2,
    0xed,
    0xef,
    0xf0,
    0xf4,
    0xf5,
    0xff,
  ];
  const whole = [utf8("é"), utf8("€"), utf8("🎉"), bytes(0xef, 0xbb, 0xbf)];
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return (seed >>> 12) % n; // the low bits of this generator repeat quickly
  };
  for (let round = 0; round < 3000; round++) {
    const parts: number[] = [];
    const len = rand(24);
    for (let i = 0; i < len; i++) {
      if (rand(4) === 0) parts.push(...whole[rand(whole.length)]!);
      else parts.push(alphabet[rand(alphabet.length)]!);
    }
    const all = new Uint8Array(parts);
    const reads: Uint8Array[] = [];
    for (let pos = 0; pos < all.length;) {
      const size = rand(5); // empty reads too
      reads.push(all.subarray(pos, pos + size));
      pos += size;
    }
    equal(show(decodeAll(reads)), show(reference(reads)), hex(all));
  }
});

Deno.test("utf8 stream: a completed sequence comes as head, the rest as body", () => {
  const decoder = new Utf8StreamDecoder();
  decoder.decode(bytes(0x41, 0xf0, 0x9f));
  equal(decoder.head, "");
  equal(decoder.body, "A");
  decoder.decode(bytes(0x8e));
  equal(decoder.head + decoder.body, ""); // still incomplete
  decoder.decode(bytes(0x89, 0x42));
  equal(decoder.head, "🎉");
  equal(decoder.body, "B");
  equal(decoder.end(), "");
});

Deno.test("utf8 stream: a held-back tail is copied, so the caller may reuse its buffer", () => {
  const decoder = new Utf8StreamDecoder();
  const buffer = bytes(0x41, 0xe2, 0x82);
  decoder.decode(buffer);
  buffer.fill(0x20); // a reader reusing its buffer for the next read
  decoder.decode(bytes(0xac));
  equal(decoder.head, "€");
});

Deno.test("utf8 stream: end() turns a held-back sequence into U+FFFD", () => {
  const decoder = new Utf8StreamDecoder();
  decoder.decode(bytes(0x41, 0xe2, 0x82));
  equal(decoder.body, "A");
  equal(decoder.end(), "\uFFFD");
  equal(decoder.end(), "");
});
