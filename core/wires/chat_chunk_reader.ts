// A fast reader for the steady state of a Chat Completions stream. JSON.parse of every chunk
// costs several times the SSE parsing itself, yet within one stream nearly every chunk is
//   <envelope>{"content":"…"}<null tail>        (or reasoning / reasoning_content)
//   <envelope>{"tool_calls":[{"index":N,"function":{"arguments":"…"}}]}<null tail>
// where the envelope ({"id":…,"model":…,"choices":[{"index":0,"delta":) and the tail
// (,"logprobs":null,"finish_reason":null}]}) repeat byte for byte. After one chunk has been
// parsed in full, its envelope and tail are remembered and compiled into one sticky regular
// expression (irregexp runs it as native code) that the SSE parser tries on the decoded
// text at the start of each event, so a steady-state event is neither split into lines nor
// sliced nor JSON-parsed: only its string value is read. An event that matches exactly is
// equivalent to the parsed one with only that string replaced, so reading the string is
// enough; anything else (first tool-call chunk, finish, usage, errors, a changed envelope)
// does not match and is parsed in full. The fast path can only skip work, never change a
// result.

export interface FastDelta {
  /** "content" | "reasoning" | "reasoning_content" | "arguments" */
  field: string;
  value: string;
  /** The tool-call index for "arguments". */
  index: number;
}

const ENVELOPE_END = '"choices":[{"index":0,"delta":';
// A JSON string body without raw control characters (those make JSON.parse fail, so such
// chunks must take the full path and fail the same way).
const STR = '[^"\\\\\\x00-\\x1f]*(?:\\\\.[^"\\\\\\x00-\\x1f]*)*';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

export class ChunkReader {
  #re: RegExp | null = null;
  #prefixLen = 0;
  #tailLen = 0;

  /**
   * Learns from a chunk that was parsed in full and had exactly one choice (index 0), no
   * finish_reason, no usage and no error. Cheap, and only done until it succeeds.
   */
  learn(data: string): void {
    if (this.#re !== null) return;
    const start = data.indexOf(ENVELOPE_END);
    if (start <= 0) return;
    const deltaAt = start + ENVELOPE_END.length;
    const deltaEnd = objectEnd(data, deltaAt);
    if (deltaEnd === -1) return;
    const prefix = data.slice(0, deltaAt);
    const tail = data.slice(deltaEnd);
    if (/"(usage|error)"\s*:\s*[^n\s]/.test(prefix + tail)) return;
    // One whole event: `data:` (one optional space), the chunk, the blank line. No capture
    // groups: test() builds no match array, and the value's bounds follow from the layout.
    this.#re = new RegExp(
      `data: ?${escapeRegExp(prefix)}\\{(?:"(?:content|reasoning_content|reasoning)":"${STR}"|` +
        `"tool_calls":\\[\\{"index":\\d{1,6},"function":\\{"arguments":"${STR}"\\}\\}\\])\\}` +
        `${escapeRegExp(tail)}\n\n`,
      "y",
    );
    this.#prefixLen = prefix.length;
    this.#tailLen = tail.length;
  }

  /**
   * Reads a whole steady-state event starting at `text[pos]` into `out`; returns the index
   * just past it, or -1 when the event must take the normal path.
   */
  claim(text: string, pos: number, out: FastDelta): number {
    const re = this.#re;
    if (re === null) return -1;
    re.lastIndex = pos;
    if (!re.test(text)) return -1;
    const end = re.lastIndex;
    let p = pos + 5; // past "data:"
    if (text.charCodeAt(p) === 32) p++;
    p += this.#prefixLen + 2; // past the envelope, `{` and the key's opening quote
    let from: number;
    let to: number;
    const afterValue = end - 2 - this.#tailLen; // before the tail and the blank line
    switch (text.charCodeAt(p)) {
      case 99: // "content":"
        out.field = "content";
        from = p + 10;
        to = afterValue - 2; // `"}`
        break;
      case 114: // "reasoning":" or "reasoning_content":"
        if (text.charCodeAt(p + 9) === 34) {
          out.field = "reasoning";
          from = p + 12;
        } else {
          out.field = "reasoning_content";
          from = p + 20;
        }
        to = afterValue - 2;
        break;
      default: { // "tool_calls":[{"index":N,"function":{"arguments":"
        out.field = "arguments";
        const digits = p + 22;
        const comma = text.indexOf(",", digits);
        out.index = Number(text.slice(digits, comma));
        from = comma + 26;
        to = afterValue - 5; // `"}}]}`
      }
    }
    const raw = text.slice(from, to);
    if (raw.indexOf("\\") === -1) {
      out.value = raw;
    } else {
      try {
        out.value = JSON.parse(`"${raw}"`) as string;
      } catch {
        return -1;
      }
    }
    return end;
  }
}

/** Index just past the JSON object starting at `from`, or -1. Strings are skipped. */
function objectEnd(s: string, from: number): number {
  if (s.charCodeAt(from) !== 123) return -1;
  let depth = 0;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) {
      for (i++; i < s.length; i++) {
        const d = s.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
