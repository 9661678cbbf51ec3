// The turn loop: stream a reply, run its tool calls under the permission mode, feed the
// results back, until the model stops or a limit ends the run. Every ending has a done_reason.

import type {
  ImageAttachment,
  Message,
  Part,
  StopReason,
  Usage,
  Wire,
  WireEvent,
} from "../wires/types.ts";
import type { Question, Tool, ToolKind, ToolOutcome } from "../tools/types.ts";
import type { Approval, DoneReason } from "./types.ts";
import type { Journal, PendingCall } from "./journal.ts";
import { decide, type PermissionMode, PLAN_DENIAL } from "./permissions.ts";
import { compactHistory, shouldCompact } from "./compaction.ts";
import { type BudgetDecision, budgetGate, PromptEstimator } from "./budget.ts";
import { DEFAULT_MODEL_SENTINEL } from "../wires/probe.ts";
import { errorText } from "../logger.ts";
import { notRunReason } from "./cut_off.ts";
import { explainUnknownModel } from "./model_errors.ts";
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

export type ToolCallPart = Extract<Part, { type: "tool_call" }>;

/** What the loop reports as it goes (for the terminal and logs). */
export type LoopEvent =
  | WireEvent
  | { type: "tool_start"; call: ToolCallPart; summary: string }
  | { type: "tool_end"; call: ToolCallPart; content: string; is_error: boolean }
  | { type: "compacted"; before: number; after: number };

export interface LoopConfig {
  wire: Wire;
  model: string;
  system: string;
  tools: readonly Tool[];
  mode: PermissionMode;
  workdir: string;
  effort?: string;
  max_tokens?: number;
  /**
   * Cap on the run's input plus output tokens, checked before each request (see budget.ts):
   * a request whose estimated prompt does not fit is not sent, and a sent one has its reply
   * capped at what is left.
   */
  token_budget?: number;
  max_turns?: number;
  /** Compaction threshold as a fraction of the context window; unset = never compact. */
  compaction_threshold?: number;
  /** A function when the window can still change mid-run (the startup probe may land late). */
  context_window: number | (() => number);
  /** Per-turn volatile text (memory recall) for the latest user text. */
  reminder?: (userText: string) => string | undefined;
  /**
   * Interactive approval of edit/shell calls in strict mode; absent = needs-human ending.
   * `detail` is what the call will do (a diff, a command); feedback goes to the model.
   */
  approve?: (call: ToolCallPart, summary: string, detail?: string) => Promise<Approval>;
  /** Interactive answers to ask/propose_settings; absent = needs-human ending. */
  answer?: (call: ToolCallPart, questions: Question[]) => Promise<string>;
  journal?: Journal;
  onEvent?: (event: LoopEvent) => void;
  signal?: AbortSignal;
}

export interface LoopResult {
  done_reason: DoneReason;
  messages: Message[];
  final_text: string;
  usage: Usage;
  questions: Question[];
  /** Server-reported model name of the last completed turn (never a name that did not answer). */
  model?: string;
  /** The last completed turn's stop reason (max_tokens marks a cut-off answer). */
  stop_reason?: StopReason;
  error?: string;
  turns: number;
  /** The first refusal of a call for want of a sandbox (ToolOutcome's `refused`), if any. */
  refused?: string;
}

