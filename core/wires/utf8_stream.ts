// Streaming UTF-8 decoding with exactly the output of `TextDecoder` in stream mode (WHATWG:
// a leading BOM is dropped, each maximal invalid subsequence becomes one U+FFFD), but every
// read is decoded in one pass. Deno's stream mode falls back to a slower incremental decoder
// for good once a read ends inside a multi-byte sequence, which long streams always do. Here
// such a tail (at most 3 bytes) is held back and completed with the next read's first bytes.
//
// Why the cut points are safe: decoding the bytes before a non-continuation byte on their
// own ends, at worst, with one U+FFFD for a pending sequence, which is exactly what the
// stream decoder emits when that byte arrives; and a held-back sequence completed to its full
// length (or cut before a non-continuation byte) leaves the stream decoder with nothing
// pending either. So the concatenated output equals decoding the whole stream at once.

/** Sequence length announced by a lead byte; 1 for ASCII and bytes that cannot start one. */
function sequenceLength(b: number): number {
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 1;
}

const isContinuation = (b: number) => (b & 0xc0) === 0x80;

export class Utf8StreamDecoder {
  // ignoreBOM: the BOM is handled here, once per stream, not at the start of every read.
  #decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  #carry: Uint8Array | null = null; // an incomplete sequence from the end of the last read
  #atStart = true; // no text produced yet, so a BOM may still come
  /**
   * The text of the last `decode` comes in two parts so that a large read is never copied
   * just to put a character or two in front of it: `head` (the completion of a sequence
   * held back from the previous read, usually "") and then `body`.
   */
  head = "";
  body = "";

  /** Decodes one read into `head` and `body`. */
  decode(chunk: Uint8Array): void {
    let start = 0;
    let head = "";
    const carry = this.#carry;
    if (carry !== null) {
      const need = sequenceLength(carry[0]!) - carry.length;
      let k = 0;
      while (k < need && k < chunk.length && isContinuation(chunk[k]!)) k++;
      if (k === chunk.length && k < need) {
        // Still incomplete (a read of one or two bytes): keep holding it.
        const longer = new Uint8Array(carry.length + k);
        longer.set(carry);
        longer.set(chunk, carry.length);
        this.#carry = longer;
        this.head = this.body = "";
        return;
      }
      const joined = new Uint8Array(carry.length + k);
      joined.set(carry);
      joined.set(chunk.subarray(0, k), carry.length);
      head = this.#decoder.decode(joined);
      this.#carry = null;
      start = k;
    }
    let end = chunk.length;
    // The last non-continuation byte among the last three: a lead byte there whose sequence
    // does not fit before the end starts an incomplete sequence.
    for (let i = end - 1; i >= start && i >= end - 3; i--) {
      const b = chunk[i]!;
      if (isContinuation(b)) continue;
      if (sequenceLength(b) > end - i) {
        this.#carry = chunk.slice(i, end); // a copy: the caller may reuse its buffer
        end = i;
      }
      break;
    }
    let body = "";
    if (end > start) {
      body = this.#decoder.decode(
        start === 0 && end === chunk.length ? chunk : chunk.subarray(start, end),
      );
    }
    if (this.#atStart) {
      if (head !== "") head = this.#dropBom(head);
      else if (body !== "") body = this.#dropBom(body);
    }
    this.head = head;
    this.body = body;
  }

  /** Ends the stream: a sequence still held back decodes to U+FFFD. */
  end(): string {
    const carry = this.#carry;
    this.#carry = null;
    this.head = this.body = "";
    if (carry === null) return "";
    const text = this.#decoder.decode(carry);
    return this.#atStart ? this.#dropBom(text) : text;
  }

  #dropBom(text: string): string {
    this.#atStart = false;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
}
