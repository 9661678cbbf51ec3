// Turns Chat Completions stream chunks into WireEvents and the final assistant Message.
// vLLM quirks handled: reasoning under `reasoning_content` or `reasoning` (some versions send
// both with the same text, so one is read), tool-call deltas split across chunks (keyed by
// index), usage in a last chunk with empty choices, errors as a `data: {"error": …}` chunk,
// and a stray finish_reason "stop" on a response that did call tools.

import {
  ARGUMENTS,
  CALL_START,
  ChunkReader,
  CONTENT,
  decodeStringBody,
  newFastDelta,
} from "./chat_chunk_reader.ts";
import { droppedError, streamError } from "./errors.ts";
import type { SseSink } from "./sse.ts";
import { readToolArguments, stripNullOptionals } from "./strict_tools.ts";
import type { JsonSchema, Message, Part, StopReason, Usage, WireEvent } from "./types.ts";

interface PendingCall {
  id: string;
  name: string;
  args: string;
  /** Fast-lane fragments still JSON-escaped; they follow `args` (see args()). */
  escaped: string;
  announced: boolean;
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface ChunkChoice {
  delta?: {
    content?: string | null;
    reasoning_content?: string | null;
    reasoning?: string | null;
    refusal?: string | null;
    tool_calls?: ToolCallDelta[] | null;
  };
  finish_reason?: string | null;
}

interface Chunk {
  model?: string;
  choices?: ChunkChoice[];
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number } | null;
  } | null;
  error?: unknown;
  object?: string;
  message?: string;
}

function newCall(): PendingCall {
  return { id: "", name: "", args: "", escaped: "", announced: false };
}

/** A call's arguments so far, with the escaped fast-lane fragments decoded and folded in. */
function args(call: PendingCall): string {
  if (call.escaped !== "") {
    call.args += decodeStringBody(call.escaped);
    call.escaped = "";
  }
  return call.args;
}

/**
 * A run's string pieces, joined when it ends. One flat string per run instead of a cons
 * string per event: the pieces then die young, and objects that outlive a read are what
 * costs the garbage collector most. A single piece (short runs, small reads) needs no array.
 */
class Pieces {
  #one: string | undefined;
  #many: string[] = [];