/** Runs until the model stops. `history` ends with the user message that starts this leg. */
export async function runLoop(history: readonly Message[], cfg: LoopConfig): Promise<LoopResult> {
  const messages = [...history];
  const usage: Usage = { input_tokens: 0, output_tokens: 0 };
  const maxTurns = cfg.max_turns ?? DEFAULT_MAX_TURNS;
  const toolByName = new Map(cfg.tools.map((t) => [t.name, t]));
  const specs = cfg.tools.map((t) => ({
    name: t.name,
    description: t.description,
    input_schema: t.input_schema,
  }));
  // The next request's prompt size as best known: the last turn's whole context plus an
  // estimate of what was appended since (tool results), so compaction looks ahead.
  let lastContext = 0;
  let pendingTokens = 0;
  const estimator = new PromptEstimator();
  let overflowRetried = false;
  let stopReason: StopReason | undefined;
  let model: string | undefined;
  let turns = 0;
  let streak = { signature: "", count: 0 };
  let refused: string | undefined;

  const end = (done_reason: DoneReason, extra: Partial<LoopResult> = {}): LoopResult => ({
    done_reason,
    messages,
    final_text: extra.final_text ?? lastAssistantText(messages),
    usage,
    questions: extra.questions ?? [],
    turns,
    ...(model ? { model } : {}),
    ...(stopReason ? { stop_reason: stopReason } : {}),
    ...(extra.error ? { error: extra.error } : {}),
    ...(refused ? { refused } : {}),
  });
  /** The budget's verdict on a request with this prompt estimate; undefined = no budget. */
  const gate = (promptEstimate: number): BudgetDecision | undefined =>
    cfg.token_budget === undefined ? undefined : budgetGate(
      cfg.token_budget,
      usage,
      promptEstimate,
      cfg.max_tokens ?? cfg.wire.defaultMaxTokens,
    );

  for (;;) {
    if (cfg.signal?.aborted) return end("error", { error: "interrupted" });
    if (turns >= maxTurns) {
      return end("turn_cap", { error: `stopped after ${maxTurns} model turns` });
    }

    const window = typeof cfg.context_window === "function"
      ? cfg.context_window()
      : cfg.context_window;
    if (
      cfg.compaction_threshold !== undefined &&
      shouldCompact(lastContext + pendingTokens, window, cfg.compaction_threshold)
    ) {
      // The summary call is a request too; the history it reads is no bigger than the next
      // request's, so that request's estimate is a safe stand-in for its prompt.
      const check = gate(estimator.estimate({ system: cfg.system, tools: specs, messages }));
      if (check && !check.send) return end("token_budget", { error: check.error });
      try {
        if (await compact(check?.max_tokens)) {
          lastContext = 0;
          pendingTokens = 0;
        }
      } catch (err) {
        return end("error", { error: cfg.signal?.aborted ? "interrupted" : errorText(err) });
      }
    }

    let reminder: string | undefined;
    try {
      reminder = cfg.reminder?.(lastUserText(messages));
    } catch (err) {
      return end("error", { error: errorText(err) });
    }
    const check = gate(
      estimator.estimate({ system: cfg.system, tools: specs, messages, reminder }),
    );
    if (check && !check.send) return end("token_budget", { error: check.error });
    const maxTokens = check?.max_tokens ?? cfg.max_tokens;

    turns++;
    let done: Extract<WireEvent, { type: "done" }> | undefined;
    try {
      for await (
        const event of cfg.wire.stream({
          model: cfg.model,
          system: cfg.system,
          messages,
          tools: specs,
          ...(reminder ? { reminder } : {}),
          ...(cfg.effort ? { effort: cfg.effort } : {}),
          ...(maxTokens ? { max_tokens: maxTokens } : {}),
          ...(cfg.signal ? { signal: cfg.signal } : {}),
        })
      ) {
        if (event.type === "done") done = event;
        cfg.onEvent?.(event);
      }
    } catch (err) {
      if (cfg.signal?.aborted) return end("error", { error: "interrupted" });
      // The prompt did not fit (the window was unknown or the estimate low): compact, and cut
      // oversized tool results, then try the same turn once more.
      const overflow = isContextOverflow(err);
      let nothingToShed = false;
      if (overflow && !overflowRetried) {
        overflowRetried = true;
        turns--;
        try {
          const compacted = await compact();
          // Shed what the server says was too much; else cut hard (the estimate was too low
          // once already: small vocabularies spend about a token per byte).
          const excess = overflowExcess(err);
          const cut = excess !== null
            ? shedTokens(messages, excess, window)
            : capToolResults(messages, window, OVERFLOW_RESULT_SHARE);
          // The journal replays history on resume: record the shortened one.
          if (cut) {
            cfg.journal?.append({ type: "compaction", messages: [...messages] });
            estimator.reset();
          }
          if (compacted || cut) {
            lastContext = 0;
            pendingTokens = 0;
            continue;
          }
          nothingToShed = true;
        } catch (again) {
          return end("error", { error: cfg.signal?.aborted ? "interrupted" : errorText(again) });
        }
      }
      if (overflow) {
        // One compaction per turn: a second overflow in a row (or nothing to shed) ends the
        // run rather than compacting a history that no longer shrinks.
        return end("error", {
          error: `the prompt did not fit the model's context window ${
            nothingToShed ? "and there was nothing to compact or cut" : "even after compacting once"
          } (set AGENT_CONTEXT_WINDOW to the server's window if it is smaller): ${errorText(err)}`,
        });
      }
      const unknownModel = await explainUnknownModel(err, cfg.model, cfg.wire, cfg.signal);
      return end("error", { error: unknownModel ?? errorText(err) });
    }
    if (!done) return end("error", { error: "the model's stream ended without a final message" });

    overflowRetried = false;
    addUsage(usage, done.usage);
    lastContext = done.usage.input_tokens + (done.usage.cache_read_tokens ?? 0) +
      (done.usage.cache_creation_tokens ?? 0) + done.usage.output_tokens;
    pendingTokens = 0;
    stopReason = done.stop_reason;
    // A server echoing the sentinel has not said which model answered (spec 4.3 rule 2).
    if (done.model && done.model !== DEFAULT_MODEL_SENTINEL) model = done.model;
    messages.push(done.message);
    estimator.anchor(done.usage, messages);
    cfg.journal?.append({ type: "message", message: done.message });

    const calls = done.message.parts.filter((p): p is ToolCallPart => p.type === "tool_call");
    if (check?.max_tokens !== undefined && done.stop_reason === "max_tokens") {
      // Cut short by the budget's cap, not by the model: neither an answer nor calls to run.
      return end("token_budget", {
        error:
          `token budget of ${cfg.token_budget} reached: the reply was cut at the ${check.max_tokens} tokens left`,
      });
    }
    if (
      cfg.token_budget !== undefined && usage.input_tokens + usage.output_tokens >= cfg.token_budget
    ) {
      return end("token_budget", {
        error: `token budget of ${cfg.token_budget} reached (${
          usage.input_tokens + usage.output_tokens
        } used)`,
      });
    }
    if (calls.length === 0) {
      const answer = lastAssistantText([done.message]);
      if (done.stop_reason === "max_tokens") {
        // Spec 4.3 rule 8: a small cap ends a reasoning model mid-thought with no content.
        return answer === ""
          ? end("error", {
            error: `the reply hit max_tokens (${capText(cfg)}) before any answer` +
              `${hasReasoning(done.message) ? ", while the model was still reasoning" : ""}; ` +
              `raise AGENT_MAX_TOKENS (max_tokens in settings.toml; 8k to 32k for reasoning ` +
              `models)`,
          })
          : end("truncated", {
            error: `the answer was cut off by max_tokens (${capText(cfg)}); raise ` +
              `AGENT_MAX_TOKENS (max_tokens in settings.toml) and run again`,
          });
      }
      // Judged on this turn alone: text sent before an earlier tool call ("Looking.") is not
      // the answer, so it must neither hide the empty reply nor be reported as final_text.
      if (answer === "") {
        const nothing = done.usage.input_tokens === 0 && done.usage.output_tokens === 0;
        return end("error", {
          final_text: "",
          error: `the model ended its turn without an answer (no text, no tool call` +
            `${nothing ? ", no usage: the server sent an empty reply" : ""})`,
        });
      }
      return end("stop");
    }

    const results: Part[] = [];
    for (const [i, call] of calls.entries()) {
      // An interrupt stops the remaining calls of this reply, not just the next request.
      if (cfg.signal?.aborted) return end("error", { error: "interrupted" });
      const signature = `${call.name}\u0000${stableJson(call.input)}\u0000${
        call.raw_arguments ?? ""
      }`;
      streak = signature === streak.signature
        ? { signature, count: streak.count + 1 }
        : { signature, count: 1 };
      if (streak.count >= LOOP_REPEAT_LIMIT) {
        return end("loop_detected", {
          error: `the same ${call.name} call was repeated ${streak.count} times in a row`,
        });
      }
      // Arguments that did not parse, or a reply cut off by max_tokens: never run the call
      // (the safety net's {} would run it with nothing); tell the model what arrived instead.
      const notRun = notRunReason(call, done.stop_reason);
      if (notRun !== null) {
        cfg.onEvent?.({ type: "tool_start", call, summary: `${call.name} (not run)` });
        cfg.onEvent?.({ type: "tool_end", call, content: notRun, is_error: true });
        results.push(toolResult(call.id, notRun, true));
        continue;
      }
      const step = await runCall(call, toolByName.get(call.name), cfg);
      if (step.type === "needs_human") {
        const waiting: PendingCall[] = [{
          id: call.id,
          name: call.name,
          input: call.input,
          reason: step.reason,
        }];
        for (const later of calls.slice(i + 1)) {
          results.push(
            toolResult(later.id, "Not run: the run stopped to wait for the operator.", true),
          );
        }
        cfg.journal?.append({ type: "pending", results, waiting });
        return end("needs_human", { questions: step.questions });
      }
      refused ??= step.refused;
      results.push(toolResult(call.id, step.content, step.is_error, step.images));
    }
    const toolMessage: Message = { role: "user", parts: results };
    capToolResults([toolMessage], window);
    pendingTokens = lookAheadTokens(toolMessage);
    messages.push(toolMessage);
    cfg.journal?.append({ type: "message", message: toolMessage });
  }

  /** Summarizes the older history in place; true when it did. */
  async function compact(maxTokens?: number): Promise<boolean> {
    const compacted = await compactHistory(messages, cfg.wire, cfg.model, cfg.signal, maxTokens);
    if (!compacted) return false;
    cfg.onEvent?.({ type: "compacted", before: messages.length, after: compacted.messages.length });
    addUsage(usage, compacted.usage);
    messages.splice(0, messages.length, ...compacted.messages);
    cfg.journal?.append({ type: "compaction", messages: compacted.messages });
    estimator.reset();
    return true;
  }
}

