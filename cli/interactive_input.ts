// The input prompt's memory and completion for one session: the project's message history
// (input_history.ts) and Tab completion (interactive_completion.ts). History trouble (an
// unreadable or unwritable file) is said on screen and never ends the session.

import type { ReadOptions } from "./terminal/terminal.ts";
import type { Completer } from "./terminal/line_editor.ts";
import { InputHistory } from "./input_history.ts";
import { sessionCompleter } from "./interactive_completion.ts";
import { COMMANDS } from "./interactive_commands.ts";
import { errorText } from "../core/logger.ts";

export class PromptInput {
  readonly #history: InputHistory;
  readonly #complete: Completer;
  readonly #error: (text: string) => void;

  constructor(agentHome: string, workdir: string, error: (text: string) => void) {
    this.#history = new InputHistory(agentHome, workdir);
    this.#complete = sessionCompleter(COMMANDS.map((c) => c.name).concat("quit"), workdir);
    this.#error = error;
  }

  /** What the next prompt is read with: the history so far and the completer. */
  async options(draft: string): Promise<ReadOptions> {
    let history: string[] = [];
    try {
      history = await this.#history.entries();
    } catch (err) {
      this.#error(`✗ input history unreadable (${this.#history.path}): ${errorText(err)}`);
    }
    return { draft, history, complete: this.#complete };
  }

  /** Records a sent message in the project's history. */
  async remember(message: string): Promise<void> {
    try {
      await this.#history.add(message);
    } catch (err) {
      this.#error(`✗ input history not saved (${this.#history.path}): ${errorText(err)}`);
    }
  }
}
