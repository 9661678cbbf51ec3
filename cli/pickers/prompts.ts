// The pickers and questions an interactive session asks, as an interface: the real one
// (inquirer_prompts.ts) draws them with @inquirer, loaded only when the first one opens.

/** One line of a picker: a group header or a row that can be picked. */
export type PickItem<T> =
  | { type: "header"; text: string }
  | {
    type: "row";
    value: T;
    /** Identity of the row (the cursor stays on it when the rows change). */
    key: string;
    label: string;
    /** Shown dimmed after the label (a key badge, "current", …). */
    hint?: string;
  };

export interface PickOptions<T> {
  message: string;
  items: readonly PickItem<T>[];
  /** Key of the row the cursor starts on. */
  initialKey?: string;
  /** Extra help after "↑↓ move · enter pick · esc cancel". */
  help?: string;
  /**
   * The `f` key: acts on the row under the cursor and returns the new rows (the model picker
   * toggles a favorite). A thrown error is shown under the list.
   */
  onToggle?: (value: T) => Promise<readonly PickItem<T>[]>;
}

export interface Prompts {
  /** A keyboard picker; null when cancelled (esc or ctrl+c). */
  pick<T>(options: PickOptions<T>): Promise<T | null>;
  /** A yes/no question; null when cancelled (esc or ctrl+c). */
  confirm(message: string, defaultYes?: boolean): Promise<boolean | null>;
  /** Masked entry (API keys); null when cancelled. */
  secret(message: string): Promise<string | null>;
  /** A free-text answer; null when cancelled. */
  text(message: string): Promise<string | null>;
}

/** The rows of a picker, without headers. */
export function pickRows<T>(
  items: readonly PickItem<T>[],
): Extract<PickItem<T>, { type: "row" }>[] {
  return items.filter((i): i is Extract<PickItem<T>, { type: "row" }> => i.type === "row");
}
