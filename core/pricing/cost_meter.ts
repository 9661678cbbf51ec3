// The running cost of an interactive session (spec 8 pricing rules):
// - it counts only while cost display is on; turning it off resets the total;
// - a model missing from the price table makes the total unknown (no cost is shown at all,
//   never a zero), for as long as that usage is part of the total;
// - a provider swap starts a fresh total and keeps the prior one as a footnote;
// - a resumed session starts at zero (a new meter).

import type { Usage } from "../wires/types.ts";
import { cacheSavingOf, costOf, rateFor, type Table } from "./pricing.ts";

/** A total from before a provider swap, shown as a footnote. */
export interface CostFootnote {
  provider: string;
  /** What the user knows the endpoint as (preset id or URL). */
  label: string;
  /** null: some of that usage had no price. */
  usd: number | null;
}

export interface CostMeterOptions {
  enabled: boolean;
  /** The pricing-table provider key (the wire kind). */
  provider: string;
  label: string;
  prices?: Table;
}

export class CostMeter {
  #enabled: boolean;
  #provider: string;
  #label: string;
  #prices: Table | undefined;
  #usd = 0;
  #saving = 0;
  #turns = 0;
  #unpriced = new Set<string>();
  #footnotes: CostFootnote[] = [];

  constructor(opts: CostMeterOptions) {
    this.#enabled = opts.enabled;
    this.#provider = opts.provider;
    this.#label = opts.label;
    this.#prices = opts.prices;
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  get provider(): string {
    return this.#provider;
  }

  get label(): string {
    return this.#label;
  }

  /** Turns counted since the last reset. */
  get turns(): number {
    return this.#turns;
  }

  /** The running total in USD; null while any counted usage had no price. */
  get total(): number | null {
    return this.#unpriced.size > 0 ? null : this.#usd;
  }

  /**
   * What the provider's prompt cache saved over the counted turns (cacheSavingOf: the same
   * prompts billed in full, minus the total); null whenever the total is.
   */
  get cacheSaving(): number | null {
    return this.#unpriced.size > 0 ? null : this.#saving;
  }

  /** Models counted in the total that the table has no price for. */
  get unpricedModels(): readonly string[] {
    return [...this.#unpriced];
  }

  get footnotes(): readonly CostFootnote[] {
    return this.#footnotes;
  }

  /** Whether the table prices `model` on the current provider. */
  priced(model: string): boolean {
    return rateFor(this.#provider, model, this.#prices) !== null;
  }

  /** The table's rate for `model` on the current provider, if any. */
  rate(model: string): ReturnType<typeof rateFor> {
    return rateFor(this.#provider, model, this.#prices);
  }

  /** Counts one turn's usage; returns its cost (null when unpriced or display is off). */
  add(model: string, usage: Usage): number | null {
    if (!this.#enabled) return null;
    this.#turns++;
    const cost = costOf(this.#provider, model, usage, this.#prices);
    if (cost === null) {
      this.#unpriced.add(model);
      return null;
    }
    this.#usd += cost;
    this.#saving += cacheSavingOf(this.#provider, model, usage, this.#prices) ?? 0;
    return cost;
  }

  /** /cost on. Counting starts from zero. */
  enable(): void {
    if (!this.#enabled) this.#reset();
    this.#enabled = true;
  }

  /** /cost off: stop counting and reset the running total. */
  disable(): void {
    this.#enabled = false;
    this.#reset();
    this.#footnotes = [];
  }

  /**
   * A provider swap: the total so far becomes a footnote (when anything was counted) and a
   * fresh total starts for the new provider.
   */
  swapProvider(provider: string, label: string): void {
    if (this.#enabled && this.#turns > 0) {
      this.#footnotes.push({ provider: this.#provider, label: this.#label, usd: this.total });
    }
    this.#provider = provider;
    this.#label = label;
    this.#reset();
  }

  #reset(): void {
    this.#usd = 0;
    this.#saving = 0;
    this.#turns = 0;
    this.#unpriced.clear();
  }
}
