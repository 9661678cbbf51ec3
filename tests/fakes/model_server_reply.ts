// The fluent script for one fake model-server answer. A reply is wire-neutral: the fake
// renders it into Chat Completions chunks or Messages events, whichever wire the request used.
// See model_server.ts for the whole API.

export type ReplyStep =
  | { kind: "reasoning"; text: string; signature?: string }
  | { kind: "redacted"; data: string }
  | { kind: "text"; text: string }
  | {
    kind: "tool";
    name: string;
    args: Record<string, unknown>;
    id?: string;
    fragments: number;
    /** Arguments text sent verbatim instead of JSON.stringify(args) (e.g. cut off). */
    raw?: string;
  }
  | { kind: "hang" }
  | { kind: "gate"; opened: Promise<void> }
  | { kind: "streamError"; message: string; type: string }
  | { kind: "reset" }
  | { kind: "raw"; sse: string };

export type ReasoningField = "reasoning_content" | "reasoning" | "both";

/** Neutral stop reasons, mapped to each wire's own names when rendered. */
export type FakeStop = "end_turn" | "tool_use" | "max_tokens" | "stop_sequence" | "refusal";

export interface FakeUsage {
  input: number;
  output: number;
  cacheRead?: number;
  cacheCreation?: number;
}

export class ReplyBuilder {
  readonly kind = "reply" as const;
  readonly steps: ReplyStep[] = [];
  usageValue: FakeUsage | undefined;
  stopValue: FakeStop | undefined;
  /** Chat Completions only: the raw finish_reason to send (e.g. a stray "stop"). */
  finishReasonValue: string | undefined;
  modelValue: string | undefined;
  reasoningFieldValue: ReasoningField = "reasoning_content";
  /** Characters per streamed text/reasoning piece. */
  pieceSize = 8;

  /** Reasoning text. On the Messages wire it becomes a thinking block, signed by the fake. */
  reasoning(text: string, opts: { signature?: string } = {}): this {
    this.steps.push(
      opts.signature === undefined
        ? { kind: "reasoning", text }
        : { kind: "reasoning", text, signature: opts.signature },
    );
    return this;
  }

  /** A redacted_thinking block (Messages wire only; nothing on Chat Completions). */
  redactedThinking(data: string): this {
    this.steps.push({ kind: "redacted", data });
    return this;
  }

  text(text: string): this {
    this.steps.push({ kind: "text", text });
    return this;
  }

  /** A tool call; its JSON arguments are streamed in `fragments` pieces (default 3). */
  tool(
    name: string,
    args: Record<string, unknown>,
    opts: { id?: string; fragments?: number } = {},
  ): this {
    const step: ReplyStep = { kind: "tool", name, args, fragments: opts.fragments ?? 3 };
    if (opts.id !== undefined) step.id = opts.id;
    this.steps.push(step);
    return this;
  }

  /**
   * A tool call whose arguments text is sent exactly as given, e.g. `{"path":` as llama-server
   * sends it when max_tokens cuts the call off (pair with .stop("max_tokens")).
   */
  toolRaw(
    name: string,
    rawArguments: string,
    opts: { id?: string; fragments?: number } = {},
  ): this {
    const step: ReplyStep = {
      kind: "tool",
      name,
      args: {},
      fragments: opts.fragments ?? 2,
      raw: rawArguments,
    };
    if (opts.id !== undefined) step.id = opts.id;
    this.steps.push(step);
    return this;
  }

  usage(input: number, output: number, cache: { read?: number; creation?: number } = {}): this {
    this.usageValue = { input, output };
    if (cache.read !== undefined) this.usageValue.cacheRead = cache.read;
    if (cache.creation !== undefined) this.usageValue.cacheCreation = cache.creation;
    return this;
  }

  /** The stop reason (default: tool_use when the reply calls a tool, else end_turn). */
  stop(reason: FakeStop): this {
    this.stopValue = reason;
    return this;
  }

  /** Chat Completions: send this finish_reason verbatim (vLLM's stray "stop" after tools). */
  finishReason(raw: string): this {
    this.finishReasonValue = raw;
    return this;
  }

  /** The model name reported in the response (default: the fake's responseModel). */
  model(name: string): this {
    this.modelValue = name;
    return this;
  }

  /** Chat Completions: which delta field carries reasoning (vLLM renamed it). */
  reasoningField(field: ReasoningField): this {
    this.reasoningFieldValue = field;
    return this;
  }

  /** Characters per streamed piece (default 8). */
  pieces(size: number): this {
    this.pieceSize = Math.max(1, size);
    return this;
  }

  /** Stop sending (connection stays open) until the client gives up or the fake closes. */
  hang(): this {
    this.steps.push({ kind: "hang" });
    return this;
  }

  /**
   * Hold the stream here until `opened` resolves (or the client goes away): a test sees what
   * the client shows while it waits, then lets the reply go on. No timers involved.
   */
  gate(opened: Promise<void>): this {
    this.steps.push({ kind: "gate", opened });
    return this;
  }

  /** A mid-stream error event (Messages `event: error`; Chat Completions `data: {"error"}`). */
  streamError(message: string, type = "overloaded_error"): this {
    this.steps.push({ kind: "streamError", message, type });
    return this;
  }

  /** Drop the connection abruptly at this point. */
  reset(): this {
    this.steps.push({ kind: "reset" });
    return this;
  }

  /** Send this SSE text verbatim (e.g. a fixture from tests/fixtures/streams/). */
  raw(sse: string): this {
    this.steps.push({ kind: "raw", sse });
    return this;
  }
}

export interface HttpErrorReply {
  readonly kind: "http_error";
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

export function reply(): ReplyBuilder {
  return new ReplyBuilder();
}

/** A non-2xx answer. `body` is sent as JSON (a string is sent as text). */
export function httpError(
  status: number,
  body: unknown = { error: { message: `fake error ${status}` } },
  headers: Record<string, string> = {},
): HttpErrorReply {
  return { kind: "http_error", status, body, headers };
}

/** Splits text into pieces of `size` code points (never inside a surrogate pair). */
export function splitPieces(text: string, size: number): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(""));
  return out;
}

/** Splits a JSON string into `n` fragments at arbitrary points (as real servers do). */
export function splitFragments(json: string, n: number): string[] {
  const count = Math.max(1, Math.min(n, json.length));
  const size = Math.ceil(json.length / count);
  return splitPieces(json, size);
}

/** The fake's thinking signature: it encodes the text, so any edit is detected. */
export function fakeSignature(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return `fake-sig:${btoa(binary)}`;
}

/** Whether a signature issued by fakeSignature() matches `text` (foreign ones pass). */
export function signatureMatches(signature: string, text: string): boolean {
  if (!signature.startsWith("fake-sig:")) return true;
  return signature === fakeSignature(text);
}

/** Rough token count for default usage figures (4 characters a token). */
export function roughTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
