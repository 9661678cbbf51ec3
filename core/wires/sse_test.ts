import { deepEqual, equal } from "node:assert/strict";
import { parseSseStream, type SseEvent, SseParser, type SseSink } from "./sse.ts";

const enc = new TextEncoder();

function parseAll(text: string, splitEvery?: number): SseEvent[] {
  const bytes = enc.encode(text);
  const parser = new SseParser();
  const out: SseEvent[] = [];
  const step = splitEvery ?? bytes.length;
  for (let i = 0; i < bytes.length; i += step) {
    out.push(...parser.feed(bytes.subarray(i, i + step)));
  }
  out.push(...parser.end());
  return out;
}

/** Every split size from 1 byte up must give the same events as the whole text. */
function assertSplitInvariant(text: string, expected: SseEvent[]): void {
  deepEqual(parseAll(text), expected);
  for (let n = 1; n <= 9; n++) deepEqual(parseAll(text, n), expected, `split every ${n} bytes`);
}

const ev = (data: string, event = "message", id = ""): SseEvent => ({ event, data, id });

Deno.test("sse: LF, CRLF and lone CR line endings give the same events", () => {
  const expected = [ev("a"), ev("b", "x")];
  assertSplitInvariant("data: a\n\nevent: x\ndata: b\n\n", expected);
  assertSplitInvariant("data: a\r\n\r\nevent: x\r\ndata: b\r\n\r\n", expected);
  assertSplitInvariant("data: a\r\revent: x\rdata: b\r\r", expected);
  assertSplitInvariant("data: a\r\n\nevent: x\rdata: b\n\r\n", expected);
});

Deno.test("sse: multi-line data is joined with LF; one leading space is stripped", () => {
  assertSplitInvariant("data: one\ndata:two\ndata:  three\n\n", [ev("one\ntwo\n three")]);
  assertSplitInvariant("data\n\n", [ev("")]);
  assertSplitInvariant("data:\ndata:\n\n", [ev("\n")]);
});

Deno.test("sse: comments and unknown fields are ignored; an event without data is not dispatched", () => {
  assertSplitInvariant(": keep-alive\n\nretry: 100\nfoo: bar\n\nevent: ping\n\ndata: x\n\n", [
    ev("x"),
  ]);
});

Deno.test("sse: event names reset after each event; ids persist", () => {
  assertSplitInvariant("event: a\nid: 7\ndata: 1\n\ndata: 2\n\nid\ndata: 3\n\n", [
    ev("1", "a", "7"),
    ev("2", "message", "7"),
    ev("3", "message", ""),
  ]);
  // An id containing NUL is ignored, as the spec requires.
  deepEqual(parseAll("id: 1\ndata: a\n\nid: 2\0x\ndata: b\n\n").map((e) => e.id), ["1", "1"]);
});

Deno.test("sse: UTF-8 sequences split across chunks decode intact", () => {
  const text = "data: Grüße 🎉 — 東京\n\n";
  assertSplitInvariant(text, [ev("Grüße 🎉 — 東京")]);
});

Deno.test("sse: a leading BOM is stripped", () => {
  const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...enc.encode("data: x\n\n")]);
  const parser = new SseParser();
  deepEqual([...parser.feed(bytes.subarray(0, 2)), ...parser.feed(bytes.subarray(2))], [ev("x")]);
});

Deno.test("sse: a field line without a colon is a field with an empty value", () => {
  assertSplitInvariant("event\ndata: x\n\n", [ev("x")]);
});

Deno.test("sse: end() flushes a last line without newline and a pending event", () => {
  const parser = new SseParser();
  deepEqual(parser.feed(enc.encode("data: [DONE]")), []);
  deepEqual(parser.end(), [ev("[DONE]")]);
  const p2 = new SseParser();
  deepEqual(p2.feed(enc.encode("data: a\n")), []);
  deepEqual(p2.end(), [ev("a")]);
});

Deno.test("sse: many events in one chunk and one event over many chunks", () => {
  const many = Array.from({ length: 100 }, (_, i) => `data: ${i}\n\n`).join("");
  deepEqual(parseAll(many).map((e) => e.data), Array.from({ length: 100 }, (_, i) => `${i}`));
  const long = "x".repeat(100_000);
  deepEqual(parseAll(`data: ${long}\n\n`, 4096), [ev(long)]);
});

Deno.test("sse: feedText works on decoded text", () => {
  const p = new SseParser();
  deepEqual(p.feedText("data: a\n"), []);
  deepEqual(p.feedText("\n"), [ev("a")]);
});

Deno.test("sse: a sink's claim may consume whole events, in order with the others", () => {
  const seen: string[] = [];
  const sink: SseSink = {
    onEvent: (data) => seen.push(`event:${data}`),
    claim(text, pos) {
      if (!text.startsWith("data: fast", pos)) return -1;
      const end = text.indexOf("\n\n", pos);
      if (end === -1) return -1;
      seen.push(`claimed:${text.slice(pos + 6, end)}`);
      return end + 2;
    },
  };
  const parser = new SseParser();
  const text = "data: a\n\ndata: fast1\n\nevent: x\ndata: fast2\n\ndata: b\n\ndata: fast3\n\n";
  const bytes = enc.encode(text);
  // Split in the middle of a claimable event: the parser must retry it when complete.
  parser.feedTo(bytes.subarray(0, 15), sink);
  parser.feedTo(bytes.subarray(15), sink);
  parser.endTo(sink);
  // "fast2" follows an `event:` field, so it is not offered to claim (the name would be lost).
  deepEqual(seen, [
    "event:a",
    "claimed:fast1",
    "event:fast2",
    "event:b",
    "claimed:fast3",
  ]);
});

Deno.test("sse: parseSseStream over an async byte stream", async () => {
  const chunks = [enc.encode("data: a\n"), enc.encode("\ndata: b"), enc.encode("\n\n")];
  const body = ReadableStream.from(chunks);
  const got: string[] = [];
  for await (const e of parseSseStream(body)) got.push(e.data);
  deepEqual(got, ["a", "b"]);
  equal(got.length, 2);
});
