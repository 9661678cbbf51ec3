// A fast reader for the steady state of a Chat Completions stream. JSON.parse of every chunk
// costs several times the SSE parsing itself, yet within one stream nearly every chunk is
//   <envelope>{"content":"…"}<null tail>        (or reasoning / reasoning_content)
//   <envelope>{"tool_calls":[{"index":N,"function":{"arguments":"…"}}]}<null tail>
//   <envelope>{"tool_calls":[{"index":N,"id":"…","type":"function",
//              "function":{"name":"…","arguments":"…"}}]}<null tail>      (a call's start)
// where the envelope ({"id":…,"model":…,"choices":[{"index":0,"delta":) and the tail
// (,"logprobs":null,"finish_reason":null}]}) repeat byte for byte. Servers order the choice's
// keys differently (llama-server: {"finish_reason":null,"index":0,"delta":…} with the id and
// model after the choices), so the envelope is whatever precedes "delta" inside the one
// choice, as long as that is only index 0, a null finish_reason and null logprobs. The one
// field allowed to change is `created` (llama-server stamps each chunk with the current
// second; nothing reads it): its digits match any digits of the same count, so positions
// stay fixed. After one chunk has been
// parsed in full, its envelope and tail are remembered and compiled into one sticky regular
// expression (irregexp runs it as native code) that the SSE parser tries on the decoded
// text at the start of each event, so a steady-state event is neither split into lines nor
// sliced nor JSON-parsed: only its strings are read. An event that matches exactly is
// equivalent to the parsed one with only those strings replaced, so reading them is enough;
// anything else (finish, usage, errors, other delta shapes, a changed envelope) does not
// match and is parsed in full. The fast path can only skip work, never change a result: the
// pattern admits exactly JSON's strings (no raw control characters, only valid escapes) and
// numbers (no leading zeros), so whatever it claims JSON.parse would have accepted too. That
// also lets tool-call arguments stay escaped until the call is complete (one JSON.parse per
// call instead of one per fragment).

/** FastDelta kinds. */
export const CONTENT = 0;
export const REASONING = 1; // `reasoning` or `reasoning_content`
export const ARGUMENTS = 2; // a fragment of a started tool call's arguments
export const CALL_START = 3; // a tool call's first chunk: id, name and arguments

/**
 * Where a claimed event's strings are, as JSON string bodies (escapes not decoded): the
 * value is `text.slice(from, to)`, and for CALL_START the id and name are at
 * `idFrom..idTo` and `nameFrom..nameTo`. Numbers only, so filling it allocates nothing.
 */
export interface FastDelta {
  kind: number;
  from: number;
  to: number;
  /** The tool-call index for ARGUMENTS and CALL_START. */
  index: number;
  idFrom: number;
  idTo: number;
  nameFrom: number;
  nameTo: number;
}

export function newFastDelta(): FastDelta {
  return { kind: 0, from: 0, to: 0, index: 0, idFrom: 0, idTo: 0, nameFrom: 0, nameTo: 0 };
}

/** Decodes a JSON string body (the text between the quotes) that `claim` accepted. */
export function decodeStringBody(raw: string): string {
  return raw.indexOf("\\") === -1 ? raw : JSON.parse(`"${raw}"`) as string;
}

const CHOICES = '"choices":[{';
// Inside the single choice, before its delta: index 0, a null finish_reason, null logprobs.
const BEFORE_DELTA = /(?:"(?:index":0|finish_reason":null|logprobs":null),)*"delta":/y;
// A JSON string body: no raw control characters and only valid escapes (anything else makes
// JSON.parse fail, so such chunks must take the full path and fail the same way).
const CHARS = '[^"\\\\\\x00-\\x1f]*';
const STR = `${CHARS}(?:\\\\(?:["\\\\/bfnrt]|u[0-9a-fA-F]{4})${CHARS})*`;
// A JSON array index: no leading zeros (JSON.parse rejects "01").
const INDEX = "(?:0|[1-9]\\d{0,5})";
// Between a call's id and name, and between its name and arguments (see CALL_START).
const AFTER_ID = '","type":"function","function":{"name":"';
const AFTER_NAME = '","arguments":"';

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/** An envelope part matched byte for byte, except the digits of `created` (same count). */
function literal(s: string): string {
  return escapeRegExp(s).replace(
    /"created":(\d+)/g,
    (_, d: string) => `"created":\\d{${d.length}}`,
  );
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
    const start = data.indexOf(CHOICES);
    if (start <= 0) return;
    BEFORE_DELTA.lastIndex = start + CHOICES.length;
    if (!BEFORE_DELTA.test(data)) return;
    const deltaAt = BEFORE_DELTA.lastIndex;
    const deltaEnd = objectEnd(data, deltaAt);
    if (deltaEnd === -1) return;
    const prefix = data.slice(0, deltaAt);
    const tail = data.slice(deltaEnd);
    if (/"(usage|error)"\s*:\s*[^n\s]/.test(prefix + tail)) return;
    // One whole event: `data:` (one optional space), the chunk, the blank line. No capture
    // groups: test() builds no match array, and the strings' bounds follow from the layout.
    this.#re = new RegExp(
      `data: ?${literal(prefix)}\\{(?:"(?:content|reasoning_content|reasoning)":"${STR}"|` +
        `"tool_calls":\\[\\{"index":${INDEX},(?:"function":\\{|"id":"${STR}` +
        `${escapeRegExp(AFTER_ID)}${STR}",)"arguments":"${STR}"\\}\\}\\])\\}` +
        `${literal(tail)}\n\n`,
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
    if (re === null || text.charCodeAt(pos) !== 100 /* d */) return -1;
    re.lastIndex = pos;
    if (!re.test(text)) return -1;
    const end = re.lastIndex;
    let p = pos + 5; // past "data:"
    if (text.charCodeAt(p) === 32) p++;
    p += this.#prefixLen + 2; // past the envelope, `{` and the key's opening quote
    const afterValue = end - 2 - this.#tailLen; // before the tail and the blank line
    switch (text.charCodeAt(p)) {
      case 99: // content":"
        out.kind = CONTENT;
        out.from = p + 10;
        out.to = afterValue - 2; // before `"}`
        break;
      case 114: // reasoning":" or reasoning_content":"
        out.kind = REASONING;
        out.from = text.charCodeAt(p + 9) === 34 ? p + 12 : p + 20;
        out.to = afterValue - 2;
        break;
      default: { // tool_calls":[{"index":N,
        let i = p + 22;
        let index = 0;
        for (let c = text.charCodeAt(i); c !== 44 /* , */; c = text.charCodeAt(++i)) {
          index = index * 10 + c - 48;
        }
        out.index = index;
        out.to = afterValue - 5; // before `"}}]}`
        if (text.charCodeAt(i + 2) === 102 /* f */) { // ,"function":{"arguments":"
          out.kind = ARGUMENTS;
          out.from = i + 26;
          break;
        }
        // ,"id":"…","type":"function","function":{"name":"…","arguments":"
        // The matched strings hold no unescaped quote, so the first separator ends each.
        out.kind = CALL_START;
        out.idFrom = i + 7;
        out.idTo = text.indexOf(AFTER_ID, out.idFrom);
        out.nameFrom = out.idTo + AFTER_ID.length;
        out.nameTo = text.indexOf(AFTER_NAME, out.nameFrom);
        out.from = out.nameTo + AFTER_NAME.length;
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
