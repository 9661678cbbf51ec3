// Type-ahead: what the user types while a reply streams (the terminal is in raw mode then and
// echoes nothing; the activity line shows it). Each message ended with Enter is queued and
// sent, in order, once the reply ends — finished or interrupted; the unfinished rest is put
// back on the next input prompt to be edited. A paste keeps its lines in one message, and
// Shift+Enter or Alt+Enter start a new line, as at the prompt. Backspace and ctrl+u edit;
// other keys (arrows and the like) and control characters are dropped.

import { KeyDecoder } from "./terminal/keys.ts";

export class TypeAhead {
  #lines: string[] = [];
  #current = "";
  /** The prompt's own decoder (cli/terminal/keys.ts), so a paste is one message here too. */
  readonly #keys = new KeyDecoder();

  /** Feeds raw terminal input (never ctrl+c, ctrl+q or a lone esc: those are keys). */
  feed(chunk: string): void {
    for (const event of this.#keys.feed(chunk)) {
      if (event.type === "paste") {
        this.#current += event.text;
      } else if (event.name === "enter") {
        if (this.#current.trim() !== "") this.#lines.push(this.#current);
        this.#current = "";
      } else if (event.name === "newline") {
        this.#current += "\n";
      } else if (event.name === "backspace") {
        this.#current = [...this.#current].slice(0, -1).join("");
      } else if (event.name === "char" && event.ctrl && event.char === "u") {
        this.#current = "";
      } else if (event.name === "char" && !event.ctrl && !event.alt && event.char) {
        this.#current += event.char;
      }
    }
  }

  /** Messages waiting to be sent. */
  get queued(): number {
    return this.#lines.length;
  }

  /** The line being typed (not yet ended with Enter), for the activity line to show. */
  get draft(): string {
    return this.#current;
  }

  /** The oldest queued message, removed from the queue. */
  next(): string | undefined {
    return this.#lines.shift();
  }

  /** The line typed without Enter, removed (for the next prompt to start with). */
  takeDraft(): string {
    const draft = this.#current;
    this.#current = "";
    return draft;
  }
}
