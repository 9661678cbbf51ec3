// Cost from token usage. Models missing from the table have no cost (null), never zero.
// Prompt-cache reads are charged at the table's cache_read rate and writes at its
// cache_write rate (Messages: 1.25x input for the 5-minute cache); a rate the table does not
// give falls back to the input rate (Chat Completions providers do not charge for writes).

import type { Usage } from "../wires/types.ts";
import table from "./prices.json" with { type: "json" };

export interface Rate {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

/** USD per million tokens, keyed by provider then sanitized model id. */
export type Table = Record<string, Record<string, Rate> | string>;

/** Lower-case, drop a `[1m]` tier suffix and a provider prefix such as `openai/`. */
export function sanitizeModelId(model: string): string {
  return model.trim().toLowerCase().replace(/\[1m\]$/, "").replace(/^.*\//, "");
}

export function rateFor(
  provider: string,
  model: string,
  prices: Table = table as Table,
): Rate | null {
  const rows = prices[provider];
  if (!rows || typeof rows === "string") return null;
  return rows[sanitizeModelId(model)] ?? null;
}

export function costOf(
  provider: string,
  model: string,
  usage: Usage,
  prices?: Table,
): number | null {
  const rate = rateFor(provider, model, prices);
  if (!rate) return null;
  const perToken = (usd: number) => usd / 1_000_000;
  return usage.input_tokens * perToken(rate.input) +
    (usage.cache_write_tokens ?? 0) * perToken(rate.cache_write ?? rate.input) +
    (usage.cache_read_tokens ?? 0) * perToken(rate.cache_read ?? rate.input) +
    usage.output_tokens * perToken(rate.output);
}

/**
 * What the prompt cache saved: the cost of the same tokens with every prompt token at the
 * input rate, minus the cost as billed. Negative when writes cost more than reads saved (a
 * session too short to read back what it wrote). Null when the model has no price.
 */
export function cacheSavingOf(
  provider: string,
  model: string,
  usage: Usage,
  prices?: Table,
): number | null {
  const billed = costOf(provider, model, usage, prices);
  if (billed === null) return null;
  const uncached: Usage = {
    input_tokens: usage.input_tokens + (usage.cache_read_tokens ?? 0) +
      (usage.cache_write_tokens ?? 0),
    output_tokens: usage.output_tokens,
  };
  return costOf(provider, model, uncached, prices)! - billed;
}

/** Decimal places of a reported cost (JSON `cost_usd`, the run report): a millionth of a dollar. */
export const COST_DECIMALS = 6;

/** A cost as reported: rounded to COST_DECIMALS places, so no float noise (0.30000000000000004). */
export function roundUsd(usd: number | null): number | null {
  if (usd === null) return null;
  const scale = 10 ** COST_DECIMALS;
  return Math.round(usd * scale) / scale;
}

export function formatCost(usd: number | null): string {
  if (usd === null) return "";
  return usd < 0.01 ? `$${usd.toFixed(4)}` : `$${usd.toFixed(2)}`;
}