  add(piece: string): void {
    if (this.#one === undefined) this.#one = piece;
    else {
      if (this.#many.length === 0) this.#many.push(this.#one);
      this.#many.push(piece);
    }
  }

  /** The pieces joined ("" for none); empties the collector. */
  take(): string {
    const one = this.#one;
    if (one === undefined) return "";
    this.#one = undefined;
    const many = this.#many;
    if (many.length === 0) return one;
    const joined = many.join("");
    many.length = 0;
    return joined;
  }
}

let idCounter = 0;
function freshCallId(): string {
  idCounter = (idCounter + 1) % 1_000_000;
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}${idCounter}`;
}

export class ChatCompletionsAssembler implements SseSink {
  /** Events produced by onEvent/claim, drained by the wire after each network read. */
  readonly events: WireEvent[] = [];
  #url: string;
  #strictOriginals: ReadonlyMap<string, JsonSchema>;
  #reasoning = "";
  #text = "";
  #refusal = "";
  #calls: PendingCall[] = [];
  #finish: string | undefined;
  #usage: Usage | undefined;
  #model: string | undefined;
  #sawDone = false;
  #reader = new ChunkReader();
  #fast = newFastDelta();
  #fastEvents = 0;
  // The current fast-lane run's pieces (see #endRun); empty between calls of claim.
  #runText = new Pieces();
  #runReasoning = new Pieces();
  #runArgs = new Pieces();
  #runCall: PendingCall | undefined;

  /** `strictOriginals`: tool name → original schema, for tools sent strict-normalized. */
  constructor(url: string, strictOriginals: ReadonlyMap<string, JsonSchema> = new Map()) {
    this.#url = url;
    this.#strictOriginals = strictOriginals;
  }

  /** True once `data: [DONE]` arrived; the caller stops reading. */
  get complete(): boolean {
    return this.#sawDone;
  }

  onEvent(data: string): void {
    this.push(data, this.events);
  }

  /** How many events took the fast lane (tests check it is really exercised). */
  get fastEvents(): number {
    return this.#fastEvents;
  }

  /**
   * SseSink fast lane: steady-state events read straight from the decoded text, as many in a
   * row as match (one call per run, not per event).
   */
  claim(text: string, pos: number): number {
    if (this.#sawDone) return -1;
    const reader = this.#reader;
    const fast = this.#fast;
    let end = reader.claim(text, pos, fast);
    if (end < 0) return -1;
    const out = this.events;
    const texts = this.#runText;
    const thoughts = this.#runReasoning;
    const args = this.#runArgs;
    do {
      this.#fastEvents++;
      const kind = fast.kind;
      if (kind === ARGUMENTS) {
        const raw = text.slice(fast.from, fast.to);
        const call = this.#calls[fast.index];
        if (call === undefined) {
          this.#endRun();
          const fn = { arguments: decodeStringBody(raw) };
          this.#toolDelta({ index: fast.index, function: fn }, out);
        } else {
          if (call !== this.#runCall) {
            this.#endRun();
            this.#runCall = call;
          }
          args.add(raw);
        }
      } else if (kind === CALL_START) {
        this.#endRun(); // this call's earlier fragments go first
        const fn = {
          name: decodeStringBody(text.slice(fast.nameFrom, fast.nameTo)),
          arguments: decodeStringBody(text.slice(fast.from, fast.to)),
        };
        const id = decodeStringBody(text.slice(fast.idFrom, fast.idTo));
        this.#toolDelta({ index: fast.index, id, function: fn }, out);
      } else if (fast.to > fast.from) {
        const value = decodeStringBody(text.slice(fast.from, fast.to));
        if (kind === CONTENT) {
          texts.add(value);
          out.push({ type: "text", text: value });
        } else {
          thoughts.add(value);
          out.push({ type: "reasoning", text: value });
        }
      }
      pos = end;
      end = reader.claim(text, pos, fast);
    } while (end >= 0);
    this.#endRun();
    return pos;
  }

  /** Appends the current run's pieces to the text, reasoning and call they belong to. */
  #endRun(): void {
    const text = this.#runText.take();
    if (text !== "") this.#text += text;
    const reasoning = this.#runReasoning.take();
    if (reasoning !== "") this.#reasoning += reasoning;
    const call = this.#runCall;
    if (call !== undefined) {
      call.escaped += this.#runArgs.take();
      this.#runCall = undefined;
    }
  }

  /** Handles one SSE `data` payload, appending any events to `out`. */
  push(data: string, out: WireEvent[]): void {
    if (this.#sawDone) return;
    if (data === "[DONE]") {
      this.#sawDone = true;
      return;
    }
    let chunk: Chunk;
    try {
      chunk = JSON.parse(data) as Chunk;
    } catch {
      throw streamError(this.#url, `a chunk is not valid JSON: ${data.slice(0, 200)}`, false);
    }
    if (chunk.error !== undefined || chunk.object === "error") this.#fail(chunk);
    if (chunk.model) this.#model = chunk.model;
    if (chunk.usage) this.#usage = toUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const delta = choice.delta;
    if (delta) {
      // Newer vLLM names it `reasoning`; during the rename some builds send both.
      const reasoning = delta.reasoning ?? delta.reasoning_content;
      if (reasoning) {
        this.#reasoning += reasoning;
        out.push({ type: "reasoning", text: reasoning });
      }
      if (delta.content) {
        this.#text += delta.content;
        out.push({ type: "text", text: delta.content });
      }
      if (delta.refusal) {
        this.#refusal += delta.refusal;
        out.push({ type: "text", text: delta.refusal });
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const tc of delta.tool_calls) {
          if (tc && typeof tc === "object") this.#toolDelta(tc, out);
        }
      }
    }
    if (choice.finish_reason) this.#finish = choice.finish_reason;
    else if (chunk.choices?.length === 1 && !chunk.usage) this.#reader.learn(data);
  }

  #toolDelta(tc: ToolCallDelta, out: WireEvent[]): void {
    let call: PendingCall | undefined;
    if (typeof tc.index === "number") {
      call = this.#calls[tc.index];
      if (!call) this.#calls[tc.index] = call = newCall();
    } else {
      // No index (some non-vLLM servers): a new id starts a call, otherwise extend the last.
      const last = this.#calls[this.#calls.length - 1];
      if (last && (!tc.id || tc.id === last.id)) call = last;
      else this.#calls.push(call = newCall());
    }
    if (tc.id && !call.id) call.id = tc.id;
    const fn = tc.function;
    if (fn?.name) call.name += fn.name;
    if (fn?.arguments) call.args = args(call) + fn.arguments;
    if (!call.announced && call.name) {
      if (!call.id) call.id = freshCallId();
      call.announced = true;
      out.push({ type: "tool_call", id: call.id, name: call.name });
    }
  }

  #fail(chunk: Chunk): never {
    const err = chunk.error;
    let message = chunk.message ?? "unknown error";
    let retryable = true;
    if (typeof err === "string") message = err;
    else if (err && typeof err === "object") {
      const e = err as { message?: unknown; code?: unknown; type?: unknown };
      if (typeof e.message === "string") message = e.message;
      const code = typeof e.code === "number" ? e.code : Number(e.code);
      if (Number.isFinite(code) && code >= 400 && code < 500 && code !== 429) retryable = false;
    }
    throw streamError(this.#url, message, retryable);
  }

  /**
   * Ends the response: the final events (usage, done). A stream that ended with neither
   * [DONE] nor a finish_reason was cut off, which is a stream WireError.
   */
  finish(): WireEvent[] {
    if (!this.#sawDone && this.#finish === undefined) throw droppedError(this.#url);
    const parts: Part[] = [];
    if (this.#reasoning) parts.push({ type: "reasoning", text: this.#reasoning });
    const text = this.#text + this.#refusal;
    if (text) parts.push({ type: "text", text });
    let calls = 0;
    for (const call of this.#calls) {
      if (!call || !call.name) continue;
      calls++;
      const read = readToolArguments(args(call));
      let input = read.input;
      const original = this.#strictOriginals.get(call.name);
      if (original && read.invalid === undefined) input = stripNullOptionals(original, input);
      const id = call.id || freshCallId();
      parts.push(
        read.invalid === undefined
          ? { type: "tool_call", id, name: call.name, input }
          : { type: "tool_call", id, name: call.name, input, raw_arguments: read.invalid },
      );
    }
    const usage = this.#usage ?? { input_tokens: 0, output_tokens: 0 };
    const message: Message = { role: "assistant", parts };
    const stop_reason = this.#stopReason(calls);
    const done: WireEvent = this.#model === undefined
      ? { type: "done", message, stop_reason, usage }
      : { type: "done", message, stop_reason, usage, model: this.#model };
    return this.#usage ? [{ type: "usage", usage }, done] : [done];
  }

  #stopReason(calls: number): StopReason {
    if (this.#refusal || this.#finish === "content_filter") return "refusal";
    if (this.#finish === "length") return "max_tokens";
    // Trust assembled calls over a stray "stop" (vLLM tool parsers do this).
    if (calls > 0) return "tool_use";
    if (this.#finish === "stop" || this.#finish === "tool_calls" || this.#finish === undefined) {
      return "end_turn";
    }
    return "other";
  }
}

/** prompt_tokens includes cached tokens; Usage keeps them apart (see Usage in types.ts). */
function toUsage(u: NonNullable<Chunk["usage"]>): Usage {
  const prompt = u.prompt_tokens ?? 0;
  const cached = u.prompt_tokens_details?.cached_tokens ?? 0;
  const usage: Usage = {
    input_tokens: Math.max(0, prompt - cached),
    output_tokens: u.completion_tokens ?? 0,
  };
  if (u.prompt_tokens_details?.cached_tokens !== undefined) usage.cache_read_tokens = cached;
  return usage;
}
