// What an interactive session needs from a terminal. The real one (node_terminal.ts) reads
// the process's stdin in raw mode through its own line editor (line_editor.ts); session tests
// can pass a scripted one.

import type { Prompts } from "../pickers/prompts.ts";

/** Candidates for the word at the cursor: the range they replace and the choices, best first. */
export interface Completion {
  from: number;
  to: number;
  candidates: string[];
}

export type Completer = (text: string, cursor: number) => Promise<Completion | undefined>;

export interface ReadOptions {
  /** Type-ahead left unfinished: starts the text, editable. */
  draft?: string;
  /** Earlier messages, oldest first, for the up arrow and ctrl+r. */
  history?: readonly string[];
  /** What Tab completes. */
  complete?: Completer;
}

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
   * Reads one message, which may span lines: a paste (bracketed or not) keeps its line breaks
   * and waits for Enter; Shift+Enter, Alt+Enter and a trailing backslash start a new line.
   */
  readInput(prompt: string, continuation: string, opts?: ReadOptions): Promise<InputEvent>;
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
