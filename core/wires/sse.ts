// Incremental Server-Sent Events parser (WHATWG "event stream" interpretation) over a
// byte stream. Chunk boundaries may fall anywhere: inside a line, between CR and LF, or
// inside a UTF-8 sequence (Utf8StreamDecoder carries partial sequences over).
// It is on the hot path of every model response, so lines are scanned by index and only
// field values are sliced out. Nor is a read's text copied to join it with the incomplete
// line left over from the previous read: that line is joined only with the start of the
// read, through the first blank line (the end of the event it belongs to).

import { Utf8StreamDecoder } from "./utf8_stream.ts";

/** Receives events in stream order; the hot path of the wires (no per-event objects). */
export interface SseSink {
  onEvent(data: string, event: string, id: string): void;
  /**
   * Optional fast lane: offered the decoded text at the start of each `data:` line (when no
   * field of the next event is pending). It may consume whole events (each through its blank
   * line, any number in a row) and return the index just past the last, or return -1 to let
   * the parser handle the event.
   */
  claim?(text: string, pos: number): number;
}

export interface SseEvent {
  /** The `event:` name; "message" when the server sent none. */
  event: string;
  /** The `data:` lines joined with "\n". */
  data: string;
  /** The last `id:` seen so far (it persists across events, as the spec says). */
  id: string;
}

const LF = 10;
const CR = 13;
const COLON = 58;
const SPACE = 32;

export class SseParser {
  #decoder = new Utf8StreamDecoder(); // strips a leading BOM, as the spec requires
  #rest = ""; // an incomplete trailing line (never holds CR or LF)
  #skipLf = false; // the previous chunk ended with CR; a leading LF belongs to it
  #data = "";
  #hasData = false;
  #event = "";
  #id = "";

  /** Feeds one chunk of bytes; returns the events it completed (often none or one). */
  feed(chunk: Uint8Array): SseEvent[] {
    const out = new Collector();
    this.feedTo(chunk, out);
    return out.events;
  }

  /** Feeds already-decoded text (used by tests and by callers that decode themselves). */
  feedText(text: string): SseEvent[] {
    const out = new Collector();
    this.#scan(text, out);
    return out.events;
  }

  /** Feeds one chunk of bytes, handing completed events to `sink` in order. */
  feedTo(chunk: Uint8Array, sink: SseSink): void {
    const decoder = this.#decoder;
    decoder.decode(chunk);
    if (decoder.head !== "") this.#scan(decoder.head, sink);
    if (decoder.body !== "") this.#scan(decoder.body, sink);
  }

  /**
   * Ends the stream. A final line without its newline is processed, and a pending event
   * is dispatched even without the blank line: servers that close right after the last
   * `data:` line would otherwise lose it.
   */
  end(): SseEvent[] {
    const out = new Collector();
    this.endTo(out);
    return out.events;
  }

  endTo(sink: SseSink): void {
    const text = this.#rest + this.#decoder.end();
    this.#rest = "";
    if (text.length > 0) this.#line(text, 0, text.length, sink);
    this.#dispatch(sink);
  }

  #scan(chunk: string, sink: SseSink): void {
    let pos = 0;
    if (this.#skipLf) {
      this.#skipLf = false;
      if (chunk.charCodeAt(0) === LF) pos = 1;
    }
    const rest = this.#rest;
    if (rest === "") return this.#lines(chunk, pos, sink);
    this.#rest = "";
    // `rest + chunk` would copy the whole read once the string is scanned. Join the carried
    // line only with the chunk's start up to the first blank line (so a fast-lane event split
    // across reads is still whole), then go on in the chunk itself, at a line boundary.
    const blank = chunk.indexOf("\n\n", pos);
    if (blank !== -1) {
      this.#lines(rest + chunk.slice(pos, blank + 2), 0, sink);
      return this.#lines(chunk, blank + 2, sink);
    }
    // No line ends in this chunk (a long line): carry it without scanning or copying it.
    if (chunk.indexOf("\n", pos) === -1 && chunk.indexOf("\r", pos) === -1) {
      this.#rest = rest + chunk.slice(pos);
      return;
    }
    this.#lines(rest + chunk.slice(pos), 0, sink);
  }

  /** Handles the complete lines of `text` from `pos`; an incomplete last line is kept. */
  #lines(text: string, pos: number, sink: SseSink): void {
    const len = text.length;
    // Fast path: most servers send LF only, so indexOf does the scanning.
    if (text.indexOf("\r", pos) === -1) {
      const claim = sink.claim;
      for (;;) {
        const nl = text.indexOf("\n", pos);
        if (nl === -1) break; // an incomplete line: no event to offer either
        if (
          claim !== undefined && !this.#hasData && this.#event === "" &&
          text.charCodeAt(pos) === 100 /* d */
        ) {
          const end = claim.call(sink, text, pos);
          if (end > pos) {
            pos = end;
            continue;
          }
        }
        this.#line(text, pos, nl, sink);
        pos = nl + 1;
      }
      if (pos < len) this.#rest = text.slice(pos);
      return;
    }
    while (pos < len) {
      let end = pos;
      let code = 0;
      while (end < len) {
        code = text.charCodeAt(end);
        if (code === LF || code === CR) break;
        end++;
      }
      if (end === len) break;
      this.#line(text, pos, end, sink);
      pos = end + 1;
      if (code === CR) {
        if (pos === len) {
          this.#skipLf = true;
        } else if (text.charCodeAt(pos) === LF) {
          pos++;
        }
      }
    }
    if (pos < len) this.#rest = text.slice(pos);
  }

  #line(text: string, start: number, end: number, sink: SseSink): void {
    if (start === end) return this.#dispatch(sink);
    const first = text.charCodeAt(start);
    if (first === COLON) return; // comment (keep-alive)
    // "data:" checked by char codes: startsWith is slower on two-byte strings.
    if (
      first === 100 && text.charCodeAt(start + 4) === COLON && text.charCodeAt(start + 1) === 97 &&
      text.charCodeAt(start + 2) === 116 && text.charCodeAt(start + 3) === 97
    ) {
      let from = start + 5;
      if (from < end && text.charCodeAt(from) === SPACE) from++;
      this.#appendData(text.slice(from, end));
      return;
    }
    let colon = text.indexOf(":", start);
    if (colon === -1 || colon > end) colon = end;
    const field = text.slice(start, colon);
    let from = colon + 1;
    if (from < end && text.charCodeAt(from) === SPACE) from++;
    const value = colon === end ? "" : text.slice(from, end);
    switch (field) {
      case "data":
        this.#appendData(value);
        break;
      case "event":
        this.#event = value;
        break;
      case "id":
        if (!value.includes("\0")) this.#id = value;
        break;
      default:
        break; // "retry" and unknown fields are ignored
    }
  }

  #appendData(value: string): void {
    if (this.#hasData) {
      this.#data += "\n" + value;
    } else {
      this.#data = value;
      this.#hasData = true;
    }
  }

  #dispatch(sink: SseSink): void {
    if (this.#hasData) sink.onEvent(this.#data, this.#event || "message", this.#id);
    this.#data = "";
    this.#hasData = false;
    this.#event = "";
  }
}

class Collector implements SseSink {
  events: SseEvent[] = [];
  onEvent(data: string, event: string, id: string): void {
    this.events.push({ event, data, id });
  }
}

/** Parses a whole byte stream into events (convenience over SseParser). */
export async function* parseSseStream(
  body: AsyncIterable<Uint8Array>,
): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  for await (const chunk of body) {
    for (const event of parser.feed(chunk)) yield event;
  }
  for (const event of parser.end()) yield event;
}
