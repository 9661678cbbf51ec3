// The turn loop: stream a reply, run its tool calls under the permission mode, feed the
// results back, until the model stops or a limit ends the run. Every ending has a done_reason.

import type {
  Message,
  Part,
  StopReason,
  ToolCallPart,
  ToolSpec,
  Usage,
  WireEvent,
} from "../wires/types.ts";
import type { Tool } from "../tools/types.ts";
import type { DoneReason } from "./types.ts";
import type { PendingCall } from "./journal.ts";
import { compactHistory, shouldCompact } from "./compaction.ts";
import { type BudgetDecision, budgetGate, PromptEstimator } from "./budget.ts";
import { DEFAULT_MODEL_SENTINEL } from "../wires/probe.ts";
import { errorText } from "../logger.ts";
import { notRunReason } from "./cut_off.ts";
import { explainUnknownModel } from "./model_errors.ts";
import { runCall, toolResult } from "./tool_call.ts";
import type { LoopConfig, LoopResult } from "./loop_types.ts";
import { hasReasoning, lastAssistantText, lastUserText } from "./history_text.ts";
import { addUsage, promptTokens } from "../wires/usage.ts";
import {
  capToolResults,
  isContextOverflow,
  lookAheadTokens,
  overflowExcess,
  shedTokens,
} from "./context_fit.ts";

export const DEFAULT_MAX_TURNS = 100;
/** The same call with the same arguments this many times in a row ends the run. */
export const LOOP_REPEAT_LIMIT = 4;
/** After a context-overflow 400, the share of the window one tool result may keep. */
const OVERFLOW_RESULT_SHARE = 0.1;

export type { ToolCallPart };
export { lastAssistantText, toolResult };

export type { LoopConfig, LoopEvent, LoopResult } from "./loop_types.ts";

/** Runs until the model stops. `history` ends with the user message that starts this leg. */
export function runLoop(history: readonly Message[], cfg: LoopConfig): Promise<LoopResult> {
  return new LoopRun(history, cfg).run();
}

type Done = Extract<WireEvent, { type: "done" }>;
type Sendable = Extract<BudgetDecision, { send: true }>;

/** One request about to go: its volatile reminder and the budget's verdict on it. */
interface PreparedRequest {
  reminder: string | undefined;
  check: Sendable | undefined;
  maxTokens: number | undefined;
}

/** How one streamed turn went: a reply, a retry after compacting, or the run's end. */
type Streamed =
  | { kind: "reply"; done: Done }
  | { kind: "retry" }
  | { kind: "ended"; result: LoopResult };

/** The state of one runLoop call; each method is one phase of a turn. */
class LoopRun {
  readonly #cfg: LoopConfig;
  readonly #messages: Message[];
  readonly #usage: Usage = { input_tokens: 0, output_tokens: 0 };
  readonly #maxTurns: number;
  #toolByName = new Map<string, Tool>();
  #specs: ToolSpec[] = [];
  /** The tools #specs was built from, to notice a list changed in place. */
  #offered: readonly Tool[] = [];
  // The next request's prompt size as best known: the last turn's whole context plus an
  // estimate of what was appended since (tool results), so compaction looks ahead.
  #lastContext = 0;
  #pendingTokens = 0;
  readonly #estimator = new PromptEstimator();
  #overflowRetried = false;
  #stopReason: StopReason | undefined;
  #model: string | undefined;
  #turns = 0;
  #streak = { signature: "", count: 0 };
  #refused: string | undefined;

  constructor(history: readonly Message[], cfg: LoopConfig) {
    this.#cfg = cfg;
    this.#messages = [...history];
    this.#maxTurns = cfg.max_turns ?? DEFAULT_MAX_TURNS;
    this.#syncTools();
  }