function capText(cfg: LoopConfig): string {
  return cfg.max_tokens ? `${cfg.max_tokens} tokens` : "the server's default cap";
}

function hasReasoning(message: Message): boolean {
  return message.parts.some((p) => p.type === "reasoning" && p.text.trim() !== "");
}

type CallStep =
  | {
    type: "result";
    content: string;
    is_error: boolean;
    images?: ImageAttachment[];
    refused?: string;
  }
  | { type: "needs_human"; questions: Question[]; reason: PendingCall["reason"] };

async function runCall(
  call: ToolCallPart,
  tool: Tool | undefined,
  cfg: LoopConfig,
): Promise<CallStep> {
  const emitEnd = (
    content: string,
    is_error: boolean,
    images?: ImageAttachment[],
    refused?: string,
  ): CallStep => {
    cfg.onEvent?.({ type: "tool_end", call, content, is_error });
    return {
      type: "result",
      content,
      is_error,
      ...(images?.length ? { images } : {}),
      ...(refused ? { refused } : {}),
    };
  };
  if (!tool) {
    return emitEnd(
      `No tool named "${call.name}". Available: ${cfg.tools.map((t) => t.name).join(", ")}.`,
      true,
    );
  }
  let summary = call.name;
  let kind: ToolKind;
  try {
    summary = tool.summarize?.(call.input) ?? call.name;
    kind = typeof tool.kind === "function" ? tool.kind(call.input) : tool.kind;
  } catch (err) {
    return emitEnd(errorText(err), true);
  }
  cfg.onEvent?.({ type: "tool_start", call, summary });

  const decision = decide(cfg.mode, kind);
  if (decision === "deny") return emitEnd(PLAN_DENIAL, true);
  if (decision === "approval") {
    const detail = await previewOf(tool, call, cfg);
    if (!cfg.approve) {
      return {
        type: "needs_human",
        reason: "approval",
        questions: [{
          kind: "approval",
          text: `Strict mode: approve this action? ${summary}`,
          options: ["approve", "reject"],
          ...(detail ? { detail } : {}),
        }],
      };
    }
    const answer = await cfg.approve(call, summary, detail);
    if (!answer.approved) {
      const feedback = answer.feedback?.trim();
      return emitEnd(
        feedback
          ? `The user declined this action and said: ${feedback}`
          : "The user declined this action.",
        true,
      );
    }
  }

  let outcome: ToolOutcome;
  try {
    outcome = await tool.execute(call.input, {
      workdir: cfg.workdir,
      signal: cfg.signal ?? new AbortController().signal,
    });
  } catch (err) {
    return emitEnd(errorText(err), true);
  }
  if (outcome.type === "needs_human") {
    const reason = outcome.questions.some((q) =>
        q.kind === "proposal"
      ) && call.name === "propose_settings"
      ? "proposal"
      : "ask";
    if (!cfg.answer) return { type: "needs_human", questions: outcome.questions, reason };
    const answer = await cfg.answer(call, outcome.questions);
    return emitEnd(`The operator answered: ${answer}`, false);
  }
  return emitEnd(outcome.content, outcome.is_error ?? false, outcome.images, outcome.refused);
}

