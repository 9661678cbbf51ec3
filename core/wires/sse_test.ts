import { deepEqual, equal, ok } from "node:assert/strict";
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

/** Events of `text` fed as the given reads, through a sink with or without a fast lane. */
function eventsOf(reads: Uint8Array[], claim = false): string[] {
  const seen: string[] = [];
  const sink: SseSink = {
    // The fast lane does not see ids, so they are only recorded without one.
    onEvent: (data, event, id) => seen.push(claim ? `${event}|${data}` : `${event}|${id}|${data}`),
  };
  if (claim) {
    // Claims any run of `data: fast…` events, as the real fast lane does.
    sink.claim = (text, pos) => {
      let at = pos;
      for (;;) {
        if (!text.startsWith("data: fast", at)) break;
        const end = text.indexOf("\n\n", at);
        const nl = text.indexOf("\n", at);
        if (end === -1 || nl !== end) break; // only single-line events
        seen.push(`message|claimed:${text.slice(at + 6, end)}`);
        at = end + 2;
      }
      return at > pos ? at : -1;
    };
  }
  const parser = new SseParser();
  for (const r of reads) parser.feedTo(r, sink);
  parser.endTo(sink);
  return seen;
}

/** Two reads cut at every byte, and reads of every size from 1 to 5. */
function everySplit(bytes: Uint8Array): Uint8Array[][] {
  const out: Uint8Array[][] = [];
  for (let i = 0; i <= bytes.length; i++) out.push([bytes.subarray(0, i), bytes.subarray(i)]);
  for (let n = 1; n <= 5; n++) {
    const reads: Uint8Array[] = [];
    for (let i = 0; i < bytes.length; i += n) reads.push(bytes.subarray(i, i + n));
    out.push(reads);
  }
  return out;
}

const MIXED = "\uFEFF: hello\n\ndata: fast1\n\ndata: fast2\n\nid: 9\ndata: a\ndata: Grüße 🎉\n\n" +
  "data: fast3 東京\n\nevent: x\ndata: fast-but-named\n\ndata: b\r\n\r\ndata: fast4\n\n" +
  "data: c\rdata: d\r\rdata\n\nretry: 5\ndata:" + "x".repeat(300) + "\n\ndata: fast5\n\n" +
  "data: tail-without-blank-line";

Deno.test("sse: every cut of a mixed stream gives the events of the whole", () => {
  const bytes = enc.encode(MIXED);
  const whole = eventsOf([bytes]);
  equal(whole.length, 12);
  for (const reads of everySplit(bytes)) {
    deepEqual(eventsOf(reads), whole, `reads of ${reads.map((r) => r.length)}`);
  }
});

Deno.test("sse: a fast lane changes no event at any cut, CR or not", () => {
  const bytes = enc.encode(MIXED);
  const plain = eventsOf([bytes]).map((e) => e.replace(/\|[^|]*\|/, "|")); // without ids
  for (const reads of [[bytes], ...everySplit(bytes)]) {
    const got = eventsOf(reads, true).map((e) => e.replace("claimed:", ""));
    deepEqual(got, plain, `reads of ${reads.map((r) => r.length)}`);
  }
});

Deno.test("sse: the fast lane is offered every whole event, at every cut of an LF stream", () => {
  const text = "data: fast1\n\ndata: fast2 東京 🎉\n\ndata: slow\n\ndata: fast3\n\n: ping\n\n" +
    "id: 1\ndata: fast4\n\ndata: fast5\n\n";
  const bytes = enc.encode(text);
  const fast = ["fast1", "fast2 東京 🎉", "fast3", "fast4", "fast5"];
  deepEqual(eventsOf([bytes], true).filter((e) => e.includes("claimed:")), [
    ...fast.map((f) => `message|claimed:${f}`),
  ]);
  for (let cut = 0; cut <= bytes.length; cut++) {
    const got = eventsOf([bytes.subarray(0, cut), bytes.subarray(cut)], true);
    for (const f of fast) {
      // Only a cut between an event's data line and its blank line hides the whole event
      // from the fast lane (the data line is handled before the blank line arrives).
      const blank = enc.encode(text.slice(0, text.indexOf(`${f}\n\n`) + f.length)).length;
      const claimed = got.includes(`message|claimed:${f}`);
      equal(claimed, cut !== blank + 1, `${f}, cut at ${cut}: ${got.join(" / ")}`);
      if (!claimed) ok(got.includes(`message|${f}`));
    }
  }
});

Deno.test("sse: a long line over many small reads is kept whole", () => {
  const line = "y".repeat(50_000) + "🎉";
  const bytes = enc.encode(`data: ${line}\n\ndata: z\n\n`);
  const reads: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += 7) reads.push(bytes.subarray(i, i + 7));
  deepEqual(eventsOf(reads), [`message||${line}`, "message||z"]);
});

Deno.test("sse: a U+FEFF after the start is data, even at the start of a read", () => {
  const first = enc.encode("data: a");
  const second = enc.encode("\uFEFFb\n\n");
  deepEqual(eventsOf([first, second]), ["message||a\uFEFFb"]);
});
