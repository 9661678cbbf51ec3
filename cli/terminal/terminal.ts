// What an interactive session needs from a terminal. The real one (node_terminal.ts) sits
// on node:readline and the process's stdin; session tests can pass a scripted one.

import type { Prompts } from "../pickers/prompts.ts";

/** One message typed at the input prompt, or a way out of it. */
export type InputEvent =
  | { type: "line"; text: string }
  /** ctrl+c on a line that had text: the text is dropped, the session goes on. */
  | { type: "cancel" }
  /** ctrl+o: show the last tool call's whole output; `draft` is the line typed so far. */
  | { type: "expand"; draft: string }
  | { type: "quit"; key: "ctrl+c" | "ctrl+d" | "ctrl+q" };

/** Keys that matter while a reply streams or reflection runs. */
export type WatchedKey = "ctrl+c" | "ctrl+q" | "escape";

export interface Terminal {
  write(text: string): void;
  columns(): number;
  rows(): number;
  /**
   * Reads one message. A line ending in a backslash continues on the next line (the
   * backslash is dropped); lines that arrive in one burst (a paste) are one message.
   * Lines are kept in a history that the up and down arrows walk, for the whole session.
   * `draft` (type-ahead left unfinished) starts the line, editable.
   */
  readInput(prompt: string, continuation: string, draft?: string): Promise<InputEvent>;
  /**
   * Listens for the watched keys in raw mode until the returned stop function is called;
   * everything else typed meanwhile goes to `onText` as it arrives (for type-ahead).
   */
  watchKeys(onKey: (key: WatchedKey) => void, onText?: (text: string) => void): () => void;
  /** Pickers, confirmations and masked input. */
  readonly prompts: Prompts;
  /** Restores the terminal (cooked mode, stdin released). */
  close(): void;
}