  /** Rebuilds the offered tools when the caller's list changed since the last request. */
  #syncTools(): void {
    const tools = this.#cfg.tools;
    const same = tools.length === this.#offered.length &&
      tools.every((t, i) => t === this.#offered[i]);
    if (same) return;
    this.#offered = [...tools];
    this.#toolByName = new Map(tools.map((t) => [t.name, t]));
    this.#specs = tools.map((t) => ({
      name: t.name,
      description: t.description,
      input_schema: t.input_schema,
    }));
  }

  async run(): Promise<LoopResult> {
    for (;;) {
      const cfg = this.#cfg;
      if (cfg.signal?.aborted) return this.#end("error", { error: "interrupted" });
      if (this.#turns >= this.#maxTurns) {
        return this.#end("turn_cap", { error: `stopped after ${this.#maxTurns} model turns` });
      }
      const window = typeof cfg.context_window === "function"
        ? cfg.context_window()
        : cfg.context_window;
      this.#syncTools();
      const compactionEnd = await this.#compactIfDue(window);
      if (compactionEnd) return compactionEnd;
      const request = this.#prepare();
      if ("done_reason" in request) return request;
      this.#turns++;
      const streamed = await this.#stream(request, window);
      if (streamed.kind === "ended") return streamed.result;
      if (streamed.kind === "retry") continue;
      const done = streamed.done;
      this.#record(done);
      const calls = done.message.parts.filter((p): p is ToolCallPart => p.type === "tool_call");
      const replyEnd = this.#judgeReply(done, calls, request.check);
      if (replyEnd) return replyEnd;
      const callsEnd = await this.#runCalls(calls, done.stop_reason, window);
      if (callsEnd) return callsEnd;
    }
  }

  #end(done_reason: DoneReason, extra: Partial<LoopResult> = {}): LoopResult {
    return {
      done_reason,
      messages: this.#messages,
      final_text: extra.final_text ?? lastAssistantText(this.#messages),
      usage: this.#usage,
      questions: extra.questions ?? [],
      turns: this.#turns,
      ...(this.#model ? { model: this.#model } : {}),
      ...(this.#stopReason ? { stop_reason: this.#stopReason } : {}),
      ...(extra.error ? { error: extra.error } : {}),
      ...(this.#refused ? { refused: this.#refused } : {}),
    };
  }

  /** The budget's verdict on a request with this prompt estimate; undefined = no budget. */
  #gate(promptEstimate: number): BudgetDecision | undefined {
    const cfg = this.#cfg;
    return cfg.token_budget === undefined ? undefined : budgetGate(
      cfg.token_budget,
      this.#usage,
      promptEstimate,
      cfg.max_tokens ?? cfg.wire.defaultMaxTokens,
    );
  }

  /** Compacts the history when the next request would pass the threshold; an ending or not. */
  async #compactIfDue(window: number): Promise<LoopResult | undefined> {
    const cfg = this.#cfg;
    if (
      cfg.compaction_threshold === undefined ||
      !shouldCompact(this.#lastContext + this.#pendingTokens, window, cfg.compaction_threshold)
    ) return undefined;
    // The summary call is a request too; the history it reads is no bigger than the next
    // request's, so that request's estimate is a safe stand-in for its prompt.
    const check = this.#gate(
      this.#estimator.estimate({
        system: cfg.system,
        tools: this.#specs,
        messages: this.#messages,
      }),
    );
    if (check && !check.send) return this.#end("token_budget", { error: check.error });
    try {
      if (await this.#compact(check?.max_tokens)) {
        this.#lastContext = 0;
        this.#pendingTokens = 0;
      }
    } catch (err) {
      return this.#end("error", { error: cfg.signal?.aborted ? "interrupted" : errorText(err) });
    }
    return undefined;
  }

  /** The next request's reminder and the budget's verdict on it; an ending when it may not go. */
  #prepare(): PreparedRequest | LoopResult {
    const cfg = this.#cfg;
    let reminder: string | undefined;
    try {
      reminder = cfg.reminder?.(lastUserText(this.#messages));
    } catch (err) {
      return this.#end("error", { error: errorText(err) });
    }
    const check = this.#gate(
      this.#estimator.estimate({
        system: cfg.system,
        tools: this.#specs,
        messages: this.#messages,
        reminder,
      }),
    );
    if (check && !check.send) return this.#end("token_budget", { error: check.error });
    return { reminder, check, maxTokens: check?.max_tokens ?? cfg.max_tokens };
  }

  /** Streams one reply; a context overflow compacts and asks for a retry (once in a row). */
  async #stream(request: PreparedRequest, window: number): Promise<Streamed> {
    const cfg = this.#cfg;
    const { reminder, maxTokens } = request;
    let done: Done | undefined;
    try {
      for await (
        const event of cfg.wire.stream({
          model: cfg.model,
          system: cfg.system,
          messages: this.#messages,
          tools: this.#specs,
          ...(reminder ? { reminder } : {}),
          ...(cfg.cache_key ? { cache_key: cfg.cache_key } : {}),
          ...(cfg.effort ? { effort: cfg.effort } : {}),
          ...(maxTokens ? { max_tokens: maxTokens } : {}),
          ...(cfg.signal ? { signal: cfg.signal } : {}),
        })
      ) {
        if (event.type === "done") done = event;
        cfg.onEvent?.(event);
      }
    } catch (err) {
      return await this.#streamFailed(err, window);
    }
    if (!done) {
      return {
        kind: "ended",
        result: this.#end("error", { error: "the model's stream ended without a final message" }),
      };
    }
    return { kind: "reply", done };
  }

  /**
   * A failed request. The prompt did not fit (the window was unknown or the estimate low):
   * compact, and cut oversized tool results, then try the same turn once more. Else the end.
   */
  async #streamFailed(err: unknown, window: number): Promise<Streamed> {
    const cfg = this.#cfg;
    const ended = (result: LoopResult): Streamed => ({ kind: "ended", result });
    if (cfg.signal?.aborted) return ended(this.#end("error", { error: "interrupted" }));
    const overflow = isContextOverflow(err);
    let nothingToShed = false;
    if (overflow && !this.#overflowRetried) {
      this.#overflowRetried = true;
      this.#turns--;
      try {
        const compacted = await this.#compact();
        // Shed what the server says was too much; else cut hard (the estimate was too low
        // once already: small vocabularies spend about a token per byte).
        const excess = overflowExcess(err);
        const cut = excess !== null
          ? shedTokens(this.#messages, excess, window)
          : capToolResults(this.#messages, window, OVERFLOW_RESULT_SHARE);
        // The journal replays history on resume: record the shortened one.
        if (cut) {
          cfg.journal?.append({ type: "compaction", messages: [...this.#messages] });
          this.#estimator.reset();
        }
        if (compacted || cut) {
          this.#lastContext = 0;
          this.#pendingTokens = 0;
          return { kind: "retry" };
        }
        nothingToShed = true;
      } catch (again) {
        return ended(
          this.#end("error", { error: cfg.signal?.aborted ? "interrupted" : errorText(again) }),
        );
      }
    }
    if (overflow) {
      // One compaction per turn: a second overflow in a row (or nothing to shed) ends the
      // run rather than compacting a history that no longer shrinks.
      return ended(this.#end("error", {
        error: `the prompt did not fit the model's context window ${
          nothingToShed ? "and there was nothing to compact or cut" : "even after compacting once"
        } (set AGENT_CONTEXT_WINDOW to the server's window if it is smaller): ${errorText(err)}`,
      }));
    }
    const unknownModel = await explainUnknownModel(err, cfg.model, cfg.wire, cfg.signal);
    return ended(this.#end("error", { error: unknownModel ?? errorText(err) }));
  }

  /** Counts the reply's usage and appends it to the history and the journal. */
  #record(done: Done): void {
    this.#overflowRetried = false;
    addUsage(this.#usage, done.usage);
    this.#lastContext = promptTokens(done.usage) + done.usage.output_tokens;
    this.#pendingTokens = 0;
    this.#stopReason = done.stop_reason;
    // A server echoing the sentinel has not said which model answered (spec 4.3 rule 2).
    if (done.model && done.model !== DEFAULT_MODEL_SENTINEL) this.#model = done.model;
    this.#messages.push(done.message);
    this.#estimator.anchor(done.usage, this.#messages);
    this.#cfg.journal?.append({ type: "message", message: done.message });
  }

  /** Whether the reply ends the run: a spent budget, or an answer (or none) without calls. */
  #judgeReply(
    done: Done,
    calls: ToolCallPart[],
    check: Sendable | undefined,
  ): LoopResult | undefined {
    const cfg = this.#cfg;
    const usage = this.#usage;
    if (check?.max_tokens !== undefined && done.stop_reason === "max_tokens") {
      // Cut short by the budget's cap, not by the model: neither an answer nor calls to run.
      return this.#end("token_budget", {
        error:
          `token budget of ${cfg.token_budget} reached: the reply was cut at the ${check.max_tokens} tokens left`,
      });
    }
    if (
      cfg.token_budget !== undefined && usage.input_tokens + usage.output_tokens >= cfg.token_budget
    ) {
      return this.#end("token_budget", {
        error: `token budget of ${cfg.token_budget} reached (${
          usage.input_tokens + usage.output_tokens
        } used)`,
      });
    }
    if (calls.length > 0) return undefined;
    const answer = lastAssistantText([done.message]);
    if (done.stop_reason === "max_tokens") {
      // Spec 4.3 rule 8: a small cap ends a reasoning model mid-thought with no content.
      return answer === ""
        ? this.#end("error", {
          error: `the reply hit max_tokens (${capText(cfg)}) before any answer` +
            `${hasReasoning(done.message) ? ", while the model was still reasoning" : ""}; ` +
            `raise AGENT_MAX_TOKENS (max_tokens in settings.toml; 8k to 32k for reasoning ` +
            `models)`,
        })
        : this.#end("truncated", {
          error: `the answer was cut off by max_tokens (${capText(cfg)}); raise ` +
            `AGENT_MAX_TOKENS (max_tokens in settings.toml) and run again`,
        });
    }
    // Judged on this turn alone: text sent before an earlier tool call ("Looking.") is not
    // the answer, so it must neither hide the empty reply nor be reported as final_text.
    if (answer === "") {
      const nothing = done.usage.input_tokens === 0 && done.usage.output_tokens === 0;
      return this.#end("error", {
        final_text: "",
        error: `the model ended its turn without an answer (no text, no tool call` +
          `${nothing ? ", no usage: the server sent an empty reply" : ""})`,
      });
    }
    return this.#end("stop");
  }

  /** Runs the reply's calls and appends their results; an ending when the run must stop. */
  async #runCalls(
    calls: ToolCallPart[],
    stop: StopReason,
    window: number,
  ): Promise<LoopResult | undefined> {
    const cfg = this.#cfg;
    const results: Part[] = [];
    for (const [i, call] of calls.entries()) {
      // An interrupt stops the remaining calls of this reply, not just the next request.
      if (cfg.signal?.aborted) return this.#end("error", { error: "interrupted" });
      const signature = `${call.name}\u0000${stableJson(call.input)}\u0000${
        call.raw_arguments ?? ""
      }`;
      this.#streak = signature === this.#streak.signature
        ? { signature, count: this.#streak.count + 1 }
        : { signature, count: 1 };
      if (this.#streak.count >= LOOP_REPEAT_LIMIT) {
        return this.#end("loop_detected", {
          error: `the same ${call.name} call was repeated ${this.#streak.count} times in a row`,
        });
      }
      // Arguments that did not parse, or a reply cut off by max_tokens: never run the call
      // (the safety net's {} would run it with nothing); tell the model what arrived instead.
      const notRun = notRunReason(call, stop);
      if (notRun !== null) {
        cfg.onEvent?.({ type: "tool_start", call, summary: `${call.name} (not run)` });
        cfg.onEvent?.({ type: "tool_end", call, content: notRun, is_error: true });
        results.push(toolResult(call.id, notRun, true));
        continue;
      }
      const step = await runCall(call, this.#toolByName.get(call.name), cfg);
      if (step.type === "needs_human") {
        const waiting: PendingCall[] = [{
          id: call.id,
          name: call.name,
          input: call.input,
          reason: step.reason,
          ...(step.form ? { form: step.form } : {}),
        }];
        for (const later of calls.slice(i + 1)) {
          results.push(
            toolResult(later.id, "Not run: the run stopped to wait for the operator.", true),
          );
        }
        cfg.journal?.append({ type: "pending", results, waiting });
        return this.#end("needs_human", { questions: step.questions });
      }
      this.#refused ??= step.refused;
      results.push(toolResult(call.id, step.content, step.is_error, step.images));
    }
    const toolMessage: Message = { role: "user", parts: results };
    capToolResults([toolMessage], window);
    this.#pendingTokens = lookAheadTokens(toolMessage);
    this.#messages.push(toolMessage);
    cfg.journal?.append({ type: "message", message: toolMessage });
    return undefined;
  }

  /** Summarizes the older history in place; true when it did. */
  async #compact(maxTokens?: number): Promise<boolean> {
    const cfg = this.#cfg;
    const messages = this.#messages;
    const compacted = await compactHistory(messages, cfg.wire, cfg.model, cfg.signal, maxTokens);
    if (!compacted) return false;
    cfg.onEvent?.({ type: "compacted", before: messages.length, after: compacted.messages.length });
    addUsage(this.#usage, compacted.usage);
    messages.splice(0, messages.length, ...compacted.messages);
    cfg.journal?.append({ type: "compaction", messages: compacted.messages });
    this.#estimator.reset();
    return true;
  }
}

function capText(cfg: LoopConfig): string {
  return cfg.max_tokens ? `${cfg.max_tokens} tokens` : "the server's default cap";
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${
      Object.keys(value).sort().map((k) =>
        `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`
      ).join(",")
    }}`;
  }
  return JSON.stringify(value);
}
