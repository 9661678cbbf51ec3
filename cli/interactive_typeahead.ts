// Type-ahead: what the user types while a reply streams (the terminal is in raw mode then and
// echoes nothing). Each line ended with Enter is queued as a message of its own and sent,
// in order, once the reply ends — finished or interrupted; the unfinished rest is put back on
// the next input prompt to be edited. Backspace and ctrl+u edit; escape sequences (arrows and
// other keys) and other control characters are dropped.

export class TypeAhead {
  #lines: string[] = [];
  #current = "";

  /** Feeds raw terminal input (never ctrl+c, ctrl+q or a lone esc: those are keys). */
  feed(chunk: string): void {
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i]!;
      if (ch === "\x1b") {
        i = skipEscapeSequence(chunk, i);
      } else if (ch === "\r" || ch === "\n") {
        if (ch === "\n" && chunk[i - 1] === "\r") continue;
        if (this.#current.trim() !== "") this.#lines.push(this.#current);
        this.#current = "";
      } else if (ch === "\x7f" || ch === "\b") {
        this.#current = [...this.#current].slice(0, -1).join("");
      } else if (ch === "\x15") {
        this.#current = "";
      } else if (ch >= " ") {
        this.#current += ch;
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

/** Index of the last character of the escape sequence starting at `start`. */
function skipEscapeSequence(s: string, start: number): number {
  const next = s[start + 1];
  if (next === "[" || next === "O") {
    let i = start + 2;
    // CSI: parameter and intermediate bytes, then one final byte in @..~.
    while (i < s.length && !(s[i]! >= "@" && s[i]! <= "~" && !(next === "[" && s[i] === "["))) {
      i++;
    }
    return Math.min(i, s.length - 1);
  }
  // ESC followed by one character (alt+key); a lone trailing ESC is just dropped.
  return next === undefined ? start : start + 1;
}
