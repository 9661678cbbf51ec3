// The token budget of one run (token_budget: a cap on its cumulative tokens, input plus
// output as the server reports them), enforced before each model request, not after it:
//
// - Before a request the loop estimates its prompt: the server's own count of the previous
//   prompt and reply plus about four characters a token for what was added since (tool
//   results, the memory reminder); before the first request and after a compaction, the
//   whole request at about four characters a token.
// - A request whose estimated prompt does not fit in what is left is never sent; the run
//   ends with done_reason token_budget.
// - A request that is sent gets its reply cap (max_tokens) lowered to what is left after the
//   prompt estimate. The cap is never raised: a server refuses one above the model's own.
//   With no cap known (Chat Completions wire, max_tokens unset) it is lowered only once
//   UNKNOWN_CAP_FLOOR or fewer tokens are left, a cap every current model accepts.
//
// So a run's usage exceeds the budget only by how far a prompt estimate fell short of the
// server's count, or, with no known cap and more than UNKNOWN_CAP_FLOOR tokens left, by a
// reply longer than what was left. Cached prompt tokens are not counted in usage, but the
// check counts the whole prompt, so a run with heavy prefix caching stops early, never late.

import type { Message, ToolSpec, Usage } from "../wires/types.ts";
import { estimateTokens, messagesTokens, requestTokens } from "../wires/token_estimate.ts";

/** A reply cap every current model accepts; used when the real cap is unknown. */
export const UNKNOWN_CAP_FLOOR = 4096;

/** What the budget counts of a usage: input plus output tokens. */
export function budgetUsed(usage: Usage): number {
  return usage.input_tokens + usage.output_tokens;
}

export interface NextRequest {
  system: string;
  tools: readonly ToolSpec[];
  messages: readonly Message[];
  reminder?: string | undefined;
}

/** Estimates the next request's prompt, anchored on the server's count of the last turn. */
export class PromptEstimator {
  /** The server's count of the last prompt plus its reply; 0 = no anchor. */
  #anchor = 0;
  /** History length right after that reply was appended. */
  #anchoredAt = 0;

  /** After a completed turn whose reply is now the last message of `messages`. */
  anchor(usage: Usage, messages: readonly Message[]): void {
    this.#anchor = usage.input_tokens + (usage.cache_read_tokens ?? 0) +
      (usage.cache_write_tokens ?? 0) + usage.output_tokens;
    this.#anchoredAt = messages.length;
  }

  /** After a compaction replaced the history: estimate the whole request again. */
  reset(): void {
    this.#anchor = 0;
  }

  estimate(req: NextRequest): number {
    if (this.#anchor === 0 || req.messages.length < this.#anchoredAt) return requestTokens(req);
    // The anchor holds the previous reminder too; counting it again errs on the safe side.
    return this.#anchor + messagesTokens(req.messages.slice(this.#anchoredAt)) +
      estimateTokens(req.reminder ?? "");
  }
}

export type BudgetDecision =
  | { send: false; error: string }
  /** max_tokens: the lowered reply cap, or undefined to leave the request's cap alone. */
  | { send: true; max_tokens: number | undefined };

/**
 * Whether a request with this prompt estimate may go out under the budget, and the reply cap
 * it gets. `cap` is the request's own max_tokens, or the wire's default when it has none.
 */
export function budgetGate(
  budget: number,
  usage: Usage,
  promptEstimate: number,
  cap: number | undefined,
): BudgetDecision {
  const used = budgetUsed(usage);
  const room = budget - used - promptEstimate;
  if (room <= 0) {
    return {
      send: false,
      error: `token budget of ${budget} reached: ${used} used, and the next request's prompt ` +
        `alone is about ${promptEstimate} tokens`,
    };
  }
  return { send: true, max_tokens: room < (cap ?? UNKNOWN_CAP_FLOOR) ? room : undefined };
}
