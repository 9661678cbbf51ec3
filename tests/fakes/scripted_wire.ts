// An in-memory Wire for loop unit tests: each stream() call plays the next scripted
// assistant message. (End-to-end tests use the HTTP fake in model_server.ts instead.)

import type {
  Message,
  Part,
  StopReason,
  Usage,
  Wire,
  WireEvent,
  WireRequest,
} from "../../core/wires/types.ts";

export interface ScriptedTurn {
  parts: Part[];
  usage?: Usage;
  stop_reason?: StopReason;
  model?: string;
  /** Throw this instead of answering. */
  error?: Error;
}

/**
 * What countTokens() answers: a number, null (with `problem` as countProblem), or a function
 * of the request and signal (e.g. one that waits for the abort).
 */
export type ScriptedCount =
  | number
  | null
  | ((req: WireRequest, signal: AbortSignal | undefined) => Promise<number | null>);

export class ScriptedWire implements Wire {
  readonly kind = "chat_completions" as const;
  readonly endpoint = {
    provider: "chat_completions" as const,
    base_url: "http://scripted",
    auth_style: "bearer" as const,
  };
  readonly requests: WireRequest[] = [];
  /** Requests given to countTokens(), in order. */
  readonly countRequests: WireRequest[] = [];
  /** countTokens()'s answer (default null: "the server cannot say"). */
  count: ScriptedCount = null;
  /** countProblem after a null count. */
  problem = "scripted wire: no count";
  countProblem: string | undefined;
  #turns: Array<ScriptedTurn | ((req: WireRequest) => ScriptedTurn)>;

  constructor(turns: Array<ScriptedTurn | ((req: WireRequest) => ScriptedTurn)>) {
    this.#turns = [...turns];
  }

  get remaining(): number {
    return this.#turns.length;
  }

  async *stream(req: WireRequest): AsyncIterable<WireEvent> {
    this.requests.push({ ...req, messages: structuredClone(req.messages) as Message[] });
    const next = this.#turns.shift();
    if (!next) throw new Error("ScriptedWire: no turn scripted for this request");
    const turn = typeof next === "function" ? next(req) : next;
    if (turn.error) throw turn.error;
    for (const p of turn.parts) {
      if (p.type === "text") yield { type: "text", text: p.text };
      if (p.type === "tool_call") yield { type: "tool_call", id: p.id, name: p.name };
    }
    const usage = turn.usage ?? { input_tokens: 10, output_tokens: 5 };
    const hasCalls = turn.parts.some((p) => p.type === "tool_call");
    yield {
      type: "done",
      message: { role: "assistant", parts: turn.parts },
      stop_reason: turn.stop_reason ?? (hasCalls ? "tool_use" : "end_turn"),
      usage,
      ...(turn.model ? { model: turn.model } : {}),
    };
  }

  listModels() {
    return Promise.resolve(null);
  }

  async countTokens(req: WireRequest, signal?: AbortSignal): Promise<number | null> {
    this.countRequests.push({ ...req, messages: structuredClone(req.messages) as Message[] });
    const n = typeof this.count === "function"
      ? await this.count(req, signal ?? req.signal)
      : this.count;
    this.countProblem = n === null ? this.problem : undefined;
    return n;
  }
}

export const text = (t: string): ScriptedTurn => ({ parts: [{ type: "text", text: t }] });
export const call = (
  name: string,
  input: Record<string, unknown>,
  id = `call_${crypto.randomUUID().slice(0, 8)}`,
): ScriptedTurn => ({
  parts: [{ type: "tool_call", id, name, input }],
});