/** What a call will do, for the person approving it; a failed preview says why instead. */
async function previewOf(
  tool: Tool,
  call: ToolCallPart,
  cfg: LoopConfig,
): Promise<string | undefined> {
  if (!tool.preview) return undefined;
  try {
    return await tool.preview(call.input, {
      workdir: cfg.workdir,
      signal: cfg.signal ?? new AbortController().signal,
    });
  } catch (err) {
    return `(no preview: ${errorText(err)})`;
  }
}

export function toolResult(
  callId: string,
  content: string,
  isError: boolean,
  images?: ImageAttachment[],
): Part {
  return {
    type: "tool_result",
    call_id: callId,
    content,
    ...(isError ? { is_error: true } : {}),
    ...(images?.length ? { images } : {}),
  };
}

function addUsage(total: Usage, add: Usage): void {
  total.input_tokens += add.input_tokens;
  total.output_tokens += add.output_tokens;
  if (add.cache_read_tokens) {
    total.cache_read_tokens = (total.cache_read_tokens ?? 0) + add.cache_read_tokens;
  }
  if (add.cache_creation_tokens) {
    total.cache_creation_tokens = (total.cache_creation_tokens ?? 0) + add.cache_creation_tokens;
  }
}

export function lastAssistantText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const text = m.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)
      .join("");
    if (text.trim() !== "") return text.trim();
  }
  return "";
}

function lastUserText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    const text = m.parts.filter((p) => p.type === "text").map((p) => (p as { text: string }).text)
      .join("\n");
    if (text !== "") return text;
  }
  return "";
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
