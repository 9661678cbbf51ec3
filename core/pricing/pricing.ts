// Cost from token usage. Models missing from the table have no cost (null), never zero.
// Cache-creation tokens are charged at the input rate (a known underestimate).

import type { Usage } from "../wires/types.ts";
import table from "./prices.json" with { type: "json" };

export interface Rate {
  input: number;
  output: number;
  cache_read?: number;
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
    (usage.cache_write_tokens ?? 0) * perToken(rate.input) +
    (usage.cache_read_tokens ?? 0) * perToken(rate.cache_read ?? rate.input) +
    usage.output_tokens * perToken(rate.output);
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
